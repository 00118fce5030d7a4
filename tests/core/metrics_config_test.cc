// A study of several metrics (Vertex AI's `metrics` list): parsing, every
// validation rule with its field and value, and the canonical round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/study.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Config(std::string_view fields) {
  return "trainingInput:\n  hyperparameters:\n" + std::string(fields) +
         "    params:\n"
         "    - {parameterName: lr, type: DOUBLE, minValue: 0.1, "
         "maxValue: 1}\n";
}

std::vector<std::string> Errors(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto);
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors) {
    lines.push_back(error.ToString());
  }
  return lines;
}

constexpr char kTwoMetrics[] =
    "    metrics:\n"
    "    - {metricId: accuracy, goal: MAXIMIZE}\n"
    "    - {metricId: latency_ms, goal: MINIMIZE, safetyThreshold: 50,\n"
    "       desiredMinSafeTrialsFraction: 0.8}\n";

TEST(MetricsConfigTest, AListOfMetricsParsesWithTheFirstObjectivePrimary) {
  ConfigParseResult result = ParseJobConfig(Config(kTwoMetrics));
  ASSERT_THAT(result.errors, IsEmpty());
  const StudySpec& spec = *result.job->study;
  ASSERT_EQ(spec.AllMetrics().size(), 2u);
  EXPECT_EQ(spec.AllMetrics()[0],
            (MetricSpec{.id = "accuracy", .goal = Goal::kMaximize}));
  EXPECT_EQ(spec.AllMetrics()[1],
            (MetricSpec{.id = "latency_ms",
                        .goal = Goal::kMinimize,
                        .safety_threshold = 50,
                        .desired_min_safe_trials_fraction = 0.8}));
  EXPECT_EQ(spec.metric_tag(), "accuracy");
  EXPECT_EQ(spec.goal(), Goal::kMaximize);
  EXPECT_EQ(spec.Objectives().size(), 1u);
  EXPECT_EQ(spec.Constraints().size(), 1u);
}

TEST(MetricsConfigTest, TheCanonicalJsonParsesBackToTheSameStudy) {
  ConfigParseResult first = ParseJobConfig(Config(kTwoMetrics));
  ASSERT_THAT(first.errors, IsEmpty());
  const std::string json = TrainingInputToJson(*first.job);
  EXPECT_THAT(json, ::testing::HasSubstr("\"metrics\""));
  EXPECT_THAT(json,
              ::testing::Not(::testing::HasSubstr("hyperparameterMetricTag")));
  ConfigParseResult back = ParseJobConfig(json, ConfigFormat::kJson);
  ASSERT_THAT(back.errors, IsEmpty()) << json;
  EXPECT_EQ(*back.job->study, *first.job->study);
}

TEST(MetricsConfigTest, TheSingleMetricFormCannotBeGivenToo) {
  EXPECT_THAT(
      Errors(Config(std::string("    hyperparameterMetricTag: loss\n"
                                "    goal: MINIMIZE\n") +
                    kTwoMetrics)),
      ElementsAre("trainingInput.hyperparameters."
                  "hyperparameterMetricTag: not allowed with metrics (give "
                  "each metric's goal in its entry; the first objective is "
                  "the primary metric)",
                  "trainingInput.hyperparameters.goal: not allowed "
                  "with metrics (give each metric's goal in its entry; the "
                  "first objective is the primary metric)"));
}

TEST(MetricsConfigTest, EveryRuleNamesTheFieldAndTheValue) {
  EXPECT_THAT(
      Errors(Config("    metrics:\n"
                    "    - {metricId: a, goal: MAXIMIZE}\n"
                    "    - {metricId: a, goal: MINIMIZE}\n"
                    "    - {metricId: 'b c', goal: MINIMIZE}\n"
                    "    - {metricId: d, goal: UP}\n"
                    "    - {metricId: e}\n"
                    "    - {goal: MINIMIZE}\n"
                    "    - {metricId: f, goal: MINIMIZE, "
                    "desiredMinSafeTrialsFraction: 0.5}\n"
                    "    - {metricId: g, goal: MINIMIZE, safetyThreshold: 1, "
                    "desiredMinSafeTrialsFraction: 1.5}\n"
                    "    - {id: h, goal: MINIMIZE}\n")),
      ElementsAre(
          "trainingInput.hyperparameters.metrics: must have at most "
          "8 metrics, got 9",
          "trainingInput.hyperparameters.metrics: must have at most 4 "
          "objectives (metrics without safetyThreshold), got 8",
          "trainingInput.hyperparameters.metrics[1].metricId: "
          "duplicate metric \"a\" (also "
          "trainingInput.hyperparameters.metrics[0])",
          "trainingInput.hyperparameters.metrics[2].metricId: must "
          "not contain whitespace or '=', got \"b c\"",
          "trainingInput.hyperparameters.metrics[3].goal: must be "
          "one of MAXIMIZE, MINIMIZE, got \"UP\"",
          "trainingInput.hyperparameters.metrics[4].goal: required "
          "(MAXIMIZE or MINIMIZE)",
          "trainingInput.hyperparameters.metrics[5].metricId: "
          "required",
          ""
          "trainingInput.hyperparameters.metrics[6]."
          "desiredMinSafeTrialsFraction: needs a safetyThreshold on this "
          "metric",
          ""
          "trainingInput.hyperparameters.metrics[7]."
          "desiredMinSafeTrialsFraction: must be between 0 and 1, got 1.5",
          "trainingInput.hyperparameters.metrics[8].id: unknown "
          "field (did you mean metricId?)",
          "trainingInput.hyperparameters.metrics[8].metricId: "
          "required"));
}

TEST(MetricsConfigTest, ObjectivesAreBetweenOneAndFour) {
  EXPECT_THAT(
      Errors(
          Config("    metrics:\n"
                 "    - {metricId: a, goal: MINIMIZE, safetyThreshold: 1}\n")),
      ElementsAre("trainingInput.hyperparameters.metrics: needs at "
                  "least one objective (a metric without safetyThreshold); "
                  "every metric given is a constraint"));
  std::string five = "    metrics:\n";
  for (const char* id : {"a", "b", "c", "d", "e"}) {
    five += std::string("    - {metricId: ") + id + ", goal: MINIMIZE}\n";
  }
  EXPECT_THAT(Errors(Config(five)),
              ElementsAre("trainingInput.hyperparameters.metrics: "
                          "must have at most 4 objectives (metrics without "
                          "safetyThreshold), got 5"));
  EXPECT_THAT(Errors(Config("    metrics: []\n")),
              ElementsAre("trainingInput.hyperparameters.metrics: "
                          "must not be empty (or leave it out)"));
}

TEST(MetricsConfigTest, EarlyStoppingIsAllowedWithSeveralObjectives) {
  // Several objectives: the dominance rule judges them.
  EXPECT_THAT(Errors(Config("    enableTrialEarlyStopping: true\n"
                            "    metrics:\n"
                            "    - {metricId: a, goal: MINIMIZE}\n"
                            "    - {metricId: b, goal: MINIMIZE}\n")),
              IsEmpty());
  // One objective and a constraint: stopping judges the objective.
  EXPECT_THAT(Errors(Config("    enableTrialEarlyStopping: true\n" +
                            std::string(kTwoMetrics))),
              IsEmpty());
}

}  // namespace
}  // namespace hptune
