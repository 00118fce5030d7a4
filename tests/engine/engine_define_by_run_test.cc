// TuningEngine::AddTrialParameter: a define-by-run study's space grows by
// the parameters its trials suggest, and its designer goes on with them.
#include <algorithm>
#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/registry.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

ParameterSpec Units() {
  return {.name = "units",
          .type = ParameterType::kDouble,
          .min_value = 0,
          .max_value = 1,
          .scale = ScaleType::kLinear};
}

ParameterSpec Dropout() {
  return {.name = "dropout",
          .type = ParameterType::kDouble,
          .min_value = 0,
          .max_value = 0.5,
          .scale = ScaleType::kLinear};
}

StudySpec OneParameter(Algorithm algorithm = Algorithm::kUnspecified) {
  StudySpec spec;
  spec.search_space = SearchSpace({Units()});
  spec.SetSingleMetric("loss", Goal::kMinimize);
  spec.max_trials = 100;
  spec.max_parallel_trials = 1;
  spec.algorithm = algorithm;
  spec.seed = 7;
  return spec;
}

class DefineByRunTest : public ::testing::Test {
 protected:
  // Suggests and completes `n` trials of a loss in units (and dropout when
  // a trial has it); returns the last trial's number.
  int64_t RunTrials(int n) {
    int64_t last = 0;
    for (int i = 0; i < n; ++i) {
      auto suggested = engine_.SuggestTrials("s", 1, "w");
      EXPECT_OK(suggested);
      if (!suggested.ok() || suggested->trials.empty()) return last;
      const Trial& t = suggested->trials.front();
      double loss = std::pow(t.parameters.at("units").AsDouble() - 0.3, 2);
      if (auto it = t.parameters.find("dropout"); it != t.parameters.end()) {
        loss += std::pow(it->second.AsDouble() - 0.1, 2);
      }
      EXPECT_OK(engine_.CompleteTrial(
          "s", t.number, Measurement{.metrics = {{"loss", loss}}}));
      last = t.number;
    }
    return last;
  }

  // How many hyperparameters the GP's saved state holds (gp_state.h).
  size_t ThetaEntries() {
    absl::StatusOr<std::string> state = store_.GetDesignerState("s");
    EXPECT_OK(state);
    const size_t at = state->find(";theta=");
    if (at == std::string::npos || state->size() == at + 7) return 0;
    return 1 + std::count(state->begin() + at, state->end(), ',');
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, clock_};
};

TEST_F(DefineByRunTest, AJoiningParameterGetsADrawAndTheDesignerGoesOn) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  ASSERT_EQ(RunTrials(15), 15);  // Past seeding: the GP has fitted.
  const size_t one_dimension = ThetaEntries();
  ASSERT_GT(one_dimension, 0u);
  auto next = engine_.SuggestTrials("s", 1, "w");
  ASSERT_OK(next);
  const int64_t number = next->trials.front().number;

  auto grown = engine_.AddTrialParameter("s", number, Dropout());
  ASSERT_OK(grown);
  const double drawn = grown->parameters.at("dropout").AsDouble();
  EXPECT_GE(drawn, 0);
  EXPECT_LE(drawn, 0.5);
  auto study = engine_.GetStudy("s");
  ASSERT_OK(study);
  ASSERT_EQ(study->spec.search_space.parameters().size(), 2u);
  EXPECT_EQ(study->spec.search_space.parameters()[1].first_trial, number);

  // Asked again (a retried call), the trial keeps its value.
  auto again = engine_.AddTrialParameter("s", number, Dropout());
  ASSERT_OK(again);
  EXPECT_EQ(again->parameters.at("dropout").AsDouble(), drawn);
  ASSERT_OK(engine_.CompleteTrial("s", number,
                                  Measurement{.metrics = {{"loss", 1.0}}}));

  // The GP's hyperparameters were fitted in one dimension: it refits in
  // two, and each new trial has the parameter.
  for (int i = 0; i < 5; ++i) {
    auto suggested = engine_.SuggestTrials("s", 1, "w");
    ASSERT_OK(suggested);
    ASSERT_EQ(suggested->trials.size(), 1u) << suggested->note;
    EXPECT_TRUE(suggested->trials.front().parameters.contains("dropout"));
    ASSERT_OK(engine_.CompleteTrial("s", suggested->trials.front().number,
                                    Measurement{.metrics = {{"loss", 0.5}}}));
  }
  EXPECT_EQ(ThetaEntries(), one_dimension + 1);
}

