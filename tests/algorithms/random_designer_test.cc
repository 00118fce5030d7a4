#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/sampling/sampling_designer.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;

constexpr int kDraws = 10000;

// Critical values at significance 0.001. The tests are seeded, so they are
// deterministic; the level says how unlikely a pass would be by luck if the
// sampler were wrong, and that another seed would pass too.
//   Kolmogorov-Smirnov: sqrt(-ln(0.001 / 2) / 2) / sqrt(n).
const double kKsCritical = 1.9495 / std::sqrt(kDraws);
//   Chi-square upper 0.1% points by degrees of freedom.
const std::map<int, double> kChiSquareCritical = {
    {2, 13.816}, {3, 16.266}, {9, 27.877}};

SearchSpace StatisticsSpace() {
  return SearchSpace({DoubleParam("x", -2, 6),
                      DoubleParam("lr", 1e-4, 1, ScaleType::kLog),
                      DoubleParam("m", 0.5, 0.999, ScaleType::kReverseLog),
                      IntegerParam("k", 1, 10),
                      DiscreteParam("d", {1, 10, 100}, ScaleType::kLog),
                      CategoricalParam("c", {"a", "b", "c", "d"})});
}

std::unique_ptr<SamplingDesigner> MakeRandom(const SearchSpace& space,
                                             uint64_t seed) {
  auto designer = CreateRandomDesigner(space, seed);
  EXPECT_OK(designer);
  return designer.ok() ? *std::move(designer) : nullptr;
}

// Kolmogorov-Smirnov statistic of `u` against Uniform(0, 1).
double KsStatistic(std::vector<double> u) {
  std::sort(u.begin(), u.end());
  const double n = static_cast<double>(u.size());
  double d = 0;
  for (size_t i = 0; i < u.size(); ++i) {
    d = std::max({d, (i + 1) / n - u[i], u[i] - i / n});
  }
  return d;
}

// Pearson's chi-square statistic of counts against equal expected counts.
double ChiSquare(const std::map<std::string, int>& counts, int categories) {
  const double expected = static_cast<double>(kDraws) / categories;
  double chi = 0;
  for (const auto& [value, count] : counts) {
    chi += (count - expected) * (count - expected) / expected;
  }
  // Categories never drawn count fully.
  chi += (categories - static_cast<int>(counts.size())) * expected;
  return chi;
}

class RandomDesignerStatisticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto designer = MakeRandom(StatisticsSpace(), 20261121);
    ASSERT_NE(designer, nullptr);
    auto suggestions = designer->Suggest(kDraws);
    ASSERT_OK(suggestions);
    ASSERT_EQ(suggestions->size(), static_cast<size_t>(kDraws));
    suggestions_ = *std::move(suggestions);
  }

  std::vector<double> Values(const std::string& name) const {
    std::vector<double> values;
    for (const auto& s : suggestions_) {
      values.push_back(s.parameters.at(name).AsDouble());
    }
    return values;
  }

  std::map<std::string, int> Counts(const std::string& name) const {
    std::map<std::string, int> counts;
    for (const auto& s : suggestions_)
      ++counts[s.parameters.at(name).ToString()];
    return counts;
  }

  std::vector<Suggestion> suggestions_;
};

TEST_F(RandomDesignerStatisticsTest, LinearDoubleIsUniform) {
  std::vector<double> u;
  for (double x : Values("x")) u.push_back((x + 2) / 8);
  EXPECT_LT(KsStatistic(u), kKsCritical);
}

TEST_F(RandomDesignerStatisticsTest, LogDoubleIsLogUniform) {
  std::vector<double> lr = Values("lr");
  // Half below the geometric midpoint sqrt(1e-4 * 1) = 1e-2, within four
  // binomial standard deviations sqrt(1/4 / n) = 0.005.
  double below =
      std::count_if(lr.begin(), lr.end(), [](double x) { return x < 1e-2; });
  EXPECT_NEAR(below / kDraws, 0.5, 4 * std::sqrt(0.25 / kDraws));
  // Each of the four decades equally populated.
  std::map<std::string, int> decades;
  for (double x : lr) {
    ++decades[std::to_string(static_cast<int>(std::floor(std::log10(x))))];
  }
  EXPECT_EQ(decades.size(), 4u);
  EXPECT_LT(ChiSquare(decades, 4), kChiSquareCritical.at(3));
  // And log10(x) is uniform on [-4, 0].
  std::vector<double> u;
  for (double x : lr) u.push_back((std::log10(x) + 4) / 4);
  EXPECT_LT(KsStatistic(u), kKsCritical);
}

