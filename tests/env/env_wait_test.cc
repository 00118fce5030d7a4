// Env::WaitUntil, a wait on a condition with a deadline on Env's monotonic
// clock: on the real machine a signal ends it early and otherwise the
// deadline does; on FakeEnv, as fake_env.h says, time passes as it waits,
// and an advance of the clock by another thread ends it at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"
#include "tests/testing/fake_env.h"

namespace hptune {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

// A flag guarded by a mutex, and the condition a waiter waits on.
struct Flag {
  Mutex mu;
  CondVar cv;
  bool set ABSL_GUARDED_BY(mu) = false;

  void Set() {
    MutexLock lock(&mu);
    set = true;
    cv.SignalAll();
  }
  // Waits as the project's waiting loops do; true when the flag was set
  // before `deadline`.
  bool WaitFor(Env& env, MonotonicTime deadline) {
    MutexLock lock(&mu);
    while (!set) {
      if (!env.WaitUntil(&cv, &mu, deadline)) break;
    }
    return set;
  }
};

TEST(EnvWaitTest, OnTheRealMachineASignalEndsTheWaitEarly) {
  Env& env = DefaultEnv();
  Flag flag;
  std::thread setter([&] { flag.Set(); });
  EXPECT_TRUE(flag.WaitFor(env, env.MonotonicNow() + hours(1)));
  setter.join();
}

TEST(EnvWaitTest, OnTheRealMachineTheDeadlineEndsIt) {
  Env& env = DefaultEnv();
  Flag flag;
  const MonotonicTime deadline = env.MonotonicNow() + milliseconds(20);
  EXPECT_FALSE(flag.WaitFor(env, deadline));
  EXPECT_GE(env.MonotonicNow(), deadline);
}

TEST(EnvWaitTest, OnFakeEnvASignalEndsTheWaitBeforeItsTimePasses) {
  testing::FakeEnv env;
  Flag flag;
  const MonotonicTime start = env.MonotonicNow();
  std::thread setter([&] { flag.Set(); });
  EXPECT_TRUE(flag.WaitFor(env, start + hours(1)));
  setter.join();
  EXPECT_LT(env.MonotonicNow(), start + hours(1));
}

TEST(EnvWaitTest, OnFakeEnvAnAdvanceToTheDeadlineEndsTheWaitAtOnce) {
  testing::FakeEnv env;
  Flag flag;
  const MonotonicTime deadline = env.MonotonicNow() + hours(1);
  std::atomic<bool> ended{false};
  std::thread waiter([&] {
    EXPECT_FALSE(flag.WaitFor(env, deadline));
    ended = true;
  });
  // An hour of waiting in real time, unless the advance ends it.
  env.Advance(hours(1));
  waiter.join();
  EXPECT_TRUE(ended);
  EXPECT_GE(env.MonotonicNow(), deadline);
}

TEST(EnvWaitTest, OnFakeEnvAWaitNobodyEndsMovesTheClocksToItsDeadline) {
  testing::FakeEnv env;
  Flag flag;
  const MonotonicTime start = env.MonotonicNow();
  const Timestamp wall = env.Now();
  EXPECT_FALSE(flag.WaitFor(env, start + milliseconds(30)));
  EXPECT_EQ(env.MonotonicNow() - start, milliseconds(30));
  EXPECT_EQ(env.Now() - wall, milliseconds(30));
}

TEST(EnvWaitTest, APassedDeadlineEndsTheWaitAtOnceOnBoth) {
  testing::FakeEnv fake;
  for (Env* env : {static_cast<Env*>(&fake), &DefaultEnv()}) {
    Flag flag;
    const MonotonicTime now = env->MonotonicNow();
    MutexLock lock(&flag.mu);
    EXPECT_FALSE(env->WaitUntil(&flag.cv, &flag.mu, now));
  }
}

}  // namespace
}  // namespace hptune
