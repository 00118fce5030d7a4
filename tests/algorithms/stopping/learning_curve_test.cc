#include "hptune/algorithms/learning_curve.h"

#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "gtest/gtest.h"
#include "tests/algorithms/stopping/curves.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::kMetric;

// Steps out of order and repeated (a restarted trainer), reports without the
// metric or with an infinite value, which a curve leaves out.
Trial RaggedTrial() {
  Trial trial = CurveTrial(
      7, TrialState::kActive,
      {{1, 0.5, 10}, {2, 0.25, 11}, {5, 0.75, 12}, {3, 0.125, 13}, {3, 1, 14}});
  trial.measurements.insert(trial.measurements.begin() + 2,
                            {.step = 4, .metrics = {{"loss", 2}}});
  trial.measurements.push_back(
      {.step = 9,
       .metrics = {{kMetric, std::numeric_limits<double>::infinity()}}});
  trial.measurements.push_back({.step = 8,
                                .time = FromUnixMicros(15'000'000),
                                .metrics = {{kMetric, 0}}});
  return trial;
}

void ExpectSameCurve(const LearningCurve& got, const LearningCurve& want) {
  EXPECT_EQ(got.trial(), want.trial());
  ASSERT_EQ(got.points().size(), want.points().size());
  for (size_t i = 0; i < got.points().size(); ++i) {
    EXPECT_EQ(got.points()[i].step, want.points()[i].step) << i;
    EXPECT_EQ(got.points()[i].value, want.points()[i].value) << i;
    EXPECT_EQ(got.points()[i].time, want.points()[i].time) << i;
  }
  EXPECT_EQ(got.max_step(), want.max_step());
  EXPECT_EQ(got.Best(Goal::kMaximize), want.Best(Goal::kMaximize));
  EXPECT_EQ(got.Best(Goal::kMinimize), want.Best(Goal::kMinimize));
  for (int64_t step = 0; step <= 10; ++step) {
    EXPECT_EQ(got.MeanUpTo(step), want.MeanUpTo(step)) << step;
    EXPECT_EQ(got.ValueAtOrBefore(step), want.ValueAtOrBefore(step)) << step;
    EXPECT_EQ(got.ReachedAt(step), want.ReachedAt(step)) << step;
  }
}

TEST(LearningCurveTest, KeepsFiniteValuesOfTheMetricInReportOrder) {
  const LearningCurve curve(RaggedTrial(), kMetric);
  ASSERT_EQ(curve.points().size(), 6u);
  EXPECT_EQ(curve.points()[3].step, 3);
  EXPECT_EQ(curve.points()[3].value, 0.125);
  EXPECT_EQ(curve.points()[5].step, 8);
  EXPECT_EQ(curve.max_step(), 8);
  EXPECT_EQ(curve.Best(Goal::kMaximize), 1);
  EXPECT_EQ(curve.Best(Goal::kMinimize), 0);
  EXPECT_EQ(curve.ValueAtOrBefore(3), 1);  // The later report of step 3.
  EXPECT_EQ(curve.MeanUpTo(2), 0.375);
}

TEST(LearningCurveTest, ExtendingPieceByPieceEqualsReadingTheWholeCurve) {
  const Trial trial = RaggedTrial();
  const LearningCurve whole(trial, kMetric);
  const std::span<const Measurement> all = trial.measurements;
  // Every split into two pieces, and one piece per measurement.
  for (size_t split = 0; split <= all.size(); ++split) {
    LearningCurve pieces(trial.number);
    pieces.Extend(all.first(split), kMetric);
    pieces.Extend(all.subspan(split), kMetric);
    ExpectSameCurve(pieces, whole);
  }
  LearningCurve one_by_one(trial.number);
  for (size_t i = 0; i < all.size(); ++i) {
    one_by_one.Extend(all.subspan(i, 1), kMetric);
  }
  ExpectSameCurve(one_by_one, whole);
}

TEST(LearningCurveTest, AnEmptyCurveHasNoBestAndNoValues) {
  LearningCurve curve(3);
  curve.Extend({}, kMetric);
  EXPECT_TRUE(curve.empty());
  EXPECT_EQ(curve.max_step(), 0);
  EXPECT_EQ(curve.Best(Goal::kMaximize), std::nullopt);
  EXPECT_EQ(curve.MeanUpTo(100), std::nullopt);
  EXPECT_EQ(curve.ValueAtOrBefore(100), std::nullopt);
}

TEST(LearningCurveTest, ANonFiniteValueMarksTheAttemptDiverged) {
  EXPECT_TRUE(LearningCurve(RaggedTrial(), kMetric).diverged());
  Trial trial = CurveTrial(7, TrialState::kActive, {{1, 0.5}});
  EXPECT_FALSE(LearningCurve(trial, kMetric).diverged());
  trial.measurements.push_back(
      {.step = 2,
       .metrics = {{kMetric, std::numeric_limits<double>::quiet_NaN()}}});
  LearningCurve nan(trial, kMetric);
  EXPECT_TRUE(nan.diverged());
  EXPECT_EQ(nan.points().size(), 1u);
  // A re-run starts undiverged.
  trial.measurements.push_back(
      {.step = 1, .metrics = {{kMetric, 0.4}}, .attempt = 1});
  EXPECT_FALSE(LearningCurve(trial, kMetric).diverged());
}

TEST(LearningCurveTest, IsTheCurveOfTheTrialsLastAttempt) {
  Trial trial;
  trial.number = 7;
  trial.measurements = {{.step = 1, .metrics = {{kMetric, 0.9}}, .attempt = 1},
                        {.step = 2, .metrics = {{kMetric, 0.95}}, .attempt = 1},
                        {.step = 1, .metrics = {{kMetric, 0.1}}, .attempt = 2}};
  LearningCurve whole(trial, kMetric);
  ASSERT_EQ(whole.points().size(), 1u);
  EXPECT_EQ(whole.points()[0].value, 0.1);
  EXPECT_EQ(whole.max_step(), 1);
  EXPECT_EQ(whole.Best(Goal::kMaximize), 0.1);
  // The same when the re-run's reports arrive in a later read.
  LearningCurve extended(7);
  extended.Extend(std::span(trial.measurements).first(2), kMetric);
  EXPECT_EQ(extended.Best(Goal::kMaximize), 0.95);
  extended.Extend(std::span(trial.measurements).subspan(2), kMetric);
  ExpectSameCurve(extended, whole);
}

}  // namespace
}  // namespace hptune::algorithms
