#include "src/dashboard/edf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "src/dashboard/view_routes.h"

namespace hptune::dashboard {
namespace {

std::vector<std::pair<double, double>> Pairs(const Edf& edf) {
  std::vector<std::pair<double, double>> out;
  for (const EdfPoint& p : edf.points) out.emplace_back(p.value, p.fraction);
  return out;
}

using Pair = std::pair<double, double>;
using ::testing::ElementsAre;

TEST(EmpiricalDistributionTest, MinimizeCountsValuesAtOrBelow) {
  const Edf edf = EmpiricalDistribution({3, 1, 2, 2}, false, 100);
  EXPECT_EQ(edf.total, 4u);
  EXPECT_EQ(edf.distinct, 3u);
  EXPECT_THAT(Pairs(edf),
              ElementsAre(Pair(1, 0.25), Pair(2, 0.75), Pair(3, 1.0)));
}

TEST(EmpiricalDistributionTest, MaximizeCountsValuesAtOrAbove) {
  const Edf edf = EmpiricalDistribution({3, 1, 2, 2}, true, 100);
  EXPECT_THAT(Pairs(edf),
              ElementsAre(Pair(1, 1.0), Pair(2, 0.75), Pair(3, 0.25)));
}

TEST(EmpiricalDistributionTest, LeavesOutValuesThatAreNotFinite) {
  const double inf = std::numeric_limits<double>::infinity();
  const Edf edf = EmpiricalDistribution({inf, 5, std::nan("")}, false, 100);
  EXPECT_EQ(edf.total, 1u);
  EXPECT_THAT(Pairs(edf), ElementsAre(Pair(5, 1.0)));
  EXPECT_TRUE(EmpiricalDistribution({}, false, 100).points.empty());
}

TEST(EmpiricalDistributionTest, ThinsToExactPointsKeepingTheEnds) {
  std::vector<double> values;
  for (int i = 0; i < 10000; ++i) values.push_back(i);
  const Edf edf = EmpiricalDistribution(values, false, 101);
  ASSERT_EQ(edf.points.size(), 101u);
  EXPECT_EQ(edf.distinct, 10000u);
  EXPECT_EQ(edf.points.front().value, 0);
  EXPECT_EQ(edf.points.back().value, 9999);
  for (const EdfPoint& p : edf.points) {
    EXPECT_DOUBLE_EQ(p.fraction, (p.value + 1) / 10000.0);
  }
}

TEST(ParseComparedStudiesTest, AcceptsDistinctNamesUpToTheLimit) {
  auto names = ParseComparedStudies({{"studies", "a,b,c"}});
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("a", "b", "c"));
}

TEST(ParseComparedStudiesTest, ErrorsNameTheParameterAndTheValue) {
  EXPECT_THAT(ParseComparedStudies({}).status().message(),
              ::testing::HasSubstr("studies"));
  EXPECT_EQ(ParseComparedStudies({{"studies", "a,b,c,d,e,f,g,h,i"}})
                .status()
                .message(),
            "studies \"a,b,c,d,e,f,g,h,i\": at most 8 studies, got 9");
  EXPECT_EQ(ParseComparedStudies({{"studies", "a,,b"}}).status().message(),
            "studies \"a,,b\": a study name has 1 to 128 bytes");
  EXPECT_EQ(ParseComparedStudies({{"studies", "a,b,a"}}).status().message(),
            "studies \"a,b,a\": \"a\" is named twice");
}

}  // namespace
}  // namespace hptune::dashboard
