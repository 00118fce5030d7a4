// Conditional parameters (Vertex AI's conditionalParameterSpecs) through the
// config reader, ValidateStudySpec, the writer and SearchSpace: the nested
// shape becomes the flat depth-first list, every rule's error names the
// field path and the value, and assignments hold exactly the active
// parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

std::vector<std::string> Errors(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, "");
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors) {
    lines.push_back(error.ToString());
  }
  return lines;
}

StudySpec ParseStudy(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, "");
  for (const FieldError& error : result.errors) {
    ADD_FAILURE() << "unexpected error: " << error.ToString();
  }
  if (!result.job || !result.job->study) return StudySpec{};
  return *result.job->study;
}

// A config whose params are `params` (list items indented four spaces).
std::string Study(std::string_view params,
                  std::string_view algorithm = "ALGORITHM_UNSPECIFIED") {
  return "trainingInput:\n  command: [t]\n  hyperparameters:\n"
         "    goal: MINIMIZE\n    hyperparameterMetricTag: loss\n"
         "    algorithm: " +
         std::string(algorithm) + "\n    params:\n" + std::string(params);
}

// optimizer {sgd, adam}: sgd -> momentum; adam -> beta2 and warmup
// {off, on}; on -> warmup_steps. Then a root `layers`.
constexpr char kTree[] = R"(    - parameterName: optimizer
      type: CATEGORICAL
      categoricalValues: [sgd, adam]
      conditionalParameterSpecs:
      - parentCategoricalValues: {values: [sgd]}
        parameterSpec: {parameterName: momentum, type: DOUBLE, minValue: 0, maxValue: 0.99}
      - parentCategoricalValues: {values: [adam]}
        parameterSpec: {parameterName: beta2, type: DOUBLE, minValue: 0.9, maxValue: 0.999}
      - parentCategoricalValues: {values: [adam]}
        parameterSpec:
          parameterName: warmup
          type: CATEGORICAL
          categoricalValues: ["off", "on"]
          conditionalParameterSpecs:
          - parentCategoricalValues: {values: ["on"]}
            parameterSpec: {parameterName: warmup_steps, type: INTEGER, minValue: 1, maxValue: 100}
    - {parameterName: layers, type: INTEGER, minValue: 1, maxValue: 4}
)";

std::vector<std::string> Names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const ParameterSpec& p : space.parameters()) names.push_back(p.name);
  return names;
}

TEST(ConditionalConfigTest, NestedSpecsBecomeTheDepthFirstList) {
  const SearchSpace space = ParseStudy(Study(kTree)).search_space;
  EXPECT_THAT(Names(space), ElementsAre("optimizer", "momentum", "beta2",
                                        "warmup", "warmup_steps", "layers"));
  EXPECT_TRUE(space.IsConditional());
  EXPECT_FALSE(space.parameters()[0].condition.has_value());
  EXPECT_EQ(
      space.parameters()[1].condition,
      (ParentCondition{.parent = "optimizer", .categorical_values = {"sgd"}}));
  EXPECT_EQ(space.parameters()[4].condition->parent, "warmup");
  EXPECT_EQ(space.ParentIndex(4), 3);
  EXPECT_THAT(space.ChildIndices(0), ElementsAre(1, 2, 3));
  EXPECT_THAT(space.ChildIndices(-1), ElementsAre(0, 5));
  EXPECT_EQ(space.ConfigPath(4, "params"),
            "params[0].conditionalParameterSpecs[2].parameterSpec."
            "conditionalParameterSpecs[0].parameterSpec");
  EXPECT_EQ(space.ConfigPath(5, "params"), "params[1]");
}

