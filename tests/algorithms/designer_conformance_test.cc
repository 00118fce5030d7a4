// The Designer contract (hptune/algorithms/designer.h), run over every
// designer the registry knows: suggestions lie inside the space with the
// parameters' types, follow log scales, never repeat a completed or pending
// trial, are deterministic for a seed, come in batches, and continue the same
// after a restart (a fresh designer restored from the saved state suggests
// what the same object would have). Each study is driven the way the engine
// drives it: per round a designer restored from the last saved state, given
// the history, asked for a batch whose trials then complete.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/registry.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusHasCode;

// What a designer promises beyond the contract every designer keeps.
struct Traits {
  bool takes_doubles = true;  // GRID_SEARCH needs a finite space.
  bool seeded = true;         // GRID_SEARCH has no randomness.
  // How the origins of a model's suggestions begin, for a designer that
  // seeds a model first: the drives below must reach the model.
  std::string model_origin;
};

// Every built-in designer must be listed here (checked below), so a new one
// cannot skip the suite.
const std::map<std::string, Traits>& KnownTraits() {
  static const auto* traits = new std::map<std::string, Traits>{
      {"ALGORITHM_UNSPECIFIED", {.model_origin = "gp-"}},
      {"GRID_SEARCH", {.takes_doubles = false, .seeded = false}},
      {"RANDOM_SEARCH", {}},
      {"QUASI_RANDOM_SEARCH", {}},
      {"MULTI_FIDELITY_GP", {.model_origin = "gp-"}},
  };
  return *traits;
}

// Every parameter type, and both log scales.
SearchSpace MixedSpace() {
  return SearchSpace(
      {DoubleParam("lr", 1e-4, 1, ScaleType::kLog),
       DoubleParam("momentum", 0.5, 0.999, ScaleType::kReverseLog),
       DoubleParam("x", -2, 6), IntegerParam("units", 1, 100),
       DiscreteParam("layers", {1, 2, 4, 8}),
       CategoricalParam("cell", {"gru", "lstm", "rnn"})});
}

// 5 x 3 x 2 = 30 points.
SearchSpace FiniteSpace() {
  return SearchSpace({IntegerParam("units", 1, 5),
                      DiscreteParam("layers", {1, 2, 4}),
                      CategoricalParam("cell", {"gru", "lstm"})});
}

// A value to minimise, defined on both spaces.
double Loss(const ParameterAssignment& a) {
  double loss = a.at("cell").AsString() == "lstm" ? 0 : 1;
  loss += std::abs(static_cast<double>(a.at("units").AsInteger()) - 3) / 10;
  loss += std::abs(std::log2(a.at("layers").AsDouble()) - 1);
  if (a.contains("lr")) {
    loss += std::pow(std::log10(a.at("lr").AsDouble()) + 2, 2);
    loss += std::pow(a.at("x").AsDouble() - 1, 2) / 10;
  }
  return loss;
}

std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a) {
    absl::StrAppend(&key, name, "=", value.ToString(), ";");
  }
  return key;
}

class DesignerConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  const Traits& traits() const { return KnownTraits().at(GetParam()); }

  // The space the designer is held to: every type when it takes doubles.
  SearchSpace Space() const {
    return traits().takes_doubles ? MixedSpace() : FiniteSpace();
  }

  StudySpec Spec(const SearchSpace& space) const {
    StudySpec spec;
    spec.search_space = space;
    spec.SetSingleMetric("loss", Goal::kMinimize);
    spec.algorithm = *ParseAlgorithm(GetParam());
    return spec;
  }

  std::unique_ptr<Designer> Make(const SearchSpace& space,
                                 uint64_t seed) const {
    const StudySpec spec = Spec(space);
    auto designer = registry_.Create(spec, spec, spec.max_trials, seed);
    EXPECT_OK(designer);
    return designer.ok() ? *std::move(designer) : nullptr;
  }

  // `rounds` rounds of `batch` suggestions each, completed at once with
  // Loss. A fresh designer restored from the saved state per round, or one
  // object throughout when `reuse`. Every suggestion, in order.
  std::vector<Suggestion> Drive(const SearchSpace& space, uint64_t seed,
                                int rounds, int batch, bool reuse = false) {
    std::vector<Suggestion> all;
    std::vector<Trial> completed;
    std::string state;
    std::unique_ptr<Designer> kept;
    for (int round = 0; round < rounds; ++round) {
      std::unique_ptr<Designer> fresh;
      Designer* designer = kept.get();
      if (designer == nullptr) {
        fresh = Make(space, seed);
        if (fresh == nullptr) return all;
        EXPECT_OK(fresh->RestoreState(state)) << state;
        designer = fresh.get();
      }
      EXPECT_OK(designer->Update(completed, {}));
      auto suggestions = designer->Suggest(batch);
      EXPECT_OK(suggestions);
      if (!suggestions.ok() || suggestions->empty()) break;
      state = designer->SaveState();
      if (reuse && kept == nullptr) kept = std::move(fresh);
      for (const Suggestion& s : *suggestions) {
        Trial t = TrialAt(s.parameters);
        t.number = static_cast<int64_t>(completed.size()) + 1;
        t.final_measurement =
            Measurement{.step = 1, .metrics = {{"loss", Loss(s.parameters)}}};
        completed.push_back(std::move(t));
        all.push_back(s);
      }
    }
    return all;
  }

  const DesignerRegistry registry_ = DesignerRegistry::WithBuiltins();
};

TEST(DesignerConformanceSuiteTest, CoversEveryRegisteredDesigner) {
  for (const std::string& name : DesignerRegistry::WithBuiltins().Names()) {
    EXPECT_TRUE(KnownTraits().contains(name)) << name << " has no traits";
  }
}

TEST_P(DesignerConformanceTest, SuggestionsAreInTheSpaceWithTheirTypes) {
  const SearchSpace space = Space();
  // Sequential rounds, then batches: past the GP's seeding into its model.
  std::vector<Suggestion> all = Drive(space, 1, 25, 1);
  ASSERT_FALSE(all.empty());
  for (const Suggestion& s : all) {
    EXPECT_OK(space.CheckAssignment(s.parameters))
        << s.origin << ": " << space.CheckAssignment(s.parameters);
    EXPECT_FALSE(s.origin.empty());
  }
  for (const Suggestion& s : Drive(space, 2, 6, 4)) {
    EXPECT_OK(space.CheckAssignment(s.parameters)) << s.origin;
  }
  if (!traits().model_origin.empty()) {
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Suggestion& s) {
      return s.origin.starts_with(traits().model_origin);
    })) << "the drive never reached the model";
  }
}

TEST_P(DesignerConformanceTest, LogScalesSpreadOverTheDecades) {
  if (!traits().takes_doubles) GTEST_SKIP() << "no DOUBLE parameters";
  // Before any result is known a designer explores: on a log scale half its
  // points lie below the geometric middle of [1e-4, 1], 1e-2 (a linear
  // spread puts 1% there); on a reverse-log scale half lie above the
  // mirrored middle of [0.5, 0.999].
  const std::vector<Suggestion> first = *Make(MixedSpace(), 3)->Suggest(16);
  ASSERT_EQ(first.size(), 16u);
  const double mirrored_middle = 0.5 + 0.999 - std::sqrt(0.5 * 0.999);
  int low_lr = 0, high_momentum = 0;
  for (const Suggestion& s : first) {
    low_lr += s.parameters.at("lr").AsDouble() < 1e-2;
    high_momentum += s.parameters.at("momentum").AsDouble() > mirrored_middle;
  }
  EXPECT_GE(low_lr, 4);
  EXPECT_GE(high_momentum, 4);
}