TEST_F(RandomDesignerStatisticsTest, ReverseLogDoubleIsLogUniformMirrored) {
  const double min = 0.5, max = 0.999;
  std::vector<double> m = Values("m");
  // max + min - x is log-uniform on [min, max].
  std::vector<double> u;
  for (double x : m) {
    u.push_back((std::log(max + min - x) - std::log(min)) /
                (std::log(max) - std::log(min)));
  }
  EXPECT_LT(KsStatistic(u), kKsCritical);
  double above = std::count_if(m.begin(), m.end(), [&](double x) {
    return x > max + min - std::sqrt(min * max);
  });
  EXPECT_NEAR(above / kDraws, 0.5, 4 * std::sqrt(0.25 / kDraws));
}

TEST_F(RandomDesignerStatisticsTest, IntegerValuesAreEquallyLikely) {
  std::map<std::string, int> counts = Counts("k");
  EXPECT_EQ(counts.size(), 10u);
  EXPECT_LT(ChiSquare(counts, 10), kChiSquareCritical.at(9));
}

TEST_F(RandomDesignerStatisticsTest, DiscreteValuesAreEquallyLikely) {
  std::map<std::string, int> counts = Counts("d");
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_LT(ChiSquare(counts, 3), kChiSquareCritical.at(2));
}

TEST_F(RandomDesignerStatisticsTest, CategoricalValuesAreEquallyLikely) {
  std::map<std::string, int> counts = Counts("c");
  EXPECT_EQ(counts.size(), 4u);
  EXPECT_LT(ChiSquare(counts, 4), kChiSquareCritical.at(3));
}

TEST_F(RandomDesignerStatisticsTest, EverySuggestionIsFeasible) {
  SearchSpace space = StatisticsSpace();
  for (const auto& s : suggestions_) {
    ASSERT_OK(space.CheckAssignment(s.parameters)) << s.origin;
  }
}

std::vector<ParameterAssignment> Points(
    const std::vector<Suggestion>& suggestions) {
  std::vector<ParameterAssignment> points;
  for (const auto& s : suggestions) points.push_back(s.parameters);
  return points;
}

TEST(RandomDesignerTest, SameSeedSameSuggestionsOtherSeedOthers) {
  auto a = MakeRandom(StatisticsSpace(), 5);
  auto b = MakeRandom(StatisticsSpace(), 5);
  auto c = MakeRandom(StatisticsSpace(), 6);
  auto from_a = Points(*a->Suggest(20));
  EXPECT_EQ(from_a, Points(*b->Suggest(20)));
  EXPECT_NE(from_a, Points(*c->Suggest(20)));
}

TEST(RandomDesignerTest, OriginsNameTheDrawThePointStartsAt) {
  auto designer = MakeRandom(StatisticsSpace(), 5);  // 6 draws a point.
  auto suggestions = *designer->Suggest(3);
  EXPECT_EQ(suggestions[0].origin, "random[0]");
  EXPECT_EQ(suggestions[1].origin, "random[6]");
  EXPECT_EQ(suggestions[2].origin, "random[12]");
  EXPECT_EQ(designer->SaveState(), "random:draws=18");
}

TEST(RandomDesignerTest, RestoredDesignerContinuesTheSameStream) {
  auto whole = MakeRandom(StatisticsSpace(), 77);
  auto all = Points(*whole->Suggest(12));

  auto first = MakeRandom(StatisticsSpace(), 77);
  auto head = Points(*first->Suggest(5));
  std::string state = first->SaveState();

  auto restored = MakeRandom(StatisticsSpace(), 77);
  ASSERT_OK(restored->RestoreState(state));
  auto tail = Points(*restored->Suggest(7));

  head.insert(head.end(), tail.begin(), tail.end());
  EXPECT_EQ(head, all);
}

TEST(RandomDesignerTest, RestoreRefusesAnotherDesignersState) {
  auto designer = MakeRandom(StatisticsSpace(), 1);
  absl::Status status = designer->RestoreState("grid:cursor=3");
  EXPECT_THAT(
      status,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "random designer: cannot restore state \"grid:cursor=3\": "
               "expected \"random:draws=<count>\""));
  EXPECT_OK(designer->RestoreState(""));
  EXPECT_EQ(designer->SaveState(), "random:draws=0");
}

