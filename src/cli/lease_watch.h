// The watch of `hptune serve` and `hptune run` on their runner lease: a
// thread that checks the lease every `interval` (RunnerLease::Check) and,
// once it is lost, keeps why and calls `on_lost` with it, once. Another
// runner may then take the jobs over, and two must never run one job, so
// the owner stops its trainers, leaving the jobs resumable, and exits
// non-zero: serve sends itself SIGTERM and drains as on a stop signal; run
// drains its launcher and ends. A lease that cannot be lost (a SQLite
// file's flocks) never fires.
//
// Thread-safety: lost() may be called from any thread; the callbacks run on
// the watch's own thread.
#ifndef HPTUNE_SRC_CLI_LEASE_WATCH_H_
#define HPTUNE_SRC_CLI_LEASE_WATCH_H_

#include <chrono>
#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"

namespace hptune::cli {

// How often serve and run check their lease: a lost lease is seen within
// this, well inside the time before another runner may take the jobs over.
inline constexpr std::chrono::seconds kLeaseCheckInterval(2);

class LeaseWatch {
 public:
  LeaseWatch(Env& env, std::chrono::milliseconds interval,
             std::function<absl::Status()> check,
             std::function<void(const absl::Status& lost)> on_lost);
  ~LeaseWatch();  // Stops the thread.
  LeaseWatch(const LeaseWatch&) = delete;
  LeaseWatch& operator=(const LeaseWatch&) = delete;

  // Why the lease was lost; OK while it is held.
  absl::Status lost() const;

 private:
  void Run();

  Env& env_;
  const std::chrono::milliseconds interval_;
  const std::function<absl::Status()> check_;
  const std::function<void(const absl::Status&)> on_lost_;
  mutable Mutex mu_;
  CondVar stop_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status lost_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // Last: starts once the rest is set.
};

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_LEASE_WATCH_H_