TEST_P(DesignerConformanceTest, NeverRepeatsCompletedOrPendingTrials) {
  const SearchSpace space = FiniteSpace();
  auto grid = FiniteGrid::Create(space);
  ASSERT_OK(grid);
  // Ten ended trials in every terminal state, five pending ones.
  std::vector<Trial> completed, active;
  const TrialState ended[] = {TrialState::kSucceeded, TrialState::kInfeasible,
                              TrialState::kFailed, TrialState::kCancelled};
  for (int i = 0; i < 10; ++i) {
    Trial t = TrialAt(grid->At(3 * i), ended[i % 4]);
    t.number = i + 1;
    if (t.state == TrialState::kSucceeded) {
      t.final_measurement =
          Measurement{.step = 1, .metrics = {{"loss", Loss(t.parameters)}}};
    }
    completed.push_back(std::move(t));
  }
  const TrialState pending[] = {TrialState::kActive, TrialState::kRequested,
                                TrialState::kStopping};
  for (int i = 0; i < 5; ++i) {
    Trial t = TrialAt(grid->At(3 * i + 1), pending[i % 3]);
    t.number = 11 + i;
    active.push_back(std::move(t));
  }
  auto designer = Make(space, 4);
  ASSERT_OK(designer->Update(completed, active));
  auto suggestions = designer->Suggest(10);
  ASSERT_OK(suggestions);
  EXPECT_EQ(suggestions->size(), 10u);
  AssignmentSet used = AssignmentSet::FromTrials(completed, active);
  for (const Suggestion& s : *suggestions) {
    EXPECT_TRUE(used.Insert(s.parameters)) << "repeated " << Key(s.parameters);
  }
}

TEST_P(DesignerConformanceTest, AFiniteSpaceIsExhaustedAfterEveryPoint) {
  const std::vector<Suggestion> all = Drive(FiniteSpace(), 5, 40, 3);
  EXPECT_EQ(all.size(), 30u);
  AssignmentSet distinct;
  for (const Suggestion& s : all) {
    EXPECT_TRUE(distinct.Insert(s.parameters)) << Key(s.parameters);
  }
}

TEST_P(DesignerConformanceTest, DeterministicForASeed) {
  const SearchSpace space = Space();
  const std::vector<Suggestion> a = Drive(space, 7, 22, 2);
  const std::vector<Suggestion> b = Drive(space, 7, 22, 2);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].parameters, b[i].parameters) << i;
    EXPECT_EQ(a[i].origin, b[i].origin) << i;
  }
  if (!traits().seeded) return;
  const std::vector<Suggestion> other = Drive(space, 8, 22, 2);
  bool differs = false;
  for (size_t i = 0; i < a.size() && i < other.size(); ++i) {
    differs |= a[i].parameters != other[i].parameters;
  }
  EXPECT_TRUE(differs) << "the seed changes nothing";
}

TEST_P(DesignerConformanceTest, BatchesHoldDistinctPointsAndCountsAreChecked) {
  const SearchSpace space = Space();
  auto designer = Make(space, 9);
  EXPECT_TRUE(designer->Suggest(0)->empty());
  EXPECT_THAT(designer->Suggest(-1),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  // Batches of 5 before and after the history has results.
  for (const std::vector<Suggestion>& batch :
       {*Make(space, 9)->Suggest(5), Drive(space, 9, 5, 5)}) {
    AssignmentSet distinct;
    for (const Suggestion& s : batch) {
      EXPECT_TRUE(distinct.Insert(s.parameters)) << Key(s.parameters);
    }
  }
  EXPECT_EQ(Drive(space, 9, 5, 5).size(), 25u);
}

TEST_P(DesignerConformanceTest, ARestoredDesignerContinuesAsTheSameObject) {
  const SearchSpace space = Space();
  const std::vector<Suggestion> restored = Drive(space, 11, 24, 1);
  const std::vector<Suggestion> kept = Drive(space, 11, 24, 1, /*reuse=*/true);
  ASSERT_EQ(restored.size(), kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(restored[i].parameters, kept[i].parameters) << i;
    EXPECT_EQ(restored[i].origin, kept[i].origin) << i;
  }
}

TEST_P(DesignerConformanceTest, RestoreRefusesForeignStateAndAcceptsNone) {
  auto designer = Make(Space(), 1);
  EXPECT_THAT(designer->RestoreState("no designer saved this"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  auto fresh = Make(Space(), 1);
  EXPECT_OK(fresh->RestoreState(""));
  EXPECT_EQ(Key(fresh->Suggest(1)->at(0).parameters),
            Key(Make(Space(), 1)->Suggest(1)->at(0).parameters));
}

INSTANTIATE_TEST_SUITE_P(
    EveryRegisteredDesigner, DesignerConformanceTest,
    ::testing::ValuesIn(DesignerRegistry::WithBuiltins().Names()),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hptune::algorithms
