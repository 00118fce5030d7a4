#include "src/dashboard/thinning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace hptune::dashboard {
namespace {

using ::testing::ElementsAre;

TEST(EvenlySpreadTest, KeepsFirstAndLast) {
  EXPECT_THAT(EvenlySpread(3, 10), ElementsAre(0, 1, 2));
  EXPECT_THAT(EvenlySpread(11, 3), ElementsAre(0, 5, 10));
  EXPECT_TRUE(EvenlySpread(0, 3).empty());
}

TEST(ThinHistoryTest, KeepsEveryChangeOfTheBestAndTheExtremes) {
  std::vector<double> values, best;
  for (int i = 0; i < 10000; ++i) {
    values.push_back((i * 7919) % 1000);
    best.push_back(best.empty() ? values.back()
                                : std::max(best.back(), values.back()));
  }
  values[5000] = -50;  // The lowest, never the best.
  const std::vector<size_t> kept = ThinHistory(values, best, 500);
  EXPECT_LE(kept.size(), 520u);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  for (size_t i = 1; i < values.size(); ++i) {
    if (best[i] != best[i - 1]) {
      EXPECT_TRUE(std::binary_search(kept.begin(), kept.end(), i)) << i;
    }
  }
  EXPECT_TRUE(std::binary_search(kept.begin(), kept.end(), 5000u));
}

TEST(SampleBestAndSpreadTest, TheBestAreAlwaysKept) {
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i) values.push_back(i % 97);
  values[123] = 1000;
  values[456] = -1000;
  const std::vector<size_t> max = SampleBestAndSpread(values, true, 50);
  EXPECT_EQ(max.size(), 50u);
  EXPECT_TRUE(std::binary_search(max.begin(), max.end(), 123u));
  const std::vector<size_t> min = SampleBestAndSpread(values, false, 50);
  EXPECT_TRUE(std::binary_search(min.begin(), min.end(), 456u));
  EXPECT_EQ(SampleBestAndSpread(values, true, 5000).size(), 1000u);
}

}  // namespace
}  // namespace hptune::dashboard
