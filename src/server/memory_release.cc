#include "src/server/memory_release.h"

#include <malloc.h>

#include <chrono>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"

namespace hptune::server {
namespace {

class Trimmer {
 public:
  Trimmer() {
    std::thread([this] { Loop(); }).detach();
  }

  void Request() {
    MutexLock lock(&mutex_);
    if (pending_) return;
    pending_ = true;
    wake_.Signal();
  }

 private:
  [[noreturn]] void Loop() {
    while (true) {
      {
        MutexLock lock(&mutex_);
        while (!pending_) wake_.Wait(&mutex_);
        // Later calls until then are served by this one trim: a signal
        // meanwhile does not end the wait.
        const auto at = std::chrono::steady_clock::now() + kTrimInterval;
        while (wake_.WaitUntil(&mutex_, at)) continue;
        pending_ = false;
      }
      malloc_trim(0);
    }
  }

  Mutex mutex_;
  CondVar wake_;
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
