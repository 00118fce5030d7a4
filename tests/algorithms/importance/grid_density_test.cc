#include "algorithms/importance/grid_density.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::algorithms {
namespace {

double Total(const std::vector<double>& density) {
  return std::accumulate(density.begin(), density.end(), 0.0);
}

TEST(GridDensityTest, ScottBandwidthFollowsTheRule) {
  // Ten observations on each of points 0..9. The quartiles are where the
  // running count first reaches 25 (point 2) and first passes 75 (point 7),
  // as numpy's searchsorted finds them in Optuna.
  std::vector<double> counts(10, 10.0);
  const double n = 100, mean = 4.5;
  double squares = 0;
  for (int k = 0; k < 10; ++k) squares += 10 * (k - mean) * (k - mean);
  const double stddev = std::sqrt(squares / (n - 1));
  const double iqr = 7 - 2;
  EXPECT_DOUBLE_EQ(ScottBandwidth(counts),
                   1.059 * std::min(iqr / 1.34, stddev) * std::pow(n, -0.2));
}

TEST(GridDensityTest, ScottBandwidthHasAFloor) {
  std::vector<double> counts(10, 0.0);
  counts[3] = 100;
  EXPECT_DOUBLE_EQ(ScottBandwidth(counts), 0.5 / 1.64);
}

TEST(GridDensityTest, OrderedDensityIsAMassFunctionPeakingAtTheData) {
  std::vector<double> counts(20, 0.0);
  counts[5] = 30;
  counts[6] = 10;
  const std::vector<double> density = OrderedParzenDensity(counts, 1.0);
  ASSERT_EQ(density.size(), 20u);
  EXPECT_NEAR(Total(density), 1.0, 1e-12);
  EXPECT_EQ(std::max_element(density.begin(), density.end()) - density.begin(),
            5);
  EXPECT_GT(density[19], 0);  // the prior reaches every point
}

TEST(GridDensityTest, EmptyOrderedDensityIsThePrior) {
  const std::vector<double> density =
      OrderedParzenDensity(std::vector<double>(9, 0.0), 1.0);
  EXPECT_NEAR(Total(density), 1.0, 1e-12);
  EXPECT_GT(density[4], density[0]);  // centred
  EXPECT_DOUBLE_EQ(density[0], density[8]);
}

TEST(GridDensityTest, CategoricalDensityHasAKernelPerTrial) {
  // Counts 3, 1, 0 and prior weight 1: four trials, so each trial's kernel
  // is (1 on its category + 1/5 on each) / (1 + 3/5), and the prior is 1/3.
  const std::vector<double> density =
      CategoricalParzenDensity(std::vector<double>{3, 1, 0}, 1.0);
  const double spread = 1.0 / 5, kernel = 1 + 3 * spread;
  EXPECT_DOUBLE_EQ(density[0], ((4 * spread + 3) / kernel + 1.0 / 3) / 5);
  EXPECT_DOUBLE_EQ(density[2], ((4 * spread + 0) / kernel + 1.0 / 3) / 5);
  EXPECT_NEAR(Total(density), 1.0, 1e-12);
}

TEST(GridDensityTest, CategoryEveryTrialChoseTakesAlmostAllTheDensity) {
  // With a kernel per occupied category, as Optuna's PED-ANOVA counts them,
  // this would stay at 0.6 however many trials there were.
  const std::vector<double> density =
      CategoricalParzenDensity(std::vector<double>{1000, 0, 0}, 1.0);
  EXPECT_GT(density[0], 0.99);
}

TEST(GridDensityTest, PearsonDivergenceIsZeroOnlyForEqualDensities) {
  const std::vector<double> q = {0.25, 0.25, 0.5};
  EXPECT_EQ(PearsonDivergence(q, q), 0.0);
  const std::vector<double> p = {0.5, 0.25, 0.25};
  // sum (p - q)^2 / q = 0.0625 / 0.25 + 0 + 0.0625 / 0.5
  EXPECT_NEAR(PearsonDivergence(p, q), 0.25 + 0.125, 1e-9);
}

}  // namespace
}  // namespace hptune::algorithms
