// BackgroundWork: the engine's worker thread for designers' deferred work
// (designer.h), such as the GP designer's hyperparameter refits, so that no
// suggestion waits for it. Internal to the engine (TuningEngine).
//
// One thread runs one piece of work at a time, keyed by study. Submitting
// for a key replaces work queued and not yet started for it (the newest
// history's fit supersedes an older one). It is refused while the key's
// work runs or its result waits: that result comes first, and a fit queued
// behind it would be one of nearly the same history; the designer offers
// the work again at its next suggestion if it still needs it. At most
// `max_queued` keys wait; beyond that a submission is refused too. A
// finished result waits for TakeResult, the newest per key. The destructor
// cancels the running work (its `cancelled` flag), drops the queue and
// joins the thread. Thread-safe.
#ifndef HPTUNE_SRC_ENGINE_BACKGROUND_WORK_H_
#define HPTUNE_SRC_ENGINE_BACKGROUND_WORK_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/mutex.h"

namespace hptune::engine {

class BackgroundWork {
 public:
  static constexpr size_t kDefaultMaxQueued = 256;

  explicit BackgroundWork(size_t max_queued = kDefaultMaxQueued);
  ~BackgroundWork();
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  // Queues `work` for `key`; false while work for `key` runs or its result
  // waits, or when max_queued other keys wait.
  bool Submit(const std::string& key, algorithms::Designer::DeferredWork work);
  // The newest finished result for `key`, once.
  std::optional<std::string> TakeResult(std::string_view key);
  // Drops what is queued or finished for `key`; work for it running now
  // keeps its result to itself.
  void Forget(std::string_view key);
  // Whether nothing is queued or running by `deadline` (tests and
  // benchmarks that need the work done).
  bool WaitIdle(std::chrono::steady_clock::time_point deadline);

 private:
  void Run();

  const size_t max_queued_;
  Mutex mutex_;
  CondVar changed_;
  std::deque<std::string> order_ ABSL_GUARDED_BY(mutex_);  // Queued keys.
  std::map<std::string, algorithms::Designer::DeferredWork, std::less<>> queued_
      ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::string, std::less<>> results_
      ABSL_GUARDED_BY(mutex_);
  // The key of the running work, and whether Forget dropped it meanwhile.
  std::optional<std::string> running_ ABSL_GUARDED_BY(mutex_);
  bool running_forgotten_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::atomic<bool> cancelled_{false};
  std::thread thread_;  // Last: starts once the rest exists.
};

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_BACKGROUND_WORK_H_
