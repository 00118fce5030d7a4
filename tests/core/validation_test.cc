// Tests for ValidateStudySpec, ValidateJobId and FieldErrorsToStatus: the
// study rules of docs/config.md on specs however they were built
// (config files go through them too, see config_parser_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

ParameterSpec Double(std::string name, double min, double max,
                     ScaleType scale = ScaleType::kNone) {
  return {.name = std::move(name),
          .type = ParameterType::kDouble,
          .min_value = min,
          .max_value = max,
          .scale = scale};
}

ParameterSpec Integer(std::string name, double min, double max,
                      ScaleType scale = ScaleType::kNone) {
  return {.name = std::move(name),
          .type = ParameterType::kInteger,
          .min_value = min,
          .max_value = max,
          .scale = scale};
}

ParameterSpec Discrete(std::string name, std::vector<double> values,
                       ScaleType scale = ScaleType::kNone) {
  return {.name = std::move(name),
          .type = ParameterType::kDiscrete,
          .discrete_values = std::move(values),
          .scale = scale};
}

ParameterSpec Categorical(std::string name, std::vector<std::string> values) {
  return {.name = std::move(name),
          .type = ParameterType::kCategorical,
          .categorical_values = std::move(values)};
}

StudySpec Spec(std::vector<ParameterSpec> params) {
  StudySpec spec;
  spec.search_space = SearchSpace(std::move(params));
  return spec;
}

std::vector<std::string> Errors(const StudySpec& spec,
                                std::string_view prefix = "study") {
  std::vector<std::string> lines;
  for (const FieldError& error : ValidateStudySpec(spec, prefix)) {
    lines.push_back(error.ToString());
  }
  return lines;
}

std::vector<std::string> Errors(const ParameterSpec& param) {
  return Errors(Spec({param}));
}

TEST(ValidateStudySpecTest, AcceptsAValidStudy) {
  StudySpec spec = Spec({Double("lr", 1e-5, 0.1, ScaleType::kLog),
                         Integer("units", 8, 512, ScaleType::kReverseLog),
                         Discrete("batch", {16, 32, 64}, ScaleType::kLog),
                         Categorical("cell", {"GRU", "LSTM"})});
  spec.max_trials = 50;
  spec.max_parallel_trials = 100;  // More than maxTrials is allowed.
  spec.resume_previous_job_id = "previous_1";
  EXPECT_THAT(Errors(spec), IsEmpty());
}

TEST(ValidateStudySpecTest, PrefixIsOptional) {
  EXPECT_THAT(
      Errors(Spec({Double("lr", 1, 0)}), ""),
      ElementsAre("params[0].minValue: must be less than maxValue 0, got 1"));
  EXPECT_THAT(
      Errors(Spec({Double("lr", 1, 0)}), "trainingInput.hyperparameters"),
      ElementsAre("trainingInput.hyperparameters.params[0].minValue: must "
                  "be less than maxValue 0, got 1"));
}

TEST(ValidateStudySpecTest, BudgetLimits) {
  StudySpec spec = Spec({Double("lr", 0, 1)});
  spec.max_trials = 0;
  spec.max_parallel_trials = 0;
  spec.max_failed_trials = -1;
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.maxTrials: must be at least 1, got 0",
                          "study.maxParallelTrials: must be at least 1, got 0",
                          "study.maxFailedTrials: must be at least 0, got -1"));
}

// Bounds from what one machine runs: beyond them a runner would plan for
// billions of trials (and, before the bound, allocate for them).
TEST(ValidateStudySpecTest, BudgetUpperLimits) {
  StudySpec spec = Spec({Double("lr", 0, 1)});
  spec.max_trials = 2147483647;
  spec.max_parallel_trials = 1001;
  spec.max_failed_trials = 1'000'001;
  EXPECT_THAT(
      Errors(spec),
      ElementsAre(
          "study.maxTrials: must be at most 1000000, got 2147483647",
          "study.maxParallelTrials: must be at most 1000, got 1001",
          "study.maxFailedTrials: must be at most 1000000, got 1000001"));
  spec.max_trials = kMaxTrials;
  spec.max_parallel_trials = kMaxParallelTrials;
  spec.max_failed_trials = kMaxTrials;
  EXPECT_THAT(Errors(spec), IsEmpty());
}

