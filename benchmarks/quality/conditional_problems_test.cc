#include "benchmarks/quality/conditional_problems.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/core/study.h"

namespace hptune::quality {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Values at hand-picked points, worked out from the formulas in
// conditional_problems.h (shown). benchmarks/optuna_conditional.py --check
// checks the same points on the Python side.
constexpr double kTolerance = 1e-12;

const TestFunction& Problem(std::string_view name) {
  auto problem = FindConditionalProblem(name);
  EXPECT_TRUE(problem.ok()) << problem.status();
  return **problem;
}

// f at "name=value;..." of `problem`, which must be its active set.
double F(std::string_view problem, std::string_view assignment) {
  const TestFunction& p = Problem(problem);
  auto a = ParseAssignment(p.space, assignment);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(p.space.CheckAssignment(*a).ok()) << p.space.CheckAssignment(*a);
  return p.evaluate(*a);
}

TEST(ConditionalSuiteTest, NamesInOrder) {
  std::vector<std::string> names;
  for (const TestFunction& f : ConditionalSuite()) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("jenatton", "optimizer_choice", "model_tree"));
}

TEST(ConditionalSuiteTest, EverySpaceIsAValidConditionalStudy) {
  for (const TestFunction& f : ConditionalSuite()) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(f.space.IsConditional());
    for (Algorithm algorithm :
         {Algorithm::kUnspecified, Algorithm::kRandomSearch,
          Algorithm::kQuasiRandomSearch}) {
      StudySpec spec;
      spec.search_space = f.space;
      spec.SetSingleMetric(spec.metric_tag(), Goal::kMinimize);
      spec.max_trials = 100;
      spec.algorithm = algorithm;
      std::vector<std::string> errors;
      for (const FieldError& e : ValidateStudySpec(spec, "hyperparameters")) {
        errors.push_back(e.ToString());
      }
      EXPECT_THAT(errors, IsEmpty());
    }
  }
}

TEST(ConditionalSuiteTest, FindRefusesAnUnknownNameAndListsTheKnown) {
  auto missing = FindConditionalProblem("branin");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("jenatton, optimizer_choice, model_tree"));
}

TEST(JenattonTest, OptimumAtTheMinimiser) {
  EXPECT_EQ(Problem("jenatton").optimum, 0.1);
  EXPECT_NEAR(F("jenatton", "x1=0;x2=0;x4=0;r8=0"), 0.1, kTolerance);
}

TEST(JenattonTest, EachLeafAtHandPoints) {
  // x4^2 + 0.1 + r8 = 0.25 + 0.1 + 0.5.
  EXPECT_NEAR(F("jenatton", "x1=0;x2=0;x4=0.5;r8=0.5"), 0.85, kTolerance);
  // x5^2 + 0.2 + r8 = 0.01 + 0.2 + 0.
  EXPECT_NEAR(F("jenatton", "x1=0;x2=1;x5=0.1;r8=0"), 0.21, kTolerance);
  // x6^2 + 0.3 + r9 = 1 + 0.3 + 0.25.
  EXPECT_NEAR(F("jenatton", "x1=1;x3=0;x6=1;r9=0.25"), 1.55, kTolerance);
  // x7^2 + 0.4 + r9 = 0.04 + 0.4 + 1.
  EXPECT_NEAR(F("jenatton", "x1=1;x3=1;x7=0.2;r9=1"), 1.44, kTolerance);
}

TEST(OptimizerChoiceTest, OptimumAtTheMinimiser) {
  EXPECT_EQ(Problem("optimizer_choice").optimum, 0.08);
  EXPECT_NEAR(F("optimizer_choice",
                "optimizer=adam;adam_lr=0.001;adam_beta1=0.9;adam_beta2=0.999"),
              0.08, kTolerance);
}

TEST(OptimizerChoiceTest, EachBranchAtHandPoints) {
  // sgd's best: u = log10(0.1 / 0.1) = 0.
  EXPECT_NEAR(
      F("optimizer_choice", "optimizer=sgd;sgd_lr=0.1;sgd_momentum=0.9"), 0.12,
      kTolerance);
  // u = log10(0.01 / 1) = -2: 0.12 + 0.05 * 4 + 0.2 * 0.81.
  EXPECT_NEAR(F("optimizer_choice", "optimizer=sgd;sgd_lr=0.01;sgd_momentum=0"),
              0.12 + 0.2 + 0.162, kTolerance);
  // 0.08 + 0.05 * 1 + 0.3 * 0.16 + 0.02 * 1 (log10(0.01) + 3 = 1).
  EXPECT_NEAR(F("optimizer_choice",
                "optimizer=adam;adam_lr=0.01;adam_beta1=0.5;adam_beta2=0.99"),
              0.08 + 0.05 + 0.048 + 0.02, 1e-12);
  // rmsprop's best at 10^-3.5, then 0.10 + 0.05 * 0.25 at 1e-3.
  EXPECT_NEAR(F("optimizer_choice",
                "optimizer=rmsprop;rmsprop_lr=0.00031622776601683794"),
              0.10, kTolerance);
  EXPECT_NEAR(F("optimizer_choice", "optimizer=rmsprop;rmsprop_lr=0.001"),
              0.1125, kTolerance);
}

