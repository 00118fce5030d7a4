#include "algorithms/common/splitmix64.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::algorithms {
namespace {

TEST(SplitMix64Test, MatchesTheReferenceImplementation) {
  // Outputs of Vigna's splitmix64.c with x = 1234567.
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.Next(), 6457827717110365317ull);
  EXPECT_EQ(rng.Next(), 3203168211198807973ull);
  EXPECT_EQ(rng.Next(), 9817491932198370423ull);
  EXPECT_EQ(rng.Next(), 4593380528125082431ull);
  EXPECT_EQ(rng.Next(), 16408922859458223821ull);
  EXPECT_EQ(rng.draws(), 5u);
}

TEST(SplitMix64Test, APositionedStreamContinuesTheSameOutputs) {
  SplitMix64 from_start(42);
  std::vector<uint64_t> outputs;
  for (int i = 0; i < 100; ++i) outputs.push_back(from_start.Next());
  SplitMix64 positioned(42, 60);
  for (int i = 60; i < 100; ++i) EXPECT_EQ(positioned.Next(), outputs[i]);
}

TEST(SplitMix64Test, UnitDrawsAreInTheHalfOpenInterval) {
  SplitMix64 rng(7);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    double u = rng.NextUnit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // Mean 1/2, sd of the mean sqrt(1/12 / 1e5) ~ 0.0009.
  EXPECT_NEAR(sum / 100000, 0.5, 0.004);
}

TEST(SplitMix64Test, NextBelowStaysInRangeAndHitsEveryValue) {
  SplitMix64 rng(9);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 7000; ++i) {
    uint64_t k = rng.NextBelow(7);
    ASSERT_LT(k, 7u);
    ++counts[k];
  }
  for (int c : counts) EXPECT_GT(c, 800);
  EXPECT_EQ(rng.NextBelow(1), 0u);
}

}  // namespace
}  // namespace hptune::algorithms