TEST(ValidateStudySpecTest, MetricTagIsOneWordWithoutEquals) {
  StudySpec spec = Spec({Double("lr", 0, 1)});
  spec.SetSingleMetric("");
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.hyperparameterMetricTag: must not be empty"));
  spec.SetSingleMetric("val loss");
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.hyperparameterMetricTag: must not contain "
                          "whitespace or '=', got \"val loss\""));
  spec.SetSingleMetric("a=b");
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.hyperparameterMetricTag: must not contain "
                          "whitespace or '=', got \"a=b\""));
  spec.SetSingleMetric("eval/top-1_accuracy");
  EXPECT_THAT(Errors(spec), IsEmpty());
}

TEST(ValidateStudySpecTest, ResumePreviousJobIdFollowsTheJobIdRule) {
  StudySpec spec = Spec({Double("lr", 0, 1)});
  spec.resume_previous_job_id = "_job";
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.resumePreviousJobId: must start with a "
                          "letter, got \"_job\""));
}

TEST(ValidateStudySpecTest, ParamsAreNonEmptyAndAtMostOneHundred) {
  EXPECT_THAT(Errors(Spec({})), ElementsAre("study.params: must not be empty"));
  std::vector<ParameterSpec> params;
  for (int i = 0; i < 101; ++i)
    params.push_back(Integer("p" + std::to_string(i), 0, 1));
  EXPECT_THAT(
      Errors(Spec(params)),
      ElementsAre(
          "study.params: must have at most 100 parameters (conditional ones "
          "included), got 101"));
  params.pop_back();
  EXPECT_THAT(Errors(Spec(params)), IsEmpty());
}

TEST(ValidateStudySpecTest, ParameterNamesWorkAsFlags) {
  EXPECT_THAT(Errors(Double("", 0, 1)),
              ElementsAre("study.params[0].parameterName: must not be empty"));
  EXPECT_THAT(Errors(Double("learning rate", 0, 1)),
              ElementsAre("study.params[0].parameterName: must contain only "
                          "letters, digits, '_', '-' and '.' (it becomes a "
                          "--flag), got \"learning rate\""));
  EXPECT_THAT(Errors(Double("lr=1", 0, 1)),
              ElementsAre("study.params[0].parameterName: must contain only "
                          "letters, digits, '_', '-' and '.' (it becomes a "
                          "--flag), got \"lr=1\""));
  EXPECT_THAT(Errors(Double("-lr", 0, 1)),
              ElementsAre("study.params[0].parameterName: must not start with "
                          "'-' (it becomes a --flag), got \"-lr\""));
  EXPECT_THAT(Errors(Double("optimizer.lr-max_2", 0, 1)), IsEmpty());
}

TEST(ValidateStudySpecTest, ParameterNamesAreUnique) {
  EXPECT_THAT(Errors(Spec({Double("lr", 0, 1), Integer("n", 0, 1),
                           Categorical("lr", {"a"})})),
              ElementsAre("study.params[2].parameterName: duplicate parameter "
                          "name \"lr\" (also params[0])"));
}

TEST(ValidateStudySpecTest, RangesAreFiniteAndIncreasing) {
  EXPECT_THAT(Errors(Double("x", kNan, kInf)),
              ElementsAre("study.params[0].minValue: must be finite, got nan",
                          "study.params[0].maxValue: must be finite, got inf"));
  EXPECT_THAT(
      Errors(Double("x", 2, 2)),
      ElementsAre("study.params[0].minValue: must be less than maxValue "
                  "2, got 2"));
  EXPECT_THAT(
      Errors(Integer("n", 5, -5)),
      ElementsAre("study.params[0].minValue: must be less than maxValue "
                  "-5, got 5"));
}

