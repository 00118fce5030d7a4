// LeaseWatch (src/cli/lease_watch.h): a lost runner lease is told once,
// with its reason, and a held one never; the watch stops when destroyed.
// Real threads on the real Env; synchronised on a condition, not on time.
#include "src/cli/lease_watch.h"

#include <atomic>
#include <chrono>

#include "gtest/gtest.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"

namespace hptune::cli {
namespace {

TEST(LeaseWatchTest, ALostLeaseIsToldOnceWithItsReason) {
  std::atomic<int> checks = 0;
  Mutex mu;
  CondVar told;
  int fired = 0;
  absl::Status told_why;
  {
    LeaseWatch watch(
        DefaultEnv(), std::chrono::milliseconds(1),
        [&]() -> absl::Status {
          return ++checks < 3 ? absl::OkStatus()
                              : absl::UnavailableError("session ended");
        },
        [&](const absl::Status& lost) {
          MutexLock lock(&mu);
          ++fired;
          told_why = lost;
          told.SignalAll();
        });
    MutexLock lock(&mu);
    const MonotonicTime deadline =
        DefaultEnv().MonotonicNow() + std::chrono::seconds(30);
    while (fired == 0 && DefaultEnv().WaitUntil(&told, &mu, deadline)) {
    }
    ASSERT_EQ(fired, 1);
    EXPECT_EQ(told_why, absl::UnavailableError("session ended"));
    EXPECT_EQ(watch.lost(), absl::UnavailableError("session ended"));
  }
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(checks.load(), 3);  // It stopped checking once the lease was lost.
}

TEST(LeaseWatchTest, AHeldLeaseNeverFiresAndTheWatchStopsWhenDestroyed) {
  bool fired = false;
  {
    LeaseWatch watch(
        DefaultEnv(), std::chrono::hours(1), [] { return absl::OkStatus(); },
        [&](const absl::Status&) { fired = true; });
    EXPECT_TRUE(watch.lost().ok());
  }  // Returns without waiting out the hour.
  EXPECT_FALSE(fired);
}

}  // namespace
}  // namespace hptune::cli