TEST(ConditionalConfigTest, TheExampleConfigParses) {
  std::ifstream in(std::string(HPTUNE_SOURCE_DIR) +
                   "/examples/configs/conditional.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const SearchSpace space = ParseStudy(text.str()).search_space;
  EXPECT_THAT(Names(space),
              ElementsAre("optimizer", "sgd_lr", "momentum", "adam_lr",
                          "warmup", "warmup_steps", "layers", "dropout"));
}

TEST(ConditionalConfigTest, IntAndDiscreteParentsTakeTheirOwnValueLists) {
  const SearchSpace space = ParseStudy(Study(R"(    - parameterName: layers
      type: INTEGER
      minValue: 1
      maxValue: 4
      conditionalParameterSpecs:
      - parentIntValues: {values: ["3", 4]}
        parameterSpec: {parameterName: dropout, type: DOUBLE, minValue: 0, maxValue: 0.5}
    - parameterName: batch
      type: DISCRETE
      discreteValues: [32, 64]
      conditionalParameterSpecs:
      - parentDiscreteValues: {values: [64]}
        parameterSpec: {parameterName: accumulate, type: CATEGORICAL, categoricalValues: ["no", "yes"]}
)"))
                                .search_space;
  ASSERT_EQ(space.parameters().size(), 4u);
  EXPECT_EQ(space.parameters()[1].condition->int_values,
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(space.parameters()[3].condition->discrete_values,
            (std::vector<double>{64}));
}

TEST(ConditionalConfigTest, CanonicalJsonKeepsTheTree) {
  ConfigParseResult parsed =
      ParseJobConfig(Study(kTree), ConfigFormat::kAuto, "");
  ASSERT_TRUE(parsed.job.has_value());
  const std::string json = TrainingInputToJson(*parsed.job);
  EXPECT_THAT(json, HasSubstr("\"conditionalParameterSpecs\""));
  ConfigParseResult back = ParseJobConfig(json, ConfigFormat::kJson, "");
  EXPECT_THAT(back.errors, IsEmpty()) << json;
  ASSERT_TRUE(back.job.has_value());
  EXPECT_EQ(back.job->study->search_space, parsed.job->study->search_space);
  EXPECT_EQ(TrainingInputToJson(*back.job), json);
}

// --- Every rule, with its field path and value ------------------------------

constexpr char kPrefix[] = "trainingInput.hyperparameters.params[0]";

std::string Child(std::string_view condition,
                  std::string_view parent =
                      "{type: CATEGORICAL, "
                      "categoricalValues: [a, b]}") {
  // `parent` is a flow mapping without its name and children.
  std::string p(parent);
  p.insert(1, "parameterName: opt, ");
  p.pop_back();
  return "    - " + p + ", conditionalParameterSpecs: [" +
         std::string(condition) + "]}\n";
}

constexpr char kLeaf[] =
    "parameterSpec: {parameterName: c, type: DOUBLE, minValue: 0, "
    "maxValue: 1}";

TEST(ConditionalConfigTest, ParentValuesMustBeInTheParentsDomain) {
  EXPECT_THAT(
      Errors(Study(Child(std::string("{parentCategoricalValues: {values: [a, "
                                     "z, a]}, ") +
                         kLeaf + "}"))),
      ElementsAre(
          std::string(kPrefix) +
              ".conditionalParameterSpecs[0].parentCategoricalValues.values[1]"
              ": not one of the categoricalValues of the parent \"opt\", got "
              "\"z\"",
          std::string(kPrefix) +
              ".conditionalParameterSpecs[0].parentCategoricalValues.values[2]"
              ": duplicate value \"a\""));
  EXPECT_THAT(
      Errors(Study(Child(
          std::string("{parentIntValues: {values: [0, 2]}, ") + kLeaf + "}",
          "{type: INTEGER, minValue: 1, maxValue: 3}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parentIntValues.values[0]: "
                  "must be in [1, 3], the range of the parent \"opt\", got 0"));
  EXPECT_THAT(
      Errors(Study(Child(
          std::string("{parentDiscreteValues: {values: [0.5]}, ") + kLeaf + "}",
          "{type: DISCRETE, discreteValues: [1, 2]}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parentDiscreteValues."
                  "values[0]: not one of the discreteValues of the parent "
                  "\"opt\", got 0.5"));
}

TEST(ConditionalConfigTest, TheValueListMustMatchTheParentsType) {
  EXPECT_THAT(
      Errors(Study(Child(std::string("{parentIntValues: {values: [1]}, ") +
                         kLeaf + "}"))),
      UnorderedElementsAre(
          std::string(kPrefix) +
              ".conditionalParameterSpecs[0].parentIntValues: not "
              "allowed: the parent \"opt\" is CATEGORICAL",
          std::string(kPrefix) +
              ".conditionalParameterSpecs[0].parentCategoricalValues: "
              "required: the parent \"opt\" is CATEGORICAL (at least one of "
              "its values)"));
  EXPECT_THAT(
      Errors(Study(Child(
          std::string("{parentDiscreteValues: {values: [1]}, ") + kLeaf + "}",
          "{type: DOUBLE, minValue: 0, maxValue: 2}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0]: the parent \"opt\" is "
                  "DOUBLE, whose values cannot be listed; make it DISCRETE, "
                  "INTEGER or CATEGORICAL"));
}

TEST(ConditionalConfigTest, AnEntryNeedsOneConditionAndAParameterSpec) {
  EXPECT_THAT(Errors(Study(Child(std::string("{") + kLeaf + "}"))),
              ElementsAre(std::string(kPrefix) +
                          ".conditionalParameterSpecs[0]."
                          "parentCategoricalValues: required: one of "
                          "parentDiscreteValues, parentIntValues or "
                          "parentCategoricalValues, by the parent's type"));
  EXPECT_THAT(
      Errors(Study(Child("{parentCategoricalValues: {values: [a]}}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parameterSpec: required (the "
                  "child parameter)"));
  EXPECT_THAT(
      Errors(Study(
          Child(std::string("{parentCategoricalValues: [a], ") + kLeaf + "}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parentCategoricalValues: "
                  "must be a mapping, got [\"a\"]"));
  EXPECT_THAT(
      Errors(
          Study(Child(std::string("{parentCategoricalValues: {value: [a]}, ") +
                      kLeaf + "}"))),
      ElementsAre(HasSubstr("parentCategoricalValues.value: unknown field"),
                  HasSubstr("parentCategoricalValues.values: required")));
}

TEST(ConditionalConfigTest, NamesAreUniqueAcrossTheTree) {
  EXPECT_THAT(
      Errors(
          Study(Child(std::string("{parentCategoricalValues: {values: [a]}, ") +
                      "parameterSpec: {parameterName: opt, type: DOUBLE, "
                      "minValue: 0, maxValue: 1}}"))),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parameterSpec.parameterName: "
                  "duplicate parameter name \"opt\" (also params[0])"));
}

TEST(ConditionalConfigTest, AChildsOwnErrorsCarryItsPath) {
  EXPECT_THAT(
      Errors(Study(Child(
          "{parentCategoricalValues: {values: [b]}, parameterSpec: "
          "{parameterName: c, type: DOUBLE, minValue: 2, maxValue: 1}}"))),
      ElementsAre(HasSubstr(std::string(kPrefix) +
                            ".conditionalParameterSpecs[0].parameterSpec."
                            "minValue: ")));
}

TEST(ConditionalConfigTest, GridSearchRefusesADoubleChild) {
  EXPECT_THAT(
      Errors(Study(Child(std::string("{parentCategoricalValues: {values: "
                                     "[a]}, ") +
                         kLeaf + "}"),
                   "GRID_SEARCH")),
      ElementsAre(std::string(kPrefix) +
                  ".conditionalParameterSpecs[0].parameterSpec.type: "
                  "algorithm GRID_SEARCH needs INTEGER, DISCRETE or "
                  "CATEGORICAL parameters, got DOUBLE for \"c\""));
}

TEST(ConditionalConfigTest, AParentMustComeFirstInAFlatSpace) {
  // Only the C++ API can write the tree flat; the order still holds.
  StudySpec spec;
  spec.SetSingleMetric("loss");
  ParameterSpec child;
  child.name = "c";
  child.type = ParameterType::kDouble;
  child.max_value = 1;
  child.condition = ParentCondition{.parent = "p", .int_values = {1}};
  ParameterSpec parent;
  parent.name = "p";
  parent.type = ParameterType::kInteger;
  parent.max_value = 2;
  spec.search_space = SearchSpace({child, parent});
  std::vector<std::string> errors;
  for (const FieldError& e : ValidateStudySpec(spec, "study")) {
    errors.push_back(e.ToString());
  }
  EXPECT_THAT(errors, ElementsAre("study.params[0].parent: the parent \"p\" "
                                  "must come before its child \"c\" (no "
                                  "cycles)"));
  child.condition->parent = "ghost";
  spec.search_space = SearchSpace({parent, child});
  errors.clear();
  for (const FieldError& e : ValidateStudySpec(spec, "study")) {
    errors.push_back(e.ToString());
  }
  EXPECT_THAT(errors, ElementsAre("study.params[1].parent: no parameter is "
                                  "named \"ghost\""));
}

// --- Assignments ------------------------------------------------------------

TEST(ConditionalAssignmentTest, OnlyTheActiveParametersAreWanted) {
  const SearchSpace space = ParseStudy(Study(kTree)).search_space;
  const auto sgd = ParameterValue::Categorical("sgd");
  const auto adam = ParameterValue::Categorical("adam");
  const auto on = ParameterValue::Categorical("on");
  const auto off = ParameterValue::Categorical("off");
  const auto layers = ParameterValue::Integer(2);
  EXPECT_OK(space.CheckAssignment({{"optimizer", sgd},
                                   {"momentum", ParameterValue::Double(0.9)},
                                   {"layers", layers}}));
  EXPECT_OK(space.CheckAssignment({{"optimizer", adam},
                                   {"beta2", ParameterValue::Double(0.99)},
                                   {"warmup", on},
                                   {"warmup_steps", ParameterValue::Integer(5)},
                                   {"layers", layers}}));
  EXPECT_THAT(space.ActiveMask({{"optimizer", adam}, {"warmup", off}}),
              ElementsAre(true, false, true, true, false, true));
  const absl::Status extra =
      space.CheckAssignment({{"optimizer", adam},
                             {"beta2", ParameterValue::Double(0.99)},
                             {"momentum", ParameterValue::Double(0.9)},
                             {"warmup", off},
                             {"layers", layers}});
  EXPECT_EQ(extra.message(),
            "parameter \"momentum\" is not active (its parent \"optimizer\" "
            "is adam), got 0.9");
  const absl::Status missing =
      space.CheckAssignment({{"optimizer", adam},
                             {"warmup", on},
                             {"layers", layers},
                             {"beta2", ParameterValue::Double(0.99)}});
  EXPECT_EQ(missing.message(), "parameter \"warmup_steps\" has no value");
  const absl::Status orphan =
      space.CheckAssignment({{"optimizer", sgd},
                             {"momentum", ParameterValue::Double(0.9)},
                             {"warmup_steps", ParameterValue::Integer(5)},
                             {"layers", layers}});
  EXPECT_EQ(orphan.message(),
            "parameter \"warmup_steps\" is not active (its parent \"warmup\" "
            "is not active), got 5");
}

}  // namespace
}  // namespace hptune
