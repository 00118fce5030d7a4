#include "hptune/algorithms/registry.h"

#include <set>
#include <string>
#include <vector>

#include "algorithms/gp/gp_designer.h"
#include "algorithms/grid/grid_designer.h"
#include "algorithms/sampling/sampling_designer.h"
#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;

StudySpec Study(Algorithm algorithm, SearchSpace space) {
  StudySpec spec;
  spec.algorithm = algorithm;
  spec.search_space = std::move(space);
  return spec;
}

SearchSpace FiniteSpace() {
  return SearchSpace(
      {IntegerParam("k", 1, 3), CategoricalParam("c", {"a", "b"})});
}

TEST(RegistryTest, EachAlgorithmGetsItsDesigner) {
  auto grid = CreateDesigner(Study(Algorithm::kGridSearch, FiniteSpace()), 1);
  ASSERT_OK(grid);
  EXPECT_NE(dynamic_cast<GridDesigner*>(grid->get()), nullptr);

  auto random =
      CreateDesigner(Study(Algorithm::kRandomSearch, FiniteSpace()), 1);
  ASSERT_OK(random);
  EXPECT_NE(dynamic_cast<SamplingDesigner*>(random->get()), nullptr);
  EXPECT_EQ((*random)->SaveState(), "random:draws=0");

  auto halton =
      CreateDesigner(Study(Algorithm::kQuasiRandomSearch, FiniteSpace()), 1);
  ASSERT_OK(halton);
  EXPECT_NE(dynamic_cast<SamplingDesigner*>(halton->get()), nullptr);
  EXPECT_EQ((*halton)->SaveState(), "halton:index=0");
}

TEST(RegistryTest, UnspecifiedIsGaussianProcessBayesianOptimisation) {
  auto designer =
      CreateDesigner(Study(Algorithm::kUnspecified, FiniteSpace()), 1);
  ASSERT_OK(designer);
  EXPECT_NE(dynamic_cast<gp::GpDesigner*>(designer->get()), nullptr);
}

TEST(RegistryTest, UnspecifiedContinuesAStudyBegunUnderQuasiRandomSearch) {
  // Before the GP designer, ALGORITHM_UNSPECIFIED studies saved Halton
  // states; they must keep working.
  auto designer =
      CreateDesigner(Study(Algorithm::kUnspecified, FiniteSpace()), 1);
  ASSERT_OK(designer);
  EXPECT_OK((*designer)->RestoreState("halton:index=3"));
  EXPECT_NE((*designer)->SaveState().find("halton=3"), std::string::npos);
}

TEST(RegistryTest, GridSearchWithADoubleNamesTheParameter) {
  auto designer = CreateDesigner(
      Study(Algorithm::kGridSearch,
            SearchSpace({IntegerParam("k", 1, 3), DoubleParam("lr", 0, 1)})),
      1);
  EXPECT_THAT(designer, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(std::string(designer.status().message())
                .find("parameter \"lr\" is DOUBLE"),
            std::string::npos);
}

TEST(RegistryTest, SeedIsPassedOn) {
  SearchSpace space({DoubleParam("x", 0, 1)});
  auto a = CreateDesigner(Study(Algorithm::kRandomSearch, space), 7);
  auto b = CreateDesigner(Study(Algorithm::kRandomSearch, space), 7);
  auto c = CreateDesigner(Study(Algorithm::kRandomSearch, space), 8);
  auto x = (*a)->Suggest(1)->at(0).parameters;
  EXPECT_EQ(x, (*b)->Suggest(1)->at(0).parameters);
  EXPECT_NE(x, (*c)->Suggest(1)->at(0).parameters);
}

TEST(RegistryTest, InvalidSpaceIsRefusedForEveryAlgorithm) {
  SearchSpace bad({IntegerParam("k", 0, 10, ScaleType::kLog)});
  for (Algorithm algorithm :
       {Algorithm::kUnspecified, Algorithm::kGridSearch,
        Algorithm::kRandomSearch, Algorithm::kQuasiRandomSearch,
        Algorithm::kMultiFidelityGp}) {
    auto designer = CreateDesigner(Study(algorithm, bad), 1);
    EXPECT_THAT(
        designer,
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "parameter \"k\": UNIT_LOG_SCALE needs a strictly positive "
                 "range, got minimum 0"))
        << ToString(algorithm);
  }
}

