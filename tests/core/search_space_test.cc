#include "hptune/core/search_space.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;

SearchSpace ExampleSpace() {
  return SearchSpace({
      {.name = "lr",
       .type = ParameterType::kDouble,
       .min_value = 1e-5,
       .max_value = 1e-1,
       .scale = ScaleType::kLog},
      {.name = "hidden",
       .type = ParameterType::kInteger,
       .min_value = 40,
       .max_value = 400},
      {.name = "layers",
       .type = ParameterType::kDiscrete,
       .discrete_values = {1, 2, 4}},
      {.name = "cell",
       .type = ParameterType::kCategorical,
       .categorical_values = {"GRU", "LSTM"}},
  });
}

ParameterAssignment ValidAssignment() {
  return {{"lr", ParameterValue::Double(0.01)},
          {"hidden", ParameterValue::Integer(100)},
          {"layers", ParameterValue::Double(2)},
          {"cell", ParameterValue::Categorical("GRU")}};
}

TEST(ParameterValueTest, PrintsIntegersAsIntegers) {
  EXPECT_EQ(ParameterValue::Integer(-42).ToString(), "-42");
}

TEST(ParameterValueTest, PrintsDoublesWithFullPrecisionAndNoNoise) {
  EXPECT_EQ(ParameterValue::Double(0.1).ToString(), "0.1");
  EXPECT_EQ(ParameterValue::Double(1e-5).ToString(), "1e-05");
  double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(ParameterValue::Double(third).ToString()), third);
}

TEST(ParameterValueTest, PrintsCategoricalAsIs) {
  EXPECT_EQ(ParameterValue::Categorical("a b=c").ToString(), "a b=c");
}

TEST(ParameterValueTest, IntegerConvertsToDouble) {
  EXPECT_EQ(ParameterValue::Integer(7).AsDouble(), 7.0);
}

TEST(ParameterValueDeathTest, AsStringOnANumberIsAProgrammerError) {
  EXPECT_DEATH(ParameterValue::Double(1).AsString(), "broken invariant");
}

TEST(EnumNamesTest, RoundTrip) {
  for (auto t : {ParameterType::kDouble, ParameterType::kInteger,
                 ParameterType::kDiscrete, ParameterType::kCategorical}) {
    EXPECT_EQ(ParseParameterType(ToString(t)), t);
  }
  for (auto s : {ScaleType::kNone, ScaleType::kLinear, ScaleType::kLog,
                 ScaleType::kReverseLog}) {
    EXPECT_EQ(ParseScaleType(ToString(s)), s);
  }
  EXPECT_EQ(ParseParameterType("FLOAT"), std::nullopt);
  EXPECT_EQ(ParseScaleType("LOG"), std::nullopt);
}

TEST(ParameterSpecTest, Cardinality) {
  SearchSpace space = ExampleSpace();
  EXPECT_EQ(space.Find("lr")->Cardinality(), std::nullopt);
  EXPECT_EQ(space.Find("hidden")->Cardinality(), 361);
  EXPECT_EQ(space.Find("layers")->Cardinality(), 3);
  EXPECT_EQ(space.Find("cell")->Cardinality(), 2);
}

// optimizer: adam activates lr (3 values) and beta (2), sgd activates
// momentum (4), rmsprop nothing: 3 * 2 + 4 + 1 points.
SearchSpace ConditionalSpace() {
  return SearchSpace({
      {.name = "optimizer",
       .type = ParameterType::kCategorical,
       .categorical_values = {"adam", "sgd", "rmsprop"}},
      {.name = "lr",
       .type = ParameterType::kDiscrete,
       .discrete_values = {0.1, 0.01, 0.001},
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"adam"}}},
      {.name = "beta",
       .type = ParameterType::kInteger,
       .min_value = 1,
       .max_value = 2,
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"adam"}}},
      {.name = "momentum",
       .type = ParameterType::kInteger,
       .min_value = 0,
       .max_value = 3,
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"sgd"}}},
  });
}

TEST(PointCountTest, IsTheProductOfTheParametersValues) {
  SearchSpace space = ExampleSpace();
  // Without the DOUBLE: 361 x 3 x 2.
  SearchSpace finite(std::vector<ParameterSpec>(space.parameters().begin() + 1,
                                                space.parameters().end()));
  EXPECT_EQ(finite.PointCount(), 361 * 3 * 2);
  EXPECT_EQ(finite.PointCount(1), 3);  // A subtree: one parameter's values.
  EXPECT_EQ(SearchSpace().PointCount(), 1);
}

TEST(PointCountTest, IsNulloptWhereADoubleIs) {
  SearchSpace space = ExampleSpace();
  EXPECT_EQ(space.PointCount(), std::nullopt);
  EXPECT_EQ(space.PointCount(0), std::nullopt);
  EXPECT_EQ(space.PointCount(1), 361);
}

TEST(PointCountTest, CountsOnlyTheParametersAPointActivates) {
  SearchSpace space = ConditionalSpace();
  EXPECT_EQ(space.PointCount(), 3 * 2 + 4 + 1);
  EXPECT_EQ(space.PointCount(0), 11);  // The root's subtree is the space.
  EXPECT_EQ(space.PointCount(3), 4);
}

TEST(PointCountTest, AParentValueOutsideItsDomainIsNoPoint) {
  SearchSpace space = ConditionalSpace();
  std::vector<ParameterSpec> params = space.parameters();
  // ValidateStudySpec refuses "nadam"; it adds no point.
  params[3].condition->categorical_values.push_back("nadam");
  EXPECT_EQ(SearchSpace(params).PointCount(), 11);
}

