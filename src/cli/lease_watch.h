// The serve command's watch on its runner lease: a thread that checks the
// lease every `interval` (HptuneServer::CheckRunnerLease) and, once it is
// lost, keeps why and calls `on_lost` once (the serve command sends itself
// SIGTERM, so the server drains its jobs as on a stop signal and exits
// non-zero: another server may now take those jobs over, and two must
// never run one job). A lease that cannot be lost (a SQLite file's flocks)
// never fires. Used by `hptune serve` only.
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

class LeaseWatch {
 public:
  LeaseWatch(Env& env, std::chrono::milliseconds interval,
             std::function<absl::Status()> check,
             std::function<void()> on_lost);
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
  const std::function<void()> on_lost_;
  mutable Mutex mu_;
  CondVar stop_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status lost_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // Last: starts once the rest is set.
};

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_LEASE_WATCH_H_