TEST(ModelTreeTest, OptimumAtTheMinimiser) {
  EXPECT_EQ(Problem("model_tree").optimum, 0.15);
  EXPECT_NEAR(F("model_tree",
                "model=tree;booster=dart;drop_rate=0.1;learning_rate=0.1;"
                "max_depth=6;bagging_fraction=0.7;bagging_freq=5"),
              0.15, kTolerance);
}

TEST(ModelTreeTest, EachBranchAtHandPoints) {
  EXPECT_NEAR(F("model_tree", "model=linear;degree=1"), 0.30, kTolerance);
  // 0.22 + 0.02 * (log10(1e-5) + 3)^2 = 0.22 + 0.08.
  EXPECT_NEAR(F("model_tree", "model=linear;degree=2;l2=1e-05"), 0.30,
              kTolerance);
  // 0.24 + 0.03 * (0 + 2)^2.
  EXPECT_NEAR(F("model_tree", "model=linear;degree=3;l2=1"), 0.36, kTolerance);
  // gbdt 0.16 + lr 0.05 * 4 + depth 0.004 * 36 + no bagging 0.01.
  EXPECT_NEAR(F("model_tree",
                "model=tree;booster=gbdt;learning_rate=0.001;max_depth=12;"
                "bagging_fraction=1"),
              0.16 + 0.2 + 0.144 + 0.01, kTolerance);
  // dart 0.15 + 0.4 * 0.16 + 0 + depth 0.004 * 4 + bagging 0.1 * 0.04
  //   + 0.002 * 16.
  EXPECT_NEAR(F("model_tree",
                "model=tree;booster=dart;drop_rate=0.5;learning_rate=0.1;"
                "max_depth=4;bagging_fraction=0.5;bagging_freq=1"),
              0.15 + 0.064 + 0.016 + 0.004 + 0.032, kTolerance);
}

TEST(ModelTreeTest, EveryKindOfParent) {
  std::set<ParameterType> parents;
  const SearchSpace& space = Problem("model_tree").space;
  for (int i = 0; i < static_cast<int>(space.parameters().size()); ++i) {
    if (space.ParentIndex(i) >= 0) {
      parents.insert(space.parameters()[space.ParentIndex(i)].type);
    }
  }
  EXPECT_THAT(parents,
              ElementsAre(ParameterType::kInteger, ParameterType::kDiscrete,
                          ParameterType::kCategorical));
}

TEST(ConditionalProblemsDeathTest, RefusesAMissingOrInactiveParameter) {
  const TestFunction& jenatton = Problem("jenatton");
  // r8 missing.
  ParameterAssignment missing =
      *ParseAssignment(jenatton.space, "x1=0;x2=0;x4=0");
  EXPECT_DEATH(jenatton.evaluate(missing), "not its active set");
  // x5 is inactive with x2 = 0.
  ParameterAssignment extra =
      *ParseAssignment(jenatton.space, "x1=0;x2=0;x4=0;r8=0;x5=0.5");
  EXPECT_DEATH(jenatton.evaluate(extra), "not its active set");
  const TestFunction& tree = Problem("model_tree");
  // bagging_freq is inactive without bagging.
  ParameterAssignment no_bagging =
      *ParseAssignment(tree.space,
                       "model=tree;booster=gbdt;learning_rate=0.1;max_depth=6;"
                       "bagging_fraction=1;bagging_freq=5");
  EXPECT_DEATH(tree.evaluate(no_bagging), "not its active set");
}

TEST(ParseAssignmentTest, ReadsEachTypeAsItsParameterSays) {
  const SearchSpace& space = Problem("model_tree").space;
  auto a = ParseAssignment(
      space, "model=tree;max_depth=6;bagging_fraction=0.7;learning_rate=1e-3");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->at("model"), ParameterValue::Categorical("tree"));
  EXPECT_EQ(a->at("max_depth"), ParameterValue::Integer(6));
  EXPECT_EQ(a->at("bagging_fraction"), ParameterValue::Double(0.7));
  EXPECT_EQ(a->at("learning_rate"), ParameterValue::Double(1e-3));
  EXPECT_TRUE(ParseAssignment(space, "")->empty());
}

TEST(ParseAssignmentTest, RefusesBadItems) {
  const SearchSpace& space = Problem("model_tree").space;
  EXPECT_THAT(ParseAssignment(space, "model").status().message(),
              HasSubstr("expected name=value"));
  EXPECT_THAT(ParseAssignment(space, "size=3").status().message(),
              HasSubstr("no parameter is named \"size\""));
  EXPECT_THAT(ParseAssignment(space, "max_depth=6.5").status().message(),
              HasSubstr("not an integer"));
  EXPECT_THAT(ParseAssignment(space, "learning_rate=x").status().message(),
              HasSubstr("not a number"));
  EXPECT_THAT(
      ParseAssignment(space, "model=tree;model=linear").status().message(),
      HasSubstr("given twice"));
}

}  // namespace
}  // namespace hptune::quality
