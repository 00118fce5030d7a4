// Env's clocks and entropy, on the real machine and on FakeEnv: the
// monotonic clock never goes back and ignores the wall clock's jumps, and
// seeds differ from draw to draw (on FakeEnv, the same sequence each time).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <set>

#include "hptune/env/env.h"
#include "hptune/env/env_wrapper.h"
#include "tests/testing/fake_env.h"

namespace hptune {
namespace {

TEST(EnvTimeTest, TheRealMonotonicClockNeverGoesBack) {
  Env& env = DefaultEnv();
  MonotonicTime last = env.MonotonicNow();
  for (int i = 0; i < 1000; ++i) {
    const MonotonicTime now = env.MonotonicNow();
    ASSERT_GE(now, last);
    last = now;
  }
}

TEST(EnvTimeTest, FakeTimePassesOnlyWhenWaitedOnAndOnBothClocks) {
  testing::FakeEnv env;
  const Timestamp wall = env.Now();
  const MonotonicTime start = env.MonotonicNow();
  EXPECT_EQ(env.MonotonicNow(), start);
  env.SleepFor(std::chrono::seconds(3));
  env.WaitForReadable({}, std::chrono::seconds(2));
  EXPECT_EQ(env.MonotonicNow() - start, std::chrono::seconds(5));
  EXPECT_EQ(env.Now() - wall, std::chrono::seconds(5));
}

TEST(EnvTimeTest, ASetWallClockLeavesTheMonotonicOneAlone) {
  testing::FakeEnv env;
  const MonotonicTime start = env.MonotonicNow();
  env.fake_clock().Advance(-std::chrono::hours(1));
  env.fake_clock().Advance(std::chrono::hours(5));
  EXPECT_EQ(env.MonotonicNow(), start);
}

TEST(EnvEntropyTest, RealSeedsDiffer) {
  std::set<uint64_t> seeds;
  for (int i = 0; i < 16; ++i) seeds.insert(DefaultEnv().RandomSeed());
  EXPECT_EQ(seeds.size(), 16u);
}

TEST(EnvEntropyTest, FakeSeedsDifferAndRepeatInEveryFakeEnv) {
  testing::FakeEnv first;
  testing::FakeEnv second;
  std::set<uint64_t> seeds;
  for (int i = 0; i < 16; ++i) {
    const uint64_t seed = first.RandomSeed();
    EXPECT_EQ(second.RandomSeed(), seed);
    seeds.insert(seed);
  }
  EXPECT_EQ(seeds.size(), 16u);
}

TEST(EnvEntropyTest, AWrapperHandsOnTimeAndSeeds) {
  testing::FakeEnv fake;
  testing::FakeEnv reference;
  EnvWrapper wrapper(fake);
  EXPECT_EQ(wrapper.MonotonicNow(), fake.MonotonicNow());
  EXPECT_EQ(wrapper.RandomSeed(), reference.RandomSeed());
}

}  // namespace
}  // namespace hptune
