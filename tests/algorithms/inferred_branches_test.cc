// algorithms::InferBranches: the tree a define-by-run study's trials show.
#include "hptune/algorithms/inferred_branches.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::algorithms {
namespace {

using ::testing::ElementsAre;

ParameterSpec Categorical(std::string name, std::vector<std::string> values,
                          int64_t first_trial) {
  return {.name = std::move(name),
          .type = ParameterType::kCategorical,
          .categorical_values = std::move(values),
          .first_trial = first_trial};
}

ParameterSpec Double(std::string name, int64_t first_trial) {
  return {.name = std::move(name),
          .type = ParameterType::kDouble,
          .min_value = 0,
          .max_value = 1,
          .scale = ScaleType::kLinear,
          .first_trial = first_trial};
}

Trial Ended(int64_t number, ParameterAssignment parameters,
            TrialState state = TrialState::kSucceeded) {
  Trial t;
  t.number = number;
  t.state = state;
  t.parameters = std::move(parameters);
  return t;
}

ParameterValue C(std::string v) { return ParameterValue::Categorical(v); }
ParameterValue D(double v) { return ParameterValue::Double(v); }

// An objective `if kind == "svm": c ... elif kind == "rf": depth ...`, as
// the Python client stores it: each parameter joins when first suggested.
SearchSpace ModelChoice() {
  return SearchSpace({Categorical("kind", {"svm", "rf", "lr"}, 1),
                      Double("svm_c", 1), Double("rf_depth", 2),
                      Double("lr_c", 4)});
}

std::vector<Trial> ModelChoiceTrials() {
  return {Ended(1, {{"kind", C("svm")}, {"svm_c", D(0.1)}}),
          Ended(2, {{"kind", C("rf")}, {"rf_depth", D(0.2)}}),
          Ended(3, {{"kind", C("svm")}, {"svm_c", D(0.3)}}),
          Ended(4, {{"kind", C("lr")}, {"lr_c", D(0.4)}}),
          Ended(5, {{"kind", C("rf")}, {"rf_depth", D(0.5)}})};
}

TEST(InferBranchesTest, EachBranchHangsUnderTheValuesThatTookIt) {
  std::optional<SearchSpace> tree =
      InferBranches(ModelChoice(), ModelChoiceTrials());
  ASSERT_TRUE(tree.has_value());
  const auto& p = tree->parameters();
  EXPECT_FALSE(p[0].condition.has_value());
  EXPECT_EQ(p[0].first_trial, 1);  // kind is in every trial: a root still.
  for (int i = 1; i < 4; ++i) {
    ASSERT_TRUE(p[i].condition.has_value()) << p[i].name;
    EXPECT_EQ(p[i].condition->parent, "kind");
    EXPECT_EQ(p[i].first_trial, 0);
  }
  EXPECT_THAT(p[1].condition->categorical_values, ElementsAre("svm"));
  EXPECT_THAT(p[2].condition->categorical_values, ElementsAre("rf"));
  // lr_c was taken once, the last branch to join; trial 5 lacks it.
  EXPECT_THAT(p[3].condition->categorical_values, ElementsAre("lr"));
  EXPECT_EQ(tree->Find("kind")->name, "kind");
}

TEST(InferBranchesTest, ABranchInsideABranchHangsUnderItsOwnParent) {
  SearchSpace space({Categorical("kind", {"svm", "rf"}, 1),
                     Categorical("kernel", {"rbf", "linear"}, 1),
                     Double("gamma", 1), Double("depth", 3)});
  std::vector<Trial> trials = {
      Ended(1, {{"kind", C("svm")}, {"kernel", C("rbf")}, {"gamma", D(0.1)}}),
      Ended(2, {{"kind", C("svm")}, {"kernel", C("linear")}}),
      Ended(3, {{"kind", C("rf")}, {"depth", D(0.3)}}),
      Ended(4, {{"kind", C("svm")}, {"kernel", C("rbf")}, {"gamma", D(0.2)}})};
  std::optional<SearchSpace> tree = InferBranches(space, trials);
  ASSERT_TRUE(tree.has_value());
  const auto& p = tree->parameters();
  ASSERT_TRUE(p[1].condition.has_value());
  EXPECT_EQ(p[1].condition->parent, "kind");
  EXPECT_THAT(p[1].condition->categorical_values, ElementsAre("svm"));
  ASSERT_TRUE(p[2].condition.has_value());
  EXPECT_EQ(p[2].condition->parent, "kernel");  // kind=svm lacks it too.
  EXPECT_THAT(p[2].condition->categorical_values, ElementsAre("rbf"));
  ASSERT_TRUE(p[3].condition.has_value());
  EXPECT_EQ(p[3].condition->parent, "kind");
  // The trial's own view: kind=rf activates depth only.
  std::vector<bool> active = tree->ActiveMask(trials[2].parameters);
  EXPECT_THAT(active, ElementsAre(true, false, false, true));
}

TEST(InferBranchesTest, AnIntegerParentTakesItsValues) {
  SearchSpace space({{.name = "layers",
                      .type = ParameterType::kInteger,
                      .min_value = 1,
                      .max_value = 3,
                      .scale = ScaleType::kLinear,
                      .first_trial = 1},
                     Double("units_3", 2)});
  std::optional<SearchSpace> tree = InferBranches(
      space,
      {Ended(1, {{"layers", ParameterValue::Integer(1)}}),
       Ended(2, {{"layers", ParameterValue::Integer(3)}, {"units_3", D(0.5)}}),
       Ended(3, {{"layers", ParameterValue::Integer(2)}})});
  ASSERT_TRUE(tree.has_value());
  ASSERT_TRUE(tree->parameters()[1].condition.has_value());
  EXPECT_THAT(tree->parameters()[1].condition->int_values, ElementsAre(3));
}

TEST(InferBranchesTest, AParameterAddedToTheCodeLaterIsNoBranch) {
  // Every trial since lr joined has it; trials before lacked it.
  SearchSpace space({Categorical("kind", {"a", "b"}, 1), Double("lr", 3)});
  EXPECT_FALSE(
      InferBranches(space,
                    {Ended(1, {{"kind", C("a")}}), Ended(2, {{"kind", C("a")}}),
                     Ended(3, {{"kind", C("b")}, {"lr", D(0.1)}})})
          .has_value());
}

TEST(InferBranchesTest, TrialsThatDidNotLeaveOutTheirBranchesDecide) {
  std::vector<Trial> trials = ModelChoiceTrials();
  // A failed trial kept every root the designer proposed, and an
  // infeasible one may have raised before its branch: not evidence.
  trials.push_back(Ended(6, {{"kind", C("svm")}}, TrialState::kInfeasible));
  trials.push_back(Ended(7,
                         {{"kind", C("lr")},
                          {"svm_c", D(0.6)},
                          {"rf_depth", D(0.6)},
                          {"lr_c", D(0.6)}},
                         TrialState::kFailed));
  std::optional<SearchSpace> tree = InferBranches(ModelChoice(), trials);
  ASSERT_TRUE(tree.has_value());
  EXPECT_TRUE(tree->parameters()[1].condition.has_value());
  // A completed one that read every parameter (it suggested none) says
  // svm_c and rf_depth are no branch's alone; lr_c is still lr's.
  trials.back().state = TrialState::kSucceeded;
  tree = InferBranches(ModelChoice(), trials);
  ASSERT_TRUE(tree.has_value());
  EXPECT_FALSE(tree->parameters()[1].condition.has_value());
  EXPECT_FALSE(tree->parameters()[2].condition.has_value());
  EXPECT_TRUE(tree->parameters()[3].condition.has_value());
}

TEST(InferBranchesTest, ASpaceWithoutJoinedParametersIsLeftAsItIs) {
  SearchSpace space({Categorical("kind", {"a", "b"}, 0), Double("x", 0)});
  EXPECT_FALSE(InferBranches(space, {Ended(1, {{"kind", C("a")}})}));
  EXPECT_FALSE(InferBranches(ModelChoice(), {}));
}

TEST(KeepActiveParametersTest, DropsWhatTheTreeMakesInactive) {
  std::optional<SearchSpace> tree =
      InferBranches(ModelChoice(), ModelChoiceTrials());
  ASSERT_TRUE(tree.has_value());
  std::vector<Trial> pending = {Ended(6,
                                      {{"kind", C("rf")},
                                       {"svm_c", D(0.6)},
                                       {"rf_depth", D(0.6)},
                                       {"lr_c", D(0.6)}},
                                      TrialState::kActive)};
  KeepActiveParameters(*tree, pending);
  ParameterAssignment expected = {{"kind", C("rf")}, {"rf_depth", D(0.6)}};
  EXPECT_EQ(pending[0].parameters, expected);
}

}  // namespace
}  // namespace hptune::algorithms