TEST(ValidateStudySpecTest, IntegerBoundsAreExactIntegers) {
  EXPECT_THAT(
      Errors(Integer("n", 0.5, 10.25)),
      ElementsAre("study.params[0].minValue: must be an integer for type "
                  "INTEGER, got 0.5",
                  "study.params[0].maxValue: must be an integer for type "
                  "INTEGER, got 10.25"));
  EXPECT_THAT(Errors(Integer("n", 0, 1e17)),
              ElementsAre("study.params[0].maxValue: must be between -2^53 and "
                          "2^53 for type INTEGER, got 1e+17"));
}

TEST(ValidateStudySpecTest, LogScalesNeedAPositiveRange) {
  EXPECT_THAT(Errors(Double("x", -1, 1, ScaleType::kLog)),
              ElementsAre("study.params[0].scaleType: UNIT_LOG_SCALE needs "
                          "minValue > 0, got -1"));
  EXPECT_THAT(Errors(Integer("n", 0, 10, ScaleType::kReverseLog)),
              ElementsAre("study.params[0].scaleType: UNIT_REVERSE_LOG_SCALE "
                          "needs minValue > 0, got 0"));
  EXPECT_THAT(Errors(Discrete("d", {0, 1, 2}, ScaleType::kLog)),
              ElementsAre("study.params[0].scaleType: UNIT_LOG_SCALE needs "
                          "discreteValues > 0, got 0"));
  EXPECT_THAT(Errors(Double("x", -1, 1, ScaleType::kLinear)), IsEmpty());
}

TEST(ValidateStudySpecTest, DiscreteValuesAreFewFiniteAndStrictlyIncreasing) {
  EXPECT_THAT(Errors(Discrete("d", {})),
              ElementsAre("study.params[0].discreteValues: must not be empty"));
  EXPECT_THAT(
      Errors(Discrete("d", {1, 2, 2, kInf})),
      ElementsAre("study.params[0].discreteValues[2]: must be greater "
                  "than 2 (discreteValues must be strictly increasing), "
                  "got 2",
                  "study.params[0].discreteValues[3]: must be finite, "
                  "got inf"));
  std::vector<double> many;
  for (int i = 0; i < 1000; ++i) many.push_back(i);
  EXPECT_THAT(Errors(Discrete("d", many)), IsEmpty());
  many.push_back(1000);
  EXPECT_THAT(Errors(Discrete("d", many)),
              ElementsAre("study.params[0].discreteValues: must have at most "
                          "1000 values, got 1001"));
}

TEST(ValidateStudySpecTest, CategoricalValuesAreUniqueNonEmptyStrings) {
  EXPECT_THAT(
      Errors(Categorical("c", {})),
      ElementsAre("study.params[0].categoricalValues: must not be empty"));
  EXPECT_THAT(
      Errors(Categorical("c", {"a", "", "b", "a"})),
      ElementsAre("study.params[0].categoricalValues[1]: must not be empty",
                  "study.params[0].categoricalValues[3]: duplicate value "
                  "\"a\" (also at index 0)"));
}

TEST(ValidateStudySpecTest, FieldsOfAnotherTypeAreErrors) {
  ParameterSpec categorical = Categorical("c", {"a"});
  categorical.min_value = 1;
  categorical.max_value = 2;
  categorical.discrete_values = {1};
  categorical.scale = ScaleType::kLinear;
  EXPECT_THAT(
      Errors(categorical),
      ElementsAre("study.params[0].minValue: not allowed with type "
                  "CATEGORICAL, got 1",
                  "study.params[0].maxValue: not allowed with type "
                  "CATEGORICAL, got 2",
                  "study.params[0].discreteValues: not allowed with type "
                  "CATEGORICAL, got 1 values",
                  "study.params[0].scaleType: not allowed with type "
                  "CATEGORICAL, got UNIT_LINEAR_SCALE"));
  ParameterSpec double_param = Double("x", 0, 1);
  double_param.categorical_values = {"a"};
  EXPECT_THAT(Errors(double_param),
              ElementsAre("study.params[0].categoricalValues: not allowed with "
                          "type DOUBLE, got 1 values"));
}

