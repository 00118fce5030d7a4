#include "src/server/memory_release.h"

#include <malloc.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace hptune::server {
namespace {

class Trimmer {
 public:
  Trimmer() {
    std::thread([this] { Loop(); }).detach();
  }

  void Request() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_) return;
    pending_ = true;
    wake_.notify_one();
  }

 private:
  [[noreturn]] void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return pending_; });
      // Later calls until then are served by this one trim.
      const auto at = std::chrono::steady_clock::now() + kTrimInterval;
      while (std::chrono::steady_clock::now() < at) wake_.wait_until(lock, at);
      pending_ = false;
      lock.unlock();
      malloc_trim(0);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace

void LimitAllocatorArenas() { mallopt(M_ARENA_MAX, 2); }

void ReleaseFreeMemorySoon() {
  // Never destroyed: its thread runs until the process exits.
  static Trimmer* const trimmer = new Trimmer();
  trimmer->Request();
}

}  // namespace hptune::server
