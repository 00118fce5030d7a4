#include "hptune/core/study.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "hptune/core/measurement.h"
#include "hptune/core/time.h"

namespace hptune {
namespace {

Trial Finished(int64_t number, double value,
               TrialState state = TrialState::kSucceeded) {
  Trial t;
  t.number = number;
  t.state = state;
  t.final_measurement =
      Measurement{.step = 1, .time = {}, .metrics = {{"m", value}}};
  return t;
}

TEST(StudySpecTest, EffectiveMaxFailedTrialsFollowsTheDocumentedRule) {
  StudySpec spec;
  spec.max_trials = 1;
  EXPECT_EQ(spec.EffectiveMaxFailedTrials(), 1);  // capped at maxTrials
  spec.max_trials = 10;
  EXPECT_EQ(spec.EffectiveMaxFailedTrials(), 3);  // at least 3
  spec.max_trials = 30;
  EXPECT_EQ(spec.EffectiveMaxFailedTrials(), 8);  // a quarter, rounded up
  spec.max_failed_trials = 2;
  EXPECT_EQ(spec.EffectiveMaxFailedTrials(), 2);  // explicit wins
  // No overflow before validation refuses it (it was -536870912).
  spec.max_failed_trials = 0;
  spec.max_trials = 2147483647;
  EXPECT_EQ(spec.EffectiveMaxFailedTrials(), 536870912);
}

// A study's metrics are one list; its primary metric, the tag and goal
// early stopping and BestTrial read, is a view of the list's first
// objective, and the list keeps the form it was set in.
TEST(ProblemTest, MetricTagAndGoalAreViewsOfTheFirstObjective) {
  Problem problem;
  EXPECT_EQ(problem.metric_tag(), kDefaultMetricTag);
  EXPECT_EQ(problem.goal(), Goal::kMaximize);
  EXPECT_EQ(problem.AllMetrics().size(), 1u);
  EXPECT_FALSE(problem.metrics_listed());

  problem.SetMetrics(
      {{.id = "ms", .goal = Goal::kMinimize, .safety_threshold = 50},
       {.id = "loss", .goal = Goal::kMinimize},
       {.id = "acc", .goal = Goal::kMaximize}});
  EXPECT_TRUE(problem.metrics_listed());
  EXPECT_EQ(problem.metric_tag(), "loss");
  EXPECT_EQ(problem.goal(), Goal::kMinimize);
  EXPECT_TRUE(problem.IsBetter(1.0, 2.0));
  EXPECT_EQ(problem.Objectives().size(), 2u);
  EXPECT_EQ(problem.Constraints().front().id, "ms");

  problem.SetMetrics({{.id = "acc", .goal = Goal::kMaximize}});
  EXPECT_TRUE(problem.metrics_listed()) << "a list of one is still a list";
  EXPECT_EQ(problem.metric_tag(), "acc");

  problem.SetSingleMetric("loss", Goal::kMinimize);
  EXPECT_FALSE(problem.metrics_listed());
  EXPECT_EQ(problem.AllMetrics(),
            (std::vector<MetricSpec>{{.id = "loss", .goal = Goal::kMinimize}}));
  EXPECT_EQ(problem.goal(), Goal::kMinimize);
}

TEST(BestTrialTest, FollowsTheGoalAndIgnoresUnfinishedTrials) {
  StudySpec spec;
  std::vector<Trial> trials = {Finished(1, 0.5), Finished(2, 0.9),
                               Finished(3, 0.1),
                               Finished(4, 5.0, TrialState::kFailed)};
  spec.SetSingleMetric("m", Goal::kMaximize);
  EXPECT_EQ(BestTrial(spec, trials)->number, 2);
  spec.SetSingleMetric("m", Goal::kMinimize);
  EXPECT_EQ(BestTrial(spec, trials)->number, 3);
}

TEST(BestTrialTest, EarlierTrialWinsTiesAndNoneWithoutResults) {
  StudySpec spec;
  spec.SetSingleMetric("m");
  EXPECT_EQ(BestTrial(spec, {Finished(1, 0.5), Finished(2, 0.5)})->number, 1);
  Trial no_metric;
  no_metric.state = TrialState::kSucceeded;
  EXPECT_EQ(BestTrial(spec, {no_metric}), std::nullopt);
}

TEST(MeasurementTest, RejectsNonFiniteValuesNamingTheMetric) {
  Measurement m{.step = 3, .time = {}, .metrics = {{"loss", std::nan("")}}};
  EXPECT_EQ(ValidateMeasurement(m).message(),
            "metric \"loss\" at step 3 must be a finite number, got nan");
  m.metrics = {{"loss", std::numeric_limits<double>::infinity()}};
  EXPECT_EQ(ValidateMeasurement(m).message(),
            "metric \"loss\" at step 3 must be a finite number, got inf");
  m.metrics = {{"loss", 1.0}};
  m.step = -1;
  EXPECT_EQ(ValidateMeasurement(m).message(),
            "measurement step must be >= 0, got -1");
}

TEST(TimeTest, FormatsRfc3339InUtcWithMicroseconds) {
  EXPECT_EQ(FormatRfc3339(FromUnixMicros(1'525'851'440'123'456)),
            "2018-05-09T07:37:20.123456Z");
  EXPECT_EQ(FormatRfc3339(FromUnixMicros(-1)), "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace hptune
