// Conditional search spaces in the sampling designers and the finite grid:
// over random trees, every suggestion holds exactly its active parameters,
// the grid enumerates each active combination once, and random search
// reaches every branch.
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/encoding/unit_cube.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/registry.h"
#include "tests/algorithms/random_trees.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune::algorithms::testing::RandomTreeBuilder;
using ::hptune::algorithms::testing::TrialAt;

std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a) {
    absl::StrAppend(&key, name, "=", value.ToString(), ";");
  }
  return key;
}

// Every value of a finite parameter, in order.
std::vector<ParameterValue> ValuesOf(const ParameterSpec& spec) {
  std::vector<ParameterValue> values;
  switch (spec.type) {
    case ParameterType::kInteger:
      for (auto v = static_cast<int64_t>(spec.min_value);
           v <= static_cast<int64_t>(spec.max_value); ++v) {
        values.push_back(ParameterValue::Integer(v));
      }
      break;
    case ParameterType::kDiscrete:
      for (double v : spec.discrete_values) {
        values.push_back(ParameterValue::Double(v));
      }
      break;
    case ParameterType::kCategorical:
      for (const auto& v : spec.categorical_values) {
        values.push_back(ParameterValue::Categorical(v));
      }
      break;
    case ParameterType::kDouble:
      break;
  }
  return values;
}

// Every active combination of a finite space, by brute force: the
// parameters in order, branching on the values of each active one.
std::set<std::string> AllActiveCombinations(const SearchSpace& space) {
  std::set<std::string> keys;
  const auto& params = space.parameters();
  std::function<void(size_t, ParameterAssignment&)> walk =
      [&](size_t i, ParameterAssignment& partial) {
        if (i == params.size()) {
          keys.insert(Key(partial));
          return;
        }
        const ParameterSpec& spec = params[i];
        bool active = !spec.condition;
        if (spec.condition) {
          auto parent = partial.find(spec.condition->parent);
          active = parent != partial.end() &&
                   spec.condition->Matches(parent->second);
        }
        if (!active) return walk(i + 1, partial);
        for (const ParameterValue& v : ValuesOf(spec)) {
          partial[spec.name] = v;
          walk(i + 1, partial);
          partial.erase(spec.name);
        }
      };
  ParameterAssignment partial;
  walk(0, partial);
  return keys;
}

TEST(ConditionalGridTest, EnumeratesEachActiveCombinationOnce) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    const SearchSpace space =
        RandomTreeBuilder(seed, {.doubles = false}).Build();
    ASSERT_OK(ValidateForEncoding(space));
    auto grid = FiniteGrid::Create(space);
    ASSERT_OK(grid);
    if (grid->size() > 5000) continue;  // Brute force would take too long.
    ++checked;
    const std::set<std::string> expected = AllActiveCombinations(space);
    ASSERT_EQ(grid->size(), static_cast<int64_t>(expected.size()))
        << "seed " << seed;
    std::set<std::string> seen;
    for (int64_t i = 0; i < grid->size(); ++i) {
      const ParameterAssignment point = grid->At(i);
      EXPECT_OK(space.CheckAssignment(point)) << "seed " << seed;
      EXPECT_TRUE(seen.insert(Key(point)).second)
          << "seed " << seed << " repeats " << Key(point);
    }
    EXPECT_EQ(seen, expected) << "seed " << seed;
  }
  EXPECT_GE(checked, 50);
}

TEST(ConditionalGridTest, IntegerParentWithAWideRangeCountsWithoutWalkingIt) {
  // 2^40 + 1 values, of which one activates a child of three: the grid
  // counts the others as one point each.
  ParameterSpec child = CategoricalParam("c", {"a", "b", "c"});
  child.condition = ParentCondition{.parent = "n", .int_values = {7}};
  const SearchSpace space({IntegerParam("n", 0, int64_t{1} << 40), child});
  auto grid = FiniteGrid::Create(space);
  ASSERT_OK(grid);
  EXPECT_EQ(grid->size(), (int64_t{1} << 40) + 1 + 2);
  EXPECT_EQ(grid->At(7).size(), 2u);
  EXPECT_EQ(grid->At(9).at("n").AsInteger(), 7);
  EXPECT_EQ(grid->At(10).at("n").AsInteger(), 8);
  EXPECT_EQ(grid->At(10).size(), 1u);
}

TEST(ConditionalEncodingTest, AChildComesAfterItsParentAndNotUnderADouble) {
  ParameterSpec child = DoubleParam("c", 0, 1);
  child.condition = ParentCondition{.parent = "p", .int_values = {1}};
  EXPECT_FALSE(
      ValidateForEncoding(SearchSpace({child, IntegerParam("p", 0, 2)})).ok());
  EXPECT_OK(ValidateForEncoding(SearchSpace({IntegerParam("p", 0, 2), child})));
  child.condition->parent = "x";
  const absl::Status under_double =
      ValidateForEncoding(SearchSpace({DoubleParam("x", 0, 1), child}));
  EXPECT_FALSE(under_double.ok());
  EXPECT_NE(under_double.message().find("DOUBLE"), std::string::npos);
}

