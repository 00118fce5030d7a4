#include "src/cli/lease_watch.h"

#include <utility>

namespace hptune::cli {

LeaseWatch::LeaseWatch(Env& env, std::chrono::milliseconds interval,
                       std::function<absl::Status()> check,
                       std::function<void(const absl::Status&)> on_lost)
    : env_(env),
      interval_(interval),
      check_(std::move(check)),
      on_lost_(std::move(on_lost)),
      thread_([this] { Run(); }) {}

LeaseWatch::~LeaseWatch() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  stop_.SignalAll();
  thread_.join();
}

absl::Status LeaseWatch::lost() const {
  MutexLock lock(&mu_);
  return lost_;
}

void LeaseWatch::Run() {
  while (true) {
    {
      MutexLock lock(&mu_);
      const MonotonicTime next = env_.MonotonicNow() + interval_;
      while (!stopping_ && env_.WaitUntil(&stop_, &mu_, next)) {
      }
      if (stopping_) return;
    }
    absl::Status held = check_();
    if (held.ok()) continue;
    {
      MutexLock lock(&mu_);
      lost_ = held;
    }
    on_lost_(held);
    return;
  }
}

}  // namespace hptune::cli
