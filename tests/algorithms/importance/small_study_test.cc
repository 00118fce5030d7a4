// Parameter importance on small studies: the floor on the top set
// (ped_anova.h), the bootstrap intervals (bootstrap.h) and the note when
// there are too few trials to rank.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "algorithms/importance/bootstrap.h"
#include "algorithms/importance/ped_anova.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kMetric[] = "loss";

StudySpec ThreeParameters() {
  StudySpec spec;
  spec.search_space =
      SearchSpace({DoubleParam("x1", 0, 1), DoubleParam("x2", 0, 1),
                   DoubleParam("x3", 0, 1)});
  spec.SetSingleMetric(kMetric, Goal::kMinimize);
  return spec;
}

// `count` random-search trials of 10 (x1 - 0.7)^2 + 0.5 (x2 - 0.2)^2, where
// x3 has no effect at all (issue 66's study).
std::vector<Trial> RandomSearch(int count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<Trial> trials;
  for (int i = 0; i < count; ++i) {
    const double x1 = uniform(random), x2 = uniform(random),
                 x3 = uniform(random);
    Trial trial = TrialAt({{"x1", ParameterValue::Double(x1)},
                           {"x2", ParameterValue::Double(x2)},
                           {"x3", ParameterValue::Double(x3)}},
                          TrialState::kSucceeded);
    const double loss =
        10 * (x1 - 0.7) * (x1 - 0.7) + 0.5 * (x2 - 0.2) * (x2 - 0.2);
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{kMetric, loss}}};
    trial.number = i + 1;
    trials.push_back(std::move(trial));
  }
  return trials;
}

const ParameterImportance& Entry(const ImportanceReport& report,
                                 const std::string& name) {
  for (const auto& entry : report.importances) {
    if (entry.parameter == name) return entry;
  }
  ADD_FAILURE() << "no parameter " << name;
  static const ParameterImportance kNone;
  return kNone;
}

// Seeds in [1, last] where the zero-effect x3 ranks above x1, which
// explains 99.5% of the variance, on 30 trials.
std::vector<uint32_t> SeedsWhereX3OutranksX1(uint32_t last,
                                             const ImportanceOptions& options) {
  std::vector<uint32_t> seeds;
  for (uint32_t seed = 1; seed <= last; ++seed) {
    auto report = PedAnovaImportanceReport(ThreeParameters(),
                                           RandomSearch(30, seed), options);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) continue;
    if (Entry(*report, "x3").importance >= Entry(*report, "x1").importance) {
      seeds.push_back(seed);
    }
  }
  return seeds;
}

TEST(SmallStudyTest, ZeroEffectParameterNeverOutranksTheOneThatDecides) {
  // Issue 66's target: 30 trials, 20 seeds, the default options.
  EXPECT_THAT(SeedsWhereX3OutranksX1(20, {}), ::testing::IsEmpty());
}

TEST(SmallStudyTest, OptunasFloorOfTwoMisranksWhereTheDefaultDoesNot) {
  // With a top set of 3 of 30 trials x3 outranks x1 on some seeds, as issue
  // 66 saw (23 of 1000 seeds; the floor of 15: none); the point estimates
  // only, so no resamples.
  EXPECT_THAT(SeedsWhereX3OutranksX1(
                  300, {.min_top_trials = 2, .bootstrap_resamples = 0}),
              ::testing::Not(::testing::IsEmpty()));
  EXPECT_THAT(SeedsWhereX3OutranksX1(300, {.bootstrap_resamples = 0}),
              ::testing::IsEmpty());
}

TEST(SmallStudyTest, TopSetHasTheFloorCappedAtHalfTheTrials) {
  const StudySpec spec = ThreeParameters();
  for (auto [count, top] : {std::pair{30, 15}, {12, 6}, {5, 3}, {200, 20}}) {
    ASSERT_OK_AND_ASSIGN(
        auto report, PedAnovaImportanceReport(spec, RandomSearch(count, 3)));
    EXPECT_EQ(report.top_trials, top) << count << " trials";
  }
}

TEST(SmallStudyTest, EveryIntervalHoldsItsEstimate) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    for (int count : {5, 30, 200}) {
      ASSERT_OK_AND_ASSIGN(auto report,
                           PedAnovaImportanceReport(ThreeParameters(),
                                                    RandomSearch(count, seed)));
      EXPECT_EQ(report.bootstrap_resamples, 200);
      for (const auto& entry : report.importances) {
        EXPECT_LE(entry.lower, entry.importance) << entry.parameter;
        EXPECT_GE(entry.upper, entry.importance) << entry.parameter;
        EXPECT_GE(entry.lower, 0.0) << entry.parameter;
        EXPECT_LE(entry.upper, 1.0) << entry.parameter;
      }
    }
  }
}