TEST(ConditionalEncodingTest, EncodeAssignmentMarksInactiveCoordinates) {
  ParameterSpec momentum = DoubleParam("momentum", 0, 1);
  momentum.condition =
      ParentCondition{.parent = "opt", .categorical_values = {"sgd"}};
  const SearchSpace space({CategoricalParam("opt", {"sgd", "adam"}), momentum});
  auto u =
      EncodeAssignment(space, {{"opt", ParameterValue::Categorical("adam")}});
  ASSERT_OK(u);
  EXPECT_TRUE(std::isnan((*u)[1]));
  EXPECT_FALSE(
      EncodeAssignment(space, {{"opt", ParameterValue::Categorical("sgd")}})
          .ok());
  EXPECT_FALSE(
      EncodeAssignment(space, {{"opt", ParameterValue::Categorical("adam")},
                               {"momentum", ParameterValue::Double(0.5)}})
          .ok());
  // Decoding uses the child's coordinate only in its branch.
  EXPECT_EQ(DecodeAssignment(space, std::vector<double>{0.9, 0.5}).size(), 1u);
  EXPECT_EQ(DecodeAssignment(space, std::vector<double>{0.1, 0.5}).size(), 2u);
}

class ConditionalDesignerTest : public ::testing::TestWithParam<std::string> {
 protected:
  // `rounds` of `batch` suggestions on `space`, each completed, through a
  // designer restored from the saved state per round as the engine does.
  std::vector<Suggestion> Drive(const SearchSpace& space, uint64_t seed,
                                int rounds, int batch) {
    StudySpec spec;
    spec.search_space = space;
    spec.SetSingleMetric("loss", Goal::kMinimize);
    spec.algorithm = *ParseAlgorithm(GetParam());
    std::vector<Suggestion> all;
    std::vector<Trial> completed;
    std::string state;
    for (int round = 0; round < rounds; ++round) {
      auto designer = DesignerRegistry::WithBuiltins().Create(
          spec, spec, spec.max_trials, seed);
      EXPECT_OK(designer);
      if (!designer.ok()) return all;
      EXPECT_OK((*designer)->RestoreState(state));
      EXPECT_OK((*designer)->Update(completed, {}));
      auto suggestions = (*designer)->Suggest(batch);
      EXPECT_OK(suggestions);
      if (!suggestions.ok() || suggestions->empty()) break;
      state = (*designer)->SaveState();
      for (const Suggestion& s : *suggestions) {
        Trial t = TrialAt(s.parameters);
        t.number = static_cast<int64_t>(completed.size()) + 1;
        t.final_measurement = Measurement{
            .step = 1,
            .metrics = {
                {"loss", static_cast<double>(Key(s.parameters).size() % 7)}}};
        completed.push_back(std::move(t));
        all.push_back(s);
      }
    }
    return all;
  }

  bool grid() const { return GetParam() == "GRID_SEARCH"; }
};

TEST_P(ConditionalDesignerTest,
       EverySuggestionHoldsExactlyItsActiveParameters) {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    const SearchSpace space =
        RandomTreeBuilder(seed, {.doubles = !grid()}).Build();
    std::set<std::string> keys;
    for (const Suggestion& s : Drive(space, seed, 6, 4)) {
      EXPECT_OK(space.CheckAssignment(s.parameters))
          << "seed " << seed << ": " << Key(s.parameters);
      keys.insert(Key(s.parameters));
    }
    if (grid()) {
      // The grid is walked without repeats until it runs out.
      const size_t combinations = AllActiveCombinations(space).size();
      EXPECT_EQ(keys.size(), std::min<size_t>(combinations, 24))
          << "seed " << seed;
    }
  }
}

TEST_P(ConditionalDesignerTest, ReachesEveryBranch) {
  // optimizer picks one of two sub-spaces; the adam branch nests a depth-2
  // child under an INTEGER parent.
  ParameterSpec momentum = IntegerParam("momentum_pct", 0, 9);
  momentum.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"sgd"}};
  ParameterSpec warmup = IntegerParam("warmup", 0, 3);
  warmup.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"adam"}};
  ParameterSpec warmup_kind = CategoricalParam("warmup_kind", {"lin", "cos"});
  warmup_kind.condition =
      ParentCondition{.parent = "warmup", .int_values = {1, 2, 3}};
  const SearchSpace space({CategoricalParam("optimizer", {"sgd", "adam"}),
                           momentum, warmup, warmup_kind});
  std::set<std::string> present;
  for (const Suggestion& s : Drive(space, 7, 10, 4)) {
    ASSERT_OK(space.CheckAssignment(s.parameters)) << Key(s.parameters);
    for (const auto& [name, value] : s.parameters) present.insert(name);
  }
  EXPECT_EQ(present, (std::set<std::string>{"optimizer", "momentum_pct",
                                            "warmup", "warmup_kind"}));
}

INSTANTIATE_TEST_SUITE_P(Sampling, ConditionalDesignerTest,
                         ::testing::Values("RANDOM_SEARCH",
                                           "QUASI_RANDOM_SEARCH",
                                           "GRID_SEARCH"));

}  // namespace
}  // namespace hptune::algorithms
