#include "algorithms/multiobjective/pareto.h"

#include <cmath>
#include <limits>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Points = std::vector<std::vector<double>>;

// The hypervolume by inclusion-exclusion over every non-empty subset S:
// sum (-1)^(|S|+1) prod_d (min_{p in S} p_d - r_d). Exponential, so only
// for a few points, but independent of the slicing under test.
double InclusionExclusion(const Points& points, const std::vector<double>& r) {
  double total = 0;
  const size_t n = points.size();
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    double volume = 1;
    for (size_t d = 0; d < r.size(); ++d) {
      double low = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < n; ++i) {
        if (mask & (1u << i)) low = std::min(low, points[i][d]);
      }
      volume *= std::max(0.0, low - r[d]);
    }
    total += (__builtin_popcount(mask) % 2 == 1) ? volume : -volume;
  }
  return total;
}

TEST(DominatesTest, BetterSomewhereAndWorseNowhere) {
  EXPECT_TRUE(Dominates({2, 2}, {1, 2}));
  EXPECT_FALSE(Dominates({1, 2}, {2, 2}));
  EXPECT_FALSE(Dominates({2, 2}, {2, 2}));  // Equal points do not.
  EXPECT_FALSE(Dominates({3, 1}, {1, 3}));
  EXPECT_FALSE(Dominates({NAN, 5}, {1, 1}));
}

TEST(ParetoFrontTest, KeepsTheNonDominatedAndEveryDuplicateOfThem) {
  const Points points = {{1, 3}, {2, 2}, {3, 1}, {1, 1}, {2, 2}, {0, 3}};
  EXPECT_THAT(ParetoFront(points), IsOkAndHolds(ElementsAre(0, 1, 2, 4)));
}

TEST(ParetoFrontTest, ThreeObjectivesWithTies) {
  const Points points = {{1, 1, 1}, {1, 1, 0}, {0, 2, 1}, {1, 0, 2}};
  // {1,1,0} is dominated by {1,1,1}; the others trade off.
  EXPECT_THAT(ParetoFront(points), IsOkAndHolds(ElementsAre(0, 2, 3)));
}

TEST(ParetoFrontTest, APointWithNanIsNeverOnIt) {
  EXPECT_THAT(ParetoFront({{NAN, 9}, {1, 1}}), IsOkAndHolds(ElementsAre(1)));
  EXPECT_THAT(ParetoFront({}), IsOkAndHolds(ElementsAre()));
}

TEST(ParetoFrontTest, PointsOfDifferentSizesAreRefusedNamingThePoint) {
  EXPECT_THAT(ParetoFront({{1, 2}, {1, 2, 3}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("point 1 has 3 objectives")));
}

// The front against the definition, pair by pair, on random sets with
// many ties (values on a coarse grid) and 2 to 4 objectives.
TEST(ParetoFrontTest, AgreesWithTheDefinitionOnRandomSets) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> grid(0, 4);
  for (int trial = 0; trial < 200; ++trial) {
    const int k = 2 + trial % 3;
    Points points(1 + trial % 40, std::vector<double>(k));
    for (auto& p : points) {
      for (double& v : p) v = grid(rng);
    }
    std::vector<size_t> expected;
    for (size_t i = 0; i < points.size(); ++i) {
      bool dominated = false;
      for (const auto& q : points)
        dominated = dominated || Dominates(q, points[i]);
      if (!dominated) expected.push_back(i);
    }
    EXPECT_THAT(ParetoFront(points), IsOkAndHolds(expected)) << "set " << trial;
  }
}

TEST(HypervolumeTest, TwoObjectivesByHand) {
  // A staircase: 1 x 1 + 2 x 1 + 3 x 1.
  EXPECT_THAT(Hypervolume({{1, 3}, {2, 2}, {3, 1}}, {0, 0}),
              IsOkAndHolds(DoubleNear(6, 1e-12)));
  // Dominated points and duplicates add nothing.
  EXPECT_THAT(Hypervolume({{1, 3}, {2, 2}, {3, 1}, {1, 1}, {2, 2}}, {0, 0}),
              IsOkAndHolds(DoubleNear(6, 1e-12)));
  // A reference below zero; a point not beyond it in every objective.
  EXPECT_THAT(Hypervolume({{0, 0}, {5, -2}}, {-1, -1}),
              IsOkAndHolds(DoubleNear(1, 1e-12)));
  EXPECT_THAT(Hypervolume({}, {0, 0}), IsOkAndHolds(0.0));
}

TEST(HypervolumeTest, ThreeObjectivesByHand) {
  EXPECT_THAT(Hypervolume({{1, 2, 3}}, {0, 0, 0}),
              IsOkAndHolds(DoubleNear(6, 1e-12)));
  // 2 + 2 - the shared 1 x 1 x 1.
  EXPECT_THAT(Hypervolume({{2, 1, 1}, {1, 2, 1}}, {0, 0, 0}),
              IsOkAndHolds(DoubleNear(3, 1e-12)));
  // 2 + 4 - the shared 1 x 1 x 1; ties in the last objective.
  EXPECT_THAT(Hypervolume({{1, 1, 2}, {2, 2, 1}, {2, 2, 1}}, {0, 0, 0}),
              IsOkAndHolds(DoubleNear(5, 1e-12)));
}

TEST(HypervolumeTest, AgreesWithInclusionExclusionOnRandomSets) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::uniform_int_distribution<int> level(0, 3);  // Ties, often.
  for (size_t k : {2u, 3u, 4u}) {
    for (int trial = 0; trial < 50; ++trial) {
      Points points(1 + trial % 8, std::vector<double>(k));
      for (auto& p : points) {
        for (double& v : p) v = trial % 2 ? uniform(random) : level(random);
      }
      const std::vector<double> reference(k, -0.5);
      ASSERT_OK_AND_ASSIGN(double volume, Hypervolume(points, reference));
      EXPECT_NEAR(volume, InclusionExclusion(points, reference), 1e-9)
          << k << " objectives, set " << trial;
    }
  }
}

TEST(HypervolumeTest, BadInputIsRefusedNamingIt) {
  EXPECT_THAT(Hypervolume({{1, 2, 3}}, {0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("point 0 has 3 objectives")));
  EXPECT_THAT(Hypervolume({{1, NAN}}, {0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("point 0: objective 1 is nan")));
  EXPECT_THAT(Hypervolume({}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reference: 0 objectives")));
  EXPECT_THAT(Hypervolume({}, {0, INFINITY}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reference: inf is not finite")));
}

}  // namespace
}  // namespace hptune::algorithms
