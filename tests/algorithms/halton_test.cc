#include "algorithms/quasi_random/halton.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "algorithms/common/splitmix64.h"
#include "tests/algorithms/star_discrepancy.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::StarDiscrepancy2d;

TEST(HaltonTest, FirstPrimes) {
  EXPECT_THAT(ScrambledHalton::FirstPrimes(10),
              ::testing::ElementsAre(2, 3, 5, 7, 11, 13, 17, 19, 23, 29));
  EXPECT_EQ(ScrambledHalton::FirstPrimes(1000).back(), 7919);
}

TEST(HaltonTest, UnscrambledIsTheRadicalInverse) {
  ScrambledHalton halton = ScrambledHalton::Unscrambled(2);
  const std::vector<std::array<double, 2>> expected = {{0, 0},
                                                       {1.0 / 2, 1.0 / 3},
                                                       {1.0 / 4, 2.0 / 3},
                                                       {3.0 / 4, 1.0 / 9},
                                                       {1.0 / 8, 4.0 / 9},
                                                       {5.0 / 8, 7.0 / 9}};
  for (uint64_t i = 0; i < expected.size(); ++i) {
    std::vector<double> point = halton.Point(i);
    EXPECT_NEAR(point[0], expected[i][0], 1e-15) << i;
    EXPECT_NEAR(point[1], expected[i][1], 1e-15) << i;
  }
}

TEST(HaltonTest, SameSeedSamePointsOtherSeedOtherPoints) {
  ScrambledHalton a(5, 17), b(5, 17), c(5, 18);
  for (uint64_t i : {0, 1, 7, 1000}) {
    EXPECT_EQ(a.Point(i), b.Point(i));
    EXPECT_NE(a.Point(i), c.Point(i));
  }
}

// The property scrambling must keep: in base b, the first b^m points put
// exactly one point in each interval [k b^-m, (k + 1) b^-m).
TEST(HaltonTest, ScrambledPointsStratifyEachCoordinate) {
  ScrambledHalton halton(3, 2024);
  const int bases[] = {2, 3, 5};
  const int exponents[] = {8, 5, 3};
  for (int j = 0; j < 3; ++j) {
    const int cells = static_cast<int>(std::pow(bases[j], exponents[j]));
    std::set<int> seen;
    for (int i = 0; i < cells; ++i) {
      double u = halton.Point(i)[j];
      ASSERT_GE(u, 0);
      ASSERT_LT(u, 1);
      seen.insert(static_cast<int>(std::floor(u * cells)));
    }
    EXPECT_EQ(static_cast<int>(seen.size()), cells) << "base " << bases[j];
  }
}

TEST(HaltonTest, CoordinatesStayBelowOneInHighDimensions) {
  ScrambledHalton halton(ScrambledHalton::kMaxDimension, 3);
  for (uint64_t i : {0ull, 1ull, 2ull, 123456ull, 1ull << 40}) {
    for (double u : halton.Point(i)) {
      ASSERT_GE(u, 0);
      ASSERT_LT(u, 1);
    }
  }
}

// Niederreiter (1992), Theorem 3.6: for the first N points of the Halton
// sequence in bases b_1..b_d,
//   D*_N < d / N + (1 / N) prod_j ((b_j - 1) / (2 ln b_j) ln N + (b_j + 1) /
//   2).
double HaltonBound(int n) {
  double product = 1;
  for (int b : {2, 3}) {
    product *= (b - 1) / (2 * std::log(b)) * std::log(n) + (b + 1) / 2.0;
  }
  return (2 + product) / n;
}

std::vector<std::array<double, 2>> HaltonPoints(const ScrambledHalton& halton,
                                                int n) {
  std::vector<std::array<double, 2>> points;
  for (int i = 0; i < n; ++i) {
    std::vector<double> p = halton.Point(i);
    points.push_back({p[0], p[1]});
  }
  return points;
}

TEST(HaltonTest, DiscrepancyIsWithinTheClassicalBound) {
  constexpr int kN = 256;
  const double bound = HaltonBound(kN);  // ~0.159
  EXPECT_LT(
      StarDiscrepancy2d(HaltonPoints(ScrambledHalton::Unscrambled(2), kN)),
      bound);
  for (uint64_t seed : {1, 2, 3}) {
    EXPECT_LT(StarDiscrepancy2d(HaltonPoints(ScrambledHalton(2, seed), kN)),
              bound)
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace hptune::algorithms
