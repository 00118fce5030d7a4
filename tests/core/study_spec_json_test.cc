// Tests for StudySpecToJson and ParseStudySpecJson: a study spec's one
// stored form, its canonical `hyperparameters` JSON.
#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

StudySpec AStudy() {
  ParameterSpec lr{.name = "lr",
                   .type = ParameterType::kDouble,
                   .min_value = 1e-5,
                   .max_value = 0.1,
                   .scale = ScaleType::kLog};
  ParameterSpec cell{.name = "cell",
                     .type = ParameterType::kCategorical,
                     .categorical_values = {"GRU", "LSTM"}};
  StudySpec spec;
  spec.search_space = SearchSpace({lr, cell});
  spec.SetSingleMetric("accuracy");
  spec.max_trials = 20;
  spec.max_parallel_trials = 2;
  spec.algorithm = Algorithm::kRandomSearch;
  return spec;
}

TEST(StudySpecJsonTest, RoundTripsWithTheLargestSeed) {
  StudySpec spec = AStudy();
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)), IsOkAndHolds(spec));
  spec.seed = std::numeric_limits<uint64_t>::max();
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)), IsOkAndHolds(spec));
}

TEST(StudySpecJsonTest, ConditionalParametersRoundTrip) {
  StudySpec spec = AStudy();
  ParameterSpec opt;
  opt.name = "opt";
  opt.type = ParameterType::kCategorical;
  opt.categorical_values = {"sgd", "adam"};
  ParameterSpec momentum;
  momentum.name = "momentum";
  momentum.max_value = 1;
  momentum.condition =
      ParentCondition{.parent = "opt", .categorical_values = {"sgd"}};
  ParameterSpec depth;
  depth.name = "depth";
  depth.type = ParameterType::kInteger;
  depth.min_value = 1;
  depth.max_value = 3;
  depth.condition =
      ParentCondition{.parent = "opt", .categorical_values = {"adam"}};
  ParameterSpec width;
  width.name = "width";
  width.type = ParameterType::kDiscrete;
  width.discrete_values = {0.5, 1};
  width.condition = ParentCondition{.parent = "depth", .int_values = {2, 3}};
  ParameterSpec scale = momentum;
  scale.name = "scale";
  scale.condition = ParentCondition{.parent = "width", .discrete_values = {1}};
  spec.search_space = SearchSpace({opt, momentum, depth, width, scale});
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)), IsOkAndHolds(spec));
}

TEST(StudySpecJsonTest, MetricsWithThresholdsRoundTrip) {
  StudySpec spec = AStudy();
  spec.SetMetrics({{.id = "accuracy", .goal = Goal::kMaximize},
                   {.id = "latency",
                    .goal = Goal::kMinimize,
                    .safety_threshold = 0.25,
                    .desired_min_safe_trials_fraction = 0.9}});
  spec.resume_previous_job_id = "earlier";
  spec.enable_early_stopping = true;
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)), IsOkAndHolds(spec));
}

TEST(StudySpecJsonTest, ABadSpecNamesItsFieldsUnderHyperparameters) {
  EXPECT_THAT(ParseStudySpecJson(R"({"maxTrials": 0, "params": []})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hyperparameters.maxTrials: ")));
  EXPECT_THAT(ParseStudySpecJson("[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hyperparameters: ")));
  EXPECT_THAT(
      ParseStudySpecJson("{\"maxTrials\": "),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1")));
}

}  // namespace
}  // namespace hptune