TEST_F(DefineByRunTest, TheDrawIsTheStudysAndTheTrialsNotTheClock) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  auto first = engine_.SuggestTrials("s", 1, "w");
  ASSERT_OK(first);
  auto grown = engine_.AddTrialParameter("s", 1, Dropout());
  ASSERT_OK(grown);
  EXPECT_EQ(grown->parameters.at("dropout"),
            algorithms::DrawJoiningValue(Dropout(), 7, 1));
}

TEST_F(DefineByRunTest, ASpecThatIsNotAJoiningRootIsRefusedNamingTheField) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "w"));
  ParameterSpec bad = Dropout();
  bad.max_value = -1;
  EXPECT_THAT(engine_.AddTrialParameter("s", 1, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.")));
  ParameterSpec other = Units();
  other.max_value = 2;
  EXPECT_THAT(engine_.AddTrialParameter("s", 1, other).status().code(),
              absl::StatusCode::kFailedPrecondition);
  auto study = engine_.GetStudy("s");
  ASSERT_OK(study);
  EXPECT_EQ(study->spec.search_space.parameters().size(), 1u);
}

TEST_F(DefineByRunTest, AGridCannotGrow) {
  StudySpec spec = OneParameter(Algorithm::kGridSearch);
  spec.search_space = SearchSpace({{.name = "units",
                                    .type = ParameterType::kInteger,
                                    .min_value = 1,
                                    .max_value = 3,
                                    .scale = ScaleType::kLinear}});
  ASSERT_OK(engine_.CreateStudy("s", spec));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "w"));
  ParameterSpec depth{.name = "depth",
                      .type = ParameterType::kInteger,
                      .min_value = 1,
                      .max_value = 4,
                      .scale = ScaleType::kLinear};
  EXPECT_THAT(engine_.AddTrialParameter("s", 1, depth),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("GRID_SEARCH enumerates the space")));
}

TEST_F(DefineByRunTest, AnEndedTrialGetsNoParameter) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  ASSERT_EQ(RunTrials(1), 1);
  EXPECT_THAT(engine_.AddTrialParameter("s", 1, Dropout()).status().code(),
              absl::StatusCode::kFailedPrecondition);
}

TEST_F(DefineByRunTest, ABranchNotTakenIsLeftOutOfTheTrial) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "w"));
  ASSERT_OK(engine_.AddTrialParameter("s", 1, Dropout()));
  ASSERT_OK(
      engine_.CompleteTrial("s", 1, Measurement{.metrics = {{"loss", 1.0}}}));
  auto second = engine_.SuggestTrials("s", 1, "w");
  ASSERT_OK(second);
  ASSERT_TRUE(second->trials.front().parameters.contains("dropout"));

  auto left = engine_.LeaveOutUnusedParameters("s", 2, {"dropout"});
  ASSERT_OK(left);
  EXPECT_FALSE(left->parameters.contains("dropout"));
  ASSERT_OK(engine_.LeaveOutUnusedParameters("s", 2, {"dropout"}));  // Again.
  EXPECT_THAT(engine_.LeaveOutUnusedParameters("s", 2, {"dropout", "units"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unused_parameters[1]: \"units\" is a "
                                 "parameter of the study's config")));
  EXPECT_THAT(engine_.LeaveOutUnusedParameters("s", 2, {"depth"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"depth\" is not a parameter")));
  ASSERT_OK(
      engine_.CompleteTrial("s", 2, Measurement{.metrics = {{"loss", 0.5}}}));
  EXPECT_THAT(engine_.LeaveOutUnusedParameters("s", 1, {"dropout"}).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("only a pending trial")));
  // Both trials are the designer's history: it suggests on.
  auto third = engine_.SuggestTrials("s", 1, "w");
  ASSERT_OK(third);
  EXPECT_EQ(third->trials.size(), 1u);
}

