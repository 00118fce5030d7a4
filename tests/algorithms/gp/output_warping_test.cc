#include "algorithms/gp/output_warping.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::algorithms::gp {
namespace {

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return sum / static_cast<double>(v.size());
}

TEST(OutputWarpingTest, KeepsTheOrderAndStandardises) {
  std::vector<double> values;
  for (int i = 0; i < 40; ++i) values.push_back(std::sin(i * 1.7) * i);
  const std::vector<double> warped = WarpObjectives(values);
  ASSERT_EQ(warped.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      if (values[i] < values[j]) {
        EXPECT_LT(warped[i], warped[j]);
      }
      if (values[i] == values[j]) {
        EXPECT_EQ(warped[i], warped[j]);
      }
    }
  }
  EXPECT_NEAR(Mean(warped), 0, 1e-12);
  EXPECT_NEAR(Variance(warped), 1, 1e-12);
}

TEST(OutputWarpingTest, ABadOutlierDoesNotFlattenTheGoodValues) {
  // Higher is better; one diverged run at -1e30.
  std::vector<double> values = {0.90, 0.91, 0.92, 0.93, 0.94, 0.95, -1e30};
  const std::vector<double> warped = WarpObjectives(values);
  // The good values keep distinct, well separated targets.
  for (int i = 0; i + 1 < 6; ++i) EXPECT_GT(warped[i + 1] - warped[i], 0.1);
  // The outlier is below them, at a bounded distance.
  EXPECT_LT(warped[6], warped[0]);
  EXPECT_GT(warped[6], -5);
}

TEST(OutputWarpingTest, HugeValuesStayFinite) {
  const std::vector<double> warped =
      WarpObjectives(std::vector<double>{1e308, -1e308, 0, 1e300, 5});
  for (double w : warped) EXPECT_TRUE(std::isfinite(w));
  EXPECT_GT(warped[0], warped[3]);
  EXPECT_LT(warped[1], warped[2]);
}

TEST(OutputWarpingTest, ConstantValuesGiveZeros) {
  EXPECT_EQ(WarpObjectives(std::vector<double>{3, 3, 3}),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(WarpObjectives(std::vector<double>{7}), std::vector<double>{0});
  EXPECT_TRUE(WarpObjectives(std::vector<double>{}).empty());
}

TEST(OutputWarpingTest, TheBadHalfBecomesTheLowerHalfOfANormal) {
  // 0..99: the median is 49.5; the bad half's targets follow normal
  // quantiles, so the worst is about as far below the median as the
  // 0.5 / 50-quantile of a normal with the good half's spread.
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(i);
  const std::vector<double> warped = WarpObjectives(values);
  // Bad-half gaps grow towards the worst value (normal tail), unlike the
  // uniform spacing of the input.
  EXPECT_GT(warped[1] - warped[0], warped[40] - warped[39]);
}

TEST(NormalQuantileTest, MatchesKnownQuantiles) {
  EXPECT_NEAR(NormalQuantile(0.5), 0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.025), -1.959963984540054, 1e-13);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-10);
  for (double p : {1e-300, 1e-8, 0.01, 0.3, 0.7, 0.99, 1 - 1e-12}) {
    const double x = NormalQuantile(p);
    EXPECT_NEAR(0.5 * std::erfc(-x / std::numbers::sqrt2) / p, 1, 1e-12) << p;
  }
}

}  // namespace
}  // namespace hptune::algorithms::gp