TEST(RegistryTest, BuiltinsAreRegisteredUnderAiPlatformsNames) {
  EXPECT_TRUE(DesignerRegistry().Names().empty());
  EXPECT_EQ(DesignerRegistry::WithBuiltins().Names(),
            (std::vector<std::string>{"ALGORITHM_UNSPECIFIED", "GRID_SEARCH",
                                      "MULTI_FIDELITY_GP",
                                      "QUASI_RANDOM_SEARCH", "RANDOM_SEARCH"}));
  DesignerRegistry twice = DesignerRegistry::WithBuiltins();
  EXPECT_TRUE(absl::IsAlreadyExists(twice.RegisterBuiltins()));
}

TEST(RegistryTest, RegisterRefusesAnEmptyNameAnEmptyFactoryAndATakenName) {
  DesignerRegistry registry = DesignerRegistry::WithBuiltins();
  DesignerFactory grid = [](const Problem& problem,
                            const DesignerOptions& options, uint64_t seed) {
    return DesignerRegistry::WithBuiltins().Create(
        problem, DesignerSettings{.algorithm = Algorithm::kGridSearch},
        options.trial_budget, seed);
  };
  EXPECT_TRUE(absl::IsInvalidArgument(registry.Register("", grid)));
  EXPECT_TRUE(absl::IsInvalidArgument(registry.Register("MINE", nullptr)));
  EXPECT_TRUE(absl::IsAlreadyExists(registry.Register("GRID_SEARCH", grid)));
  EXPECT_OK(registry.Register("MINE", grid));
  EXPECT_TRUE(registry.Contains("MINE"));
  EXPECT_FALSE(registry.Contains("mine"));
}

TEST(RegistryTest, ACustomAlgorithmIsLookedUpByItsName) {
  DesignerRegistry registry;
  uint64_t seen_seed = 0;
  DesignerOptions seen_options;
  ASSERT_OK(registry.Register(
      "MINE", [&](const Problem& problem, const DesignerOptions& options,
                  uint64_t seed) {
        seen_seed = seed;
        seen_options = options;
        return DesignerRegistry::WithBuiltins().Create(
            problem, DesignerSettings{.algorithm = Algorithm::kRandomSearch},
            options.trial_budget, seed);
      }));
  StudySpec spec = Study(Algorithm::kUnspecified, FiniteSpace());
  spec.custom_algorithm = "MINE";
  spec.seeding_trials = 4;
  EXPECT_EQ(DesignerName(spec), "MINE");
  auto designer = registry.Create(spec, spec, 12, 9);
  ASSERT_OK(designer);
  EXPECT_EQ(seen_seed, 9u);
  // The designer is told its settings and the study's trial budget.
  EXPECT_EQ(seen_options.seeding_trials, 4);
  EXPECT_EQ(seen_options.trial_budget, 12);

  spec.custom_algorithm.clear();
  EXPECT_EQ(DesignerName(spec), "ALGORITHM_UNSPECIFIED");
  auto missing = registry.Create(spec, spec, 12, 9);
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  EXPECT_EQ(std::string(missing.status().message()),
            "algorithm \"ALGORITHM_UNSPECIFIED\" is not registered with "
            "this engine; registered: MINE");
}

// A parameter that joins a study later: a seeded draw from its prior.
TEST(DrawJoiningValueTest, IsSeededByStudyTrialAndNameAndFeasible) {
  const ParameterSpec rate = DoubleParam("rate", 1e-4, 1, ScaleType::kLog);
  const ParameterSpec cell = CategoricalParam("cell", {"gru", "lstm"});
  EXPECT_EQ(DrawJoiningValue(rate, 11, 3), DrawJoiningValue(rate, 11, 3));
  EXPECT_NE(DrawJoiningValue(rate, 11, 3), DrawJoiningValue(rate, 11, 4));
  EXPECT_NE(DrawJoiningValue(rate, 11, 3), DrawJoiningValue(rate, 12, 3));
  ParameterSpec renamed = rate;
  renamed.name = "rate2";
  EXPECT_NE(DrawJoiningValue(rate, 11, 3), DrawJoiningValue(renamed, 11, 3));
  // Log-uniform: about half the draws below the geometric middle 1e-2.
  int below = 0;
  std::set<std::string> cells;
  for (int trial = 1; trial <= 400; ++trial) {
    const double v = DrawJoiningValue(rate, 5, trial).AsDouble();
    ASSERT_GE(v, 1e-4);
    ASSERT_LE(v, 1);
    below += v < 1e-2;
    cells.insert(DrawJoiningValue(cell, 5, trial).AsString());
  }
  EXPECT_GT(below, 150);
  EXPECT_LT(below, 250);
  EXPECT_EQ(cells, (std::set<std::string>{"gru", "lstm"}));
}

}  // namespace
}  // namespace hptune::algorithms
