// Tests for StudySpecToJson and ParseStudySpecJson: a study spec's one
// stored form, its canonical `hyperparameters` JSON.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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

TEST(StudySpecJsonTest, AParameterThatJoinedLaterKeepsItsTrial) {
  StudySpec spec = AStudy();
  std::vector<ParameterSpec> parameters = spec.search_space.parameters();
  parameters.push_back({.name = "dropout",
                        .type = ParameterType::kDouble,
                        .min_value = 0,
                        .max_value = 0.5,
                        .scale = ScaleType::kLinear,
                        .first_trial = 7});
  spec.search_space = SearchSpace(std::move(parameters));
  const std::string json = StudySpecToJson(spec);
  EXPECT_THAT(json, HasSubstr("\"firstTrial\":7"));
  EXPECT_THAT(ParseStudySpecJson(json), IsOkAndHolds(spec));
}

TEST(StudySpecJsonTest, FirstTrialIsOnlyForARootParameterOfASearchThatGrows) {
  StudySpec spec = AStudy();
  std::vector<ParameterSpec> parameters = spec.search_space.parameters();
  parameters[1].first_trial = -1;
  spec.search_space = SearchSpace(parameters);
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("params[1].firstTrial: must be at least 0, "
                                 "got -1")));
  parameters[1].first_trial = 3;
  parameters[1].condition = ParentCondition{.parent = "lr"};
  spec.search_space = SearchSpace(parameters);
  EXPECT_THAT(ValidateStudySpec(spec, ""),
              testing::Contains(testing::Field(
                  &FieldError::message,
                  HasSubstr("got 3 on a conditional parameter"))));
  parameters[1].condition.reset();
  spec.search_space = SearchSpace(parameters);
  spec.algorithm = Algorithm::kGridSearch;
  parameters[0].type = ParameterType::kDiscrete;
  parameters[0].discrete_values = {0.01, 0.1};
  parameters[0].min_value = parameters[0].max_value = 0;
  spec.search_space = SearchSpace(parameters);
  EXPECT_THAT(ParseStudySpecJson(StudySpecToJson(spec)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("GRID_SEARCH enumerates the space its config "
                                 "declares")));
}

}  // namespace
}  // namespace hptune