// The flat list is in the order its nested form reads back: a child right
// after its parent and that parent's earlier children's subtrees.
TEST(ValidateStudySpecTest, AChildIsListedInItsNestedFormsOrder) {
  ParameterSpec child = Double("dropout", 0, 0.5);
  child.condition =
      ParentCondition{.parent = "cell", .categorical_values = {"GRU"}};
  const ParameterSpec cell = Categorical("cell", {"GRU", "LSTM"});
  const ParameterSpec lr = Double("lr", 0, 1);
  EXPECT_THAT(Errors(Spec({cell, child, lr})), IsEmpty());
  EXPECT_THAT(
      Errors(Spec({cell, lr, child})),
      ElementsAre("study.params[0].conditionalParameterSpecs[0]."
                  "parameterSpec: the child \"dropout\" must be listed right "
                  "after its parent \"cell\" and that parent's earlier "
                  "children, before \"lr\" (index 1), as its nested form "
                  "reads back; it is at index 2"));
  // A child before its parent is told by its condition alone.
  EXPECT_THAT(Errors(Spec({child, cell})),
              ElementsAre("study.params[0].parent: the parent \"cell\" must "
                          "come before its child \"dropout\" (no cycles)"));
}

TEST(ValidateStudySpecTest, DiscreteTakesNoRange) {
  ParameterSpec discrete = Discrete("d", {1, 2});
  discrete.max_value = 3;
  EXPECT_THAT(Errors(discrete),
              ElementsAre("study.params[0].maxValue: not allowed with type "
                          "DISCRETE, got 3"));
}

TEST(ValidateStudySpecTest, GridSearchTakesNoDoubleParameters) {
  StudySpec spec = Spec({Integer("n", 1, 3), Double("lr", 0, 1),
                         Discrete("d", {1, 2}), Categorical("c", {"a"})});
  spec.algorithm = Algorithm::kGridSearch;
  EXPECT_THAT(Errors(spec),
              ElementsAre("study.params[1].type: algorithm GRID_SEARCH needs "
                          "INTEGER, DISCRETE or CATEGORICAL parameters, got "
                          "DOUBLE for \"lr\""));
  spec.algorithm = Algorithm::kRandomSearch;
  EXPECT_THAT(Errors(spec), IsEmpty());
}

TEST(ValidateJobIdTest, AcceptsLettersDigitsAndUnderscoresFromALetter) {
  EXPECT_THAT(ValidateJobId("a"), IsEmpty());
  EXPECT_THAT(ValidateJobId("mnist_20261121"), IsEmpty());
  EXPECT_THAT(ValidateJobId("Z" + std::string(127, '9')), IsEmpty());
}

TEST(ValidateJobIdTest, NamesTheRuleAndTheValue) {
  EXPECT_THAT(ValidateJobId(""),
              ElementsAre(FieldError{"jobId", "must not be empty"}));
  EXPECT_THAT(ValidateJobId("1job"),
              ElementsAre(FieldError{
                  "jobId", "must start with a letter, got \"1job\""}));
  EXPECT_THAT(ValidateJobId("_job"),
              ElementsAre(FieldError{
                  "jobId", "must start with a letter, got \"_job\""}));
  EXPECT_THAT(ValidateJobId("my-job"),
              ElementsAre(FieldError{"jobId",
                                     "must contain only letters, digits and "
                                     "underscores, got \"my-job\""}));
  EXPECT_THAT(ValidateJobId("caf\xc3\xa9"),
              ElementsAre(FieldError{"jobId",
                                     "must contain only letters, digits and "
                                     "underscores, got \"caf\xc3\xa9\""}));
  const std::string long_id(129, 'a');
  EXPECT_THAT(ValidateJobId(long_id, "job"),
              ElementsAre(FieldError{"job",
                                     "must be at most 128 characters, got "
                                     "129: \"" +
                                         long_id + "\""}));
}

TEST(FieldErrorsToStatusTest, OkWithoutErrors) {
  EXPECT_OK(FieldErrorsToStatus({}));
}

TEST(FieldErrorsToStatusTest, InvalidArgumentWithOneErrorPerLine) {
  absl::Status status = FieldErrorsToStatus(
      {{"a.b", "must be at least 1, got 0"}, {"c", "unknown field"}});
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "a.b: must be at least 1, got 0\nc: unknown field"));
}

}  // namespace
}  // namespace hptune