TEST(RandomDesignerTest, NegativeCountIsAnError) {
  auto designer = MakeRandom(StatisticsSpace(), 1);
  EXPECT_THAT(designer->Suggest(-3),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
}

TEST(RandomDesignerTest, InvalidSpaceIsRefused) {
  auto designer = CreateRandomDesigner(
      SearchSpace({DoubleParam("lr", 0, 1, ScaleType::kLog)}), 1);
  EXPECT_THAT(designer, StatusHasCode(absl::StatusCode::kInvalidArgument));
}

// a in {1, 2} x b in {x, y, z}.
SearchSpace TwoByThree() {
  return SearchSpace(
      {IntegerParam("a", 1, 2), CategoricalParam("b", {"x", "y", "z"})});
}

TEST(RandomDesignerTest, TinySpaceGivesEachPointOnceThenIsExhausted) {
  auto designer = MakeRandom(TwoByThree(), 3);
  auto suggestions = *designer->Suggest(10);
  ASSERT_EQ(suggestions.size(), 6u);
  AssignmentSet distinct;
  std::vector<Trial> completed;
  for (const auto& s : suggestions) {
    EXPECT_TRUE(distinct.Insert(s.parameters));
    EXPECT_OK(TwoByThree().CheckAssignment(s.parameters));
    completed.push_back(TrialAt(s.parameters));
  }
  ASSERT_OK(designer->Update(completed, {}));
  EXPECT_TRUE(designer->Suggest(1)->empty());
}

TEST(RandomDesignerTest, NeverRepeatsCompletedOrPendingPointsOfAFiniteSpace) {
  auto grid = FiniteGrid::Create(TwoByThree());
  ASSERT_OK(grid);
  std::vector<Trial> completed = {TrialAt(grid->At(0)), TrialAt(grid->At(4))};
  std::vector<Trial> active = {TrialAt(grid->At(2), TrialState::kActive),
                               TrialAt(grid->At(5), TrialState::kRequested)};
  AssignmentSet used = AssignmentSet::FromTrials(completed, active);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto designer = MakeRandom(TwoByThree(), seed);
    ASSERT_OK(designer->Update(completed, active));
    auto suggestions = *designer->Suggest(5);
    ASSERT_EQ(suggestions.size(), 2u) << "seed " << seed;
    EXPECT_FALSE(used.Contains(suggestions[0].parameters));
    EXPECT_FALSE(used.Contains(suggestions[1].parameters));
    EXPECT_NE(suggestions[0].parameters, suggestions[1].parameters);
  }
}

TEST(RandomDesignerTest, NoDuplicatesInALargerFiniteSpaceNearlyFull) {
  // 200 points, 190 used: the last 10 come out, each once.
  SearchSpace space({IntegerParam("k", 1, 20),
                     DiscreteParam("d", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})});
  auto grid = FiniteGrid::Create(space);
  ASSERT_OK(grid);
  std::vector<Trial> completed;
  for (int64_t i = 0; i < grid->size(); ++i) {
    if (i % 20 != 7) completed.push_back(TrialAt(grid->At(i)));
  }
  ASSERT_EQ(completed.size(), 190u);
  auto designer = MakeRandom(space, 11);
  ASSERT_OK(designer->Update(completed, {}));
  auto suggestions = *designer->Suggest(50);
  ASSERT_EQ(suggestions.size(), 10u);
  AssignmentSet seen = AssignmentSet::FromTrials(completed, {});
  for (const auto& s : suggestions) EXPECT_TRUE(seen.Insert(s.parameters));
}

TEST(RandomDesignerTest, ContinuousSpaceSuggestionsDoNotRepeatHistory) {
  SearchSpace space({DoubleParam("x", 0, 1), CategoricalParam("c", {"a"})});
  auto first = MakeRandom(space, 8);
  auto history = *first->Suggest(50);
  std::vector<Trial> completed;
  for (const auto& s : history) completed.push_back(TrialAt(s.parameters));
  // A fresh designer with the same seed would draw the same points: the
  // history makes it skip them.
  auto again = MakeRandom(space, 8);
  ASSERT_OK(again->Update(completed, {}));
  auto next = *again->Suggest(50);
  ASSERT_EQ(next.size(), 50u);
  AssignmentSet used = AssignmentSet::FromTrials(completed, {});
  for (const auto& s : next) EXPECT_TRUE(used.Insert(s.parameters));
}

TEST(RandomDesignerTest, EmptySpaceHasOnePoint) {
  auto designer = MakeRandom(SearchSpace(), 1);
  auto suggestions = *designer->Suggest(3);
  ASSERT_EQ(suggestions.size(), 1u);
  EXPECT_TRUE(suggestions[0].parameters.empty());
}

}  // namespace
}  // namespace hptune::algorithms