TEST(PointCountTest, SaturatesAtTheCapWithoutOverflow) {
  SearchSpace space = ConditionalSpace();
  EXPECT_EQ(space.PointCount(-1, 5), 5);
  EXPECT_EQ(space.PointCount(-1, 11), 11);
  EXPECT_EQ(space.PointCount(-1, 12), 11);
  // 2^40 + 1 values three times: far beyond int64.
  const auto wide = [](std::string name) {
    return ParameterSpec{.name = std::move(name),
                         .type = ParameterType::kInteger,
                         .min_value = 0,
                         .max_value = static_cast<double>(int64_t{1} << 40)};
  };
  EXPECT_EQ(SearchSpace({wide("a"), wide("b"), wide("c")}).PointCount(),
            std::numeric_limits<int64_t>::max());
}

// layers (DISCRETE 1, 2, 4): 2 and 4 activate dropout, 1 nothing.
TEST(SearchSpaceTest, ADiscreteParentActivatesItsChildOnlyAtItsValues) {
  const SearchSpace space({
      {.name = "layers",
       .type = ParameterType::kDiscrete,
       .discrete_values = {1, 2, 4}},
      {.name = "dropout",
       .type = ParameterType::kDouble,
       .min_value = 0,
       .max_value = 0.5,
       .condition =
           ParentCondition{.parent = "layers", .discrete_values = {2, 4}}},
  });
  EXPECT_OK(space.CheckAssignment({{"layers", ParameterValue::Double(4)},
                                   {"dropout", ParameterValue::Double(0.1)}}));
  EXPECT_OK(space.CheckAssignment({{"layers", ParameterValue::Double(1)}}));
  EXPECT_EQ(
      space.CheckAssignment({{"layers", ParameterValue::Double(2)}}).message(),
      "parameter \"dropout\" has no value");
  EXPECT_EQ(space
                .CheckAssignment({{"layers", ParameterValue::Double(1)},
                                  {"dropout", ParameterValue::Double(0.1)}})
                .message(),
            "parameter \"dropout\" is not active (its parent \"layers\" is "
            "1), got 0.1");
}

TEST(SearchSpaceTest, FindsParametersByName) {
  SearchSpace space = ExampleSpace();
  ASSERT_NE(space.Find("cell"), nullptr);
  EXPECT_EQ(space.Find("cell")->type, ParameterType::kCategorical);
  EXPECT_EQ(space.Find("nope"), nullptr);
}

TEST(SearchSpaceTest, AcceptsAFeasibleAssignment) {
  EXPECT_OK(ExampleSpace().CheckAssignment(ValidAssignment()));
}

TEST(SearchSpaceTest, RejectsAMissingParameter) {
  ParameterAssignment a = ValidAssignment();
  a.erase("hidden");
  EXPECT_EQ(ExampleSpace().CheckAssignment(a).message(),
            "parameter \"hidden\" has no value");
}

TEST(SearchSpaceTest, RejectsAnUnknownParameter) {
  ParameterAssignment a = ValidAssignment();
  a["extra"] = ParameterValue::Integer(1);
  EXPECT_EQ(ExampleSpace().CheckAssignment(a).message(),
            "parameter \"extra\" is not in the search space, got 1");
}

TEST(SearchSpaceTest, RejectsOutOfRangeAndWrongKinds) {
  struct Case {
    std::string name;
    ParameterValue value;
    std::string message;
  };
  std::vector<Case> cases = {
      {"lr", ParameterValue::Double(0.5), "value must be in [1e-05, 0.1]"},
      {"lr", ParameterValue::Double(std::numeric_limits<double>::quiet_NaN()),
       "value must be in"},
      {"lr", ParameterValue::Integer(0), "DOUBLE needs a floating-point value"},
      {"hidden", ParameterValue::Integer(401), "value must be in [40, 400]"},
      {"hidden", ParameterValue::Double(100), "INTEGER needs an integer value"},
      {"layers", ParameterValue::Double(3),
       "value is not one of its discreteValues, got 3"},
      {"cell", ParameterValue::Categorical("RNN"),
       "value is not one of its categoricalValues, got RNN"},
      {"cell", ParameterValue::Integer(1), "CATEGORICAL needs a string value"},
  };
  for (const auto& c : cases) {
    ParameterAssignment a = ValidAssignment();
    a[c.name] = c.value;
    absl::Status status = ExampleSpace().CheckAssignment(a);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << c.name;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("parameter \"" + c.name + "\""));
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
  }
}

// A define-by-run parameter that joined at trial 5: older trials lack it.
TEST(SearchSpaceTest, AParameterThatJoinedLaterIsActiveWhereATrialHasIt) {
  std::vector<ParameterSpec> parameters = ExampleSpace().parameters();
  parameters.push_back({.name = "dropout",
                        .type = ParameterType::kDouble,
                        .min_value = 0,
                        .max_value = 0.5,
                        .first_trial = 5});
  const SearchSpace space(std::move(parameters));
  ParameterAssignment older = ValidAssignment();
  EXPECT_FALSE(space.ActiveMask(older).back());
  EXPECT_OK(space.CheckAssignment(older));
  ParameterAssignment newer = ValidAssignment();
  newer["dropout"] = ParameterValue::Double(0.25);
  EXPECT_TRUE(space.ActiveMask(newer).back());
  EXPECT_OK(space.CheckAssignment(newer));
  newer["dropout"] = ParameterValue::Double(0.75);
  EXPECT_THAT(std::string(space.CheckAssignment(newer).message()),
              HasSubstr("parameter \"dropout\""));
  // A config's parameter is still required.
  older.erase("hidden");
  EXPECT_EQ(space.CheckAssignment(older).message(),
            "parameter \"hidden\" has no value");
}

}  // namespace
}  // namespace hptune