ParameterSpec Kind() {
  return {.name = "kind",
          .type = ParameterType::kCategorical,
          .categorical_values = {"a", "b"}};
}

ParameterSpec BranchParameter(const std::string& kind) {
  ParameterSpec spec = Dropout();
  spec.name = kind + "_x";
  return spec;
}

// One trial of a define-by-run objective with a branch per kind, as a
// client runs it: suggests kind, then its branch's parameter, and leaves
// out the other branch's. Returns the trial as the designer proposed it.
Trial RunBranchingTrial(TuningEngine& engine) {
  auto suggested = engine.SuggestTrials("s", 1, "w");
  EXPECT_OK(suggested);
  const Trial proposed = suggested->trials.front();
  Trial t = proposed;
  if (!t.parameters.contains("kind")) {
    t = engine.AddTrialParameter("s", t.number, Kind()).value();
  }
  const std::string kind = t.parameters.at("kind").AsString();
  if (!t.parameters.contains(kind + "_x")) {
    t = engine.AddTrialParameter("s", t.number, BranchParameter(kind)).value();
  }
  const std::string other = kind == "a" ? "b_x" : "a_x";
  if (t.parameters.contains(other)) {
    EXPECT_OK(engine.LeaveOutUnusedParameters("s", t.number, {other}));
  }
  const double x = t.parameters.at(kind + "_x").AsDouble();
  const double loss = (kind == "a" ? 0.0 : 0.2) + std::pow(x - 0.1, 2);
  EXPECT_OK(engine.CompleteTrial("s", t.number,
                                 Measurement{.metrics = {{"loss", loss}}}));
  return proposed;
}

TEST_F(DefineByRunTest, TheDesignerProposesOnlyTheBranchTheKindTakes) {
  ASSERT_OK(engine_.CreateStudy("s", OneParameter()));
  // Until each branch was taken, and then left out by a later trial.
  for (int i = 0; i < 10; ++i) RunBranchingTrial(engine_);
  auto study = engine_.GetStudy("s");
  ASSERT_OK(study);
  ASSERT_NE(study->spec.search_space.Find("a_x"), nullptr);
  ASSERT_NE(study->spec.search_space.Find("b_x"), nullptr);
  // The designer proposes each kind with its own parameter only, past the
  // GP's seeding too.
  for (int i = 0; i < 15; ++i) {
    const Trial t = RunBranchingTrial(engine_);
    ASSERT_TRUE(t.parameters.contains("kind")) << t.number;
    const std::string kind = t.parameters.at("kind").AsString();
    EXPECT_TRUE(t.parameters.contains(kind + "_x")) << t.number;
    EXPECT_FALSE(t.parameters.contains(kind == "a" ? "b_x" : "a_x"))
        << "trial " << t.number << " of kind " << kind;
  }
}

TEST_F(DefineByRunTest, AJobsStudyNeitherGrowsNorLeavesParametersOut) {
  ASSERT_OK(engine_.CreateStudy("job1", OneParameter()));
  ASSERT_OK(store_.CreateJob({.job_id = "job1", .study_name = "job1"}));
  ASSERT_OK(engine_.SuggestTrials("job1", 1, "w"));
  EXPECT_THAT(engine_.AddTrialParameter("job1", 1, Dropout()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("its trainers take the parameters of the "
                                 "job's config")));
  EXPECT_EQ(
      engine_.LeaveOutUnusedParameters("job1", 1, {"units"}).status().code(),
      absl::StatusCode::kFailedPrecondition);
  auto study = engine_.GetStudy("job1");
  ASSERT_OK(study);
  EXPECT_EQ(study->spec.search_space.parameters().size(), 1u);
}

}  // namespace
}  // namespace hptune::engine