TEST(SmallStudyTest, IntervalsAreWideOnFewTrialsAndNarrowOnMany) {
  ASSERT_OK_AND_ASSIGN(auto few, PedAnovaImportanceReport(ThreeParameters(),
                                                          RandomSearch(30, 1)));
  ASSERT_OK_AND_ASSIGN(
      auto many,
      PedAnovaImportanceReport(ThreeParameters(), RandomSearch(2000, 1)));
  const auto width = [](const ParameterImportance& e) {
    return e.upper - e.lower;
  };
  EXPECT_GT(width(Entry(few, "x1")), 0.02);
  EXPECT_LT(width(Entry(many, "x1")), width(Entry(few, "x1")));
  // With many trials x1's whole interval lies above x3's.
  EXPECT_GT(Entry(many, "x1").lower, Entry(many, "x3").upper);
}

TEST(SmallStudyTest, IntervalsAreReproducibleAndFollowTheSeed) {
  const std::vector<Trial> trials = RandomSearch(30, 4);
  ASSERT_OK_AND_ASSIGN(auto a,
                       PedAnovaImportanceReport(ThreeParameters(), trials));
  ASSERT_OK_AND_ASSIGN(auto b,
                       PedAnovaImportanceReport(ThreeParameters(), trials));
  ASSERT_OK_AND_ASSIGN(auto other,
                       PedAnovaImportanceReport(ThreeParameters(), trials,
                                                {.bootstrap_seed = 2}));
  bool differs = false;
  for (size_t i = 0; i < a.importances.size(); ++i) {
    EXPECT_EQ(a.importances[i].lower, b.importances[i].lower);
    EXPECT_EQ(a.importances[i].upper, b.importances[i].upper);
    differs |= a.importances[i].upper != other.importances[i].upper;
  }
  EXPECT_TRUE(differs);
}

TEST(SmallStudyTest, NoResamplesGiveTheEstimateAsTheInterval) {
  ASSERT_OK_AND_ASSIGN(auto report, PedAnovaImportanceReport(
                                        ThreeParameters(), RandomSearch(30, 1),
                                        {.bootstrap_resamples = 0}));
  EXPECT_EQ(report.bootstrap_resamples, 0);
  for (const auto& entry : report.importances) {
    EXPECT_EQ(entry.lower, entry.importance);
    EXPECT_EQ(entry.upper, entry.importance);
  }
}

TEST(SmallStudyTest, BadResampleCountIsRefusedNamingTheField) {
  for (int resamples : {-1, kMaxBootstrapResamples + 1}) {
    EXPECT_THAT(
        PedAnovaImportanceReport(ThreeParameters(), {},
                                 {.bootstrap_resamples = resamples}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr("ImportanceOptions.bootstrap_resamples"),
                       HasSubstr(std::to_string(resamples)))));
  }
}

TEST(SmallStudyTest, TooFewTrialsToRankSaySoWithBothCounts) {
  ASSERT_OK_AND_ASSIGN(auto few, PedAnovaImportanceReport(ThreeParameters(),
                                                          RandomSearch(12, 1)));
  EXPECT_EQ(few.trials_needed, 30);
  EXPECT_THAT(few.note, AllOf(HasSubstr("Too few trials to rank"),
                              HasSubstr(" 12 "), HasSubstr(" 30 ")));
  ASSERT_OK_AND_ASSIGN(auto none,
                       PedAnovaImportanceReport(ThreeParameters(), {}));
  EXPECT_THAT(none.note, HasSubstr(" 0 "));
  ASSERT_OK_AND_ASSIGN(
      auto enough,
      PedAnovaImportanceReport(ThreeParameters(), RandomSearch(30, 1)));
  EXPECT_EQ(enough.note, "");
  ASSERT_OK_AND_ASSIGN(
      auto own_floor,
      PedAnovaImportanceReport(ThreeParameters(), RandomSearch(12, 1),
                               {.min_top_trials = 5}));
  EXPECT_EQ(own_floor.trials_needed, 10);
  EXPECT_EQ(own_floor.note, "");
}

TEST(ResampleCountTest, LargeStudiesGetFewerResamplesDownTo25) {
  const ImportanceOptions options;
  EXPECT_EQ(ResampleCount(30, options), 200);
  EXPECT_EQ(ResampleCount(10'000, options), 200);
  EXPECT_EQ(ResampleCount(40'000, options), 50);
  EXPECT_EQ(ResampleCount(100'000, options), 25);
  EXPECT_EQ(ResampleCount(1'000'000, options), 25);
  EXPECT_EQ(ResampleCount(1'000'000, {.bootstrap_resamples = 10}), 10);
  EXPECT_EQ(ResampleCount(30, {.bootstrap_resamples = 0}), 0);
}

TEST(PercentileTest, InterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(Percentile({3, 1, 2, 4}, 0.0), 1);
  EXPECT_DOUBLE_EQ(Percentile({3, 1, 2, 4}, 1.0), 4);
  EXPECT_DOUBLE_EQ(Percentile({3, 1, 2, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({0, 10}, 0.05), 0.5);
  EXPECT_DOUBLE_EQ(Percentile({7}, 0.95), 7);
}

}  // namespace
}  // namespace hptune::algorithms
