#include "algorithms/gp/multi_fidelity_designer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "algorithms/gp/curve_model.h"
#include "algorithms/gp/gp_designer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/status.h"
#include "tests/algorithms/gp/designer_options.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusIs;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kMetric[] = "loss";
constexpr int kSteps = 27;

// The loss of x after s steps: curves that fall as 1/s towards
// (x - 0.3)^2, so that they cross nowhere and rank alike at every step.
double Loss(double x, int s) { return (x - 0.3) * (x - 0.3) + 1.0 / s; }

// Trial `number` at x, trained for `steps` steps (stopped early when fewer
// than kSteps), its final measurement the last report.
Trial Trained(int64_t number, double x, int steps) {
  Trial t = TrialAt({{"x", ParameterValue::Double(x)}});
  t.number = number;
  t.end_time = Timestamp{} + std::chrono::seconds(number);
  for (int s = 1; s <= steps; ++s) {
    t.measurements.push_back(
        Measurement{.step = s, .metrics = {{kMetric, Loss(x, s)}}});
  }
  t.final_measurement = t.measurements.back();
  t.stopped_early = steps < kSteps;
  return t;
}

// x of trial i: the golden-ratio sequence, spread over [0, 1).
double X(int i) { return std::fmod(i * 0.6180339887, 1.0); }

// `count` trials; those in `stopped` ran 3 steps, the others kSteps.
std::vector<Trial> Study(int count, const std::vector<int>& stopped) {
  std::vector<Trial> trials;
  for (int i = 1; i <= count; ++i) {
    const bool stops =
        std::find(stopped.begin(), stopped.end(), i) != stopped.end();
    trials.push_back(Trained(i, X(i), stops ? 3 : kSteps));
  }
  return trials;
}

StudySpec Spec() {
  StudySpec spec;
  spec.search_space = SearchSpace({DoubleParam("x", 0, 1)});
  spec.SetSingleMetric(kMetric, Goal::kMinimize);
  spec.max_trials = 30;
  return spec;
}

// The forecasts of a first call (no saved fit).
absl::StatusOr<std::vector<Trial>> Forecast(const Problem& problem,
                                            const std::vector<Trial>& trials,
                                            uint64_t seed) {
  GpState fit;
  return ForecastStoppedTrials(problem, trials, seed, fit);
}

double Final(const Trial& t) { return *t.FinalObjective(kMetric); }

TEST(ForecastStoppedTrialsTest, TrialsNoRuleStoppedAreReadAsTheyAre) {
  const std::vector<Trial> trials = Study(10, {});
  auto read = Forecast(Spec(), trials, 1);
  ASSERT_OK(read);
  EXPECT_EQ(*read, trials);
}

TEST(ForecastStoppedTrialsTest, AStoppedTrialIsReadAtItsForecastFinalValue) {
  const std::vector<int> stopped = {2, 4, 6, 8, 10, 12};
  const std::vector<Trial> trials = Study(14, stopped);
  auto read = Forecast(Spec(), trials, 1);
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), trials.size());
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& before = trials[i];
    const Trial& after = (*read)[i];
    if (!before.stopped_early) {
      EXPECT_EQ(after, before);
      continue;
    }
    // Its last value, 1/3 above its floor, is 1/27 above it at the end:
    // the forecast must close at least half of that gap.
    const double truth = Loss(X(static_cast<int>(before.number)), kSteps);
    const double last = Final(before);
    EXPECT_EQ(after.final_measurement->step, kSteps);
    EXPECT_LT(std::abs(Final(after) - truth), 0.5 * (last - truth))
        << "trial " << before.number << ": last " << last << ", forecast "
        << Final(after) << ", truth " << truth;
    EXPECT_EQ(after.measurements, before.measurements);
    EXPECT_EQ(after.parameters, before.parameters);
  }
}

// Each finished trial has a twin stopped at step 3, so the model learns
// how much a curve falls after step 3; no finished trial is near x = 0.3,
// where curves end lowest. The model's mean there lies below every value
// seen; the forecast may not.
TEST(ForecastStoppedTrialsTest, AForecastNeverLiesBeyondTheObservedValues) {
  std::vector<Trial> trials;
  for (int i = 0; i < 8; ++i) {
    const double x = 0.6 + 0.05 * i;
    trials.push_back(Trained(2 * i + 1, x, kSteps));
    trials.push_back(Trained(2 * i + 2, x, 3));
  }
  trials.push_back(Trained(17, 0.3, 3));
  double lowest = Final(trials[0]), highest = lowest;
  for (const Trial& t : trials) {
    lowest = std::min(lowest, Final(t));
    highest = std::max(highest, Final(t));
  }
  auto read = Forecast(Spec(), trials, 1);
  ASSERT_OK(read);
  for (const Trial& t : *read) {
    EXPECT_GE(Final(t), lowest) << t.number;
    EXPECT_LE(Final(t), highest) << t.number;
  }
  // Read at the lowest value seen, far below its last report.
  EXPECT_LT(Final(read->back()), 0.5 * Final(trials.back()));
}

// The rule stopped every trial with x above 0.55 at step 3, and no trial
// there ran on. Read from summaries alone, the only points below z = 1 lie
// there, so the model cannot tell what is x's effect and what the step's.
// The finished trials' curves show it how far values fall after step 3
// wherever they ran.
TEST(ForecastStoppedTrialsTest,
     FinishedCurvesTellTheStepsEffectFromTheRegions) {
  std::vector<Trial> trials;
  for (int i = 0; i < 16; ++i) {
    const double x = i < 10 ? 0.05 * i : 0.6 + 0.07 * (i - 10);
    trials.push_back(Trained(i + 1, x, i < 10 ? kSteps : 3));
  }
  auto read = Forecast(Spec(), trials, 1);
  ASSERT_OK(read);
  std::vector<Trial> summaries = trials;
  for (Trial& t : summaries) t.measurements.clear();
  auto blind = Forecast(Spec(), summaries, 1);
  ASSERT_OK(blind);
  double error = 0, blind_error = 0;
  for (size_t i = 10; i < trials.size(); ++i) {
    const double truth = Loss(trials[i].parameters.at("x").AsDouble(), kSteps);
    const double gap = Final(trials[i]) - truth;
    error += std::abs(Final((*read)[i]) - truth);
    blind_error += std::abs(Final((*blind)[i]) - truth);
    // Nearest the finished trials, it closes at least half the gap.
    if (i < 13) {
      EXPECT_LT(std::abs(Final((*read)[i]) - truth), 0.5 * gap)
          << "trial " << i + 1 << ": forecast " << Final((*read)[i])
          << ", truth " << truth;
    }
  }
  EXPECT_LT(error, 0.6 * blind_error);
}

TEST(ForecastStoppedTrialsTest, ForecastsAreAFunctionOfTheTrialsAndTheSeed) {
  const std::vector<Trial> trials = Study(12, {3, 5, 9});
  auto a = Forecast(Spec(), trials, 7);
  auto b = Forecast(Spec(), trials, 7);
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(*a, *b);
}

TEST(ForecastStoppedTrialsTest, AShortCurveNoRuleStoppedIsNotForecast) {
  std::vector<Trial> trials = Study(10, {4});
  trials[6].stopped_early = false;  // Ended early by itself (a short run).
  trials[6].measurements.resize(5);
  trials[6].final_measurement = trials[6].measurements.back();
  auto read = Forecast(Spec(), trials, 1);
  ASSERT_OK(read);
  EXPECT_EQ((*read)[6], trials[6]);
  EXPECT_NE((*read)[3], trials[3]);
}

TEST(ForecastStoppedTrialsTest, AStudyOfSeveralMetricsIsReadAsTheyAre) {
  StudySpec spec = Spec();
  spec.SetMetrics({MetricSpec{.id = kMetric, .goal = Goal::kMinimize},
                   MetricSpec{.id = "latency", .goal = Goal::kMinimize}});
  const std::vector<Trial> trials = Study(10, {2, 4});
  auto read = Forecast(spec, trials, 1);
  ASSERT_OK(read);
  EXPECT_EQ(*read, trials);
}

TEST(MultiFidelityDesignerTest, WithNoTrialStoppedItSuggestsWhatTheGpDoes) {
  const StudySpec spec = Spec();
  const std::vector<Trial> trials = Study(10, {});
  auto gp = GpDesigner::Create(spec, OptionsOf(spec), 7);
  auto mf = MultiFidelityDesigner::Create(spec, OptionsOf(spec), 7);
  ASSERT_OK(gp);
  ASSERT_OK(mf);
  ASSERT_OK((*gp)->Update(trials, {}));
  ASSERT_OK((*mf)->Update(trials, {}));
  auto a = (*gp)->Suggest(3);
  auto b = (*mf)->Suggest(3);
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_EQ(a->size(), 3u);
  ASSERT_EQ(b->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*a)[i].parameters, (*b)[i].parameters) << i;
    EXPECT_EQ((*a)[i].origin, (*b)[i].origin) << i;
  }
  EXPECT_THAT((*mf)->SaveState(), EndsWith(" " + (*gp)->SaveState()));
}

TEST(MultiFidelityDesignerTest, TheGpReadsTheStoppedTrialsForecasts) {
  const StudySpec spec = Spec();
  const std::vector<Trial> trials = Study(12, {1, 5, 9});
  auto mf = MultiFidelityDesigner::Create(spec, OptionsOf(spec), 7);
  ASSERT_OK(mf);
  ASSERT_OK((*mf)->Update(trials, {}));
  auto forecast = Forecast(spec, trials, 7);
  ASSERT_OK(forecast);
  EXPECT_EQ((*mf)->read_trials(), *forecast);
  EXPECT_NE(*forecast, trials);
  auto suggestions = (*mf)->Suggest(2);
  ASSERT_OK(suggestions);
  EXPECT_EQ(suggestions->size(), 2u);
}

TEST(ForecastStoppedTrialsTest, TheFitIsKeptUntilTheCurvesGrow) {
  GpState fit;
  const std::vector<Trial> trials = Study(20, {2, 4, 6});
  ASSERT_OK(ForecastStoppedTrials(Spec(), trials, 1, fit));
  const GpState first = fit;
  EXPECT_GT(first.fit_rows, 0u);
  EXPECT_FALSE(first.theta.empty());
  // One more trial read at 2 steps is less than a tenth more rows.
  ASSERT_OK(ForecastStoppedTrials(Spec(), Study(21, {2, 4, 6, 21}), 1, fit));
  EXPECT_EQ(fit, first);
  ASSERT_OK(ForecastStoppedTrials(Spec(), Study(30, {2, 4, 6}), 1, fit));
  EXPECT_GT(fit.fit_rows, first.fit_rows);
}

// Drives a study the engine's way: a fresh designer each round, restored
// from the last round's state, or one designer reused; both must agree.
TEST(MultiFidelityDesignerTest, ARestoredDesignerSuggestsWhatAReusedOneDoes) {
  const StudySpec spec = Spec();
  auto reused = MultiFidelityDesigner::Create(spec, OptionsOf(spec), 3);
  ASSERT_OK(reused);
  std::string state;
  for (int n : {12, 14, 16}) {
    const std::vector<Trial> trials = Study(n, {1, 3, 5, 7, 9, 11, 13, 15});
    auto fresh = MultiFidelityDesigner::Create(spec, OptionsOf(spec), 3);
    ASSERT_OK(fresh);
    ASSERT_OK((*fresh)->RestoreState(state));
    ASSERT_OK((*fresh)->Update(trials, {}));
    ASSERT_OK((*reused)->Update(trials, {}));
    auto a = (*fresh)->Suggest(1);
    auto b = (*reused)->Suggest(1);
    ASSERT_OK(a);
    ASSERT_OK(b);
    ASSERT_EQ(a->size(), 1u);
    ASSERT_EQ(b->size(), 1u);
    EXPECT_EQ((*a)[0].parameters, (*b)[0].parameters) << n;
    EXPECT_EQ((*a)[0].origin, (*b)[0].origin) << n;
    state = (*fresh)->SaveState();
    EXPECT_EQ(state, (*reused)->SaveState());
    EXPECT_THAT(state, StartsWith("mf1 gp1;"));
  }
}

// One engine round: a designer restored from `state` reads `trials` and
// suggests one point; returns its state and, deferring, its deferred work.
struct Round {
  std::string state;
  std::optional<Designer::DeferredWork> work;
};
absl::StatusOr<Round> PlayRound(const std::string& state,
                                const std::vector<Trial>& trials, bool defer,
                                const std::string& result = "") {
  const StudySpec spec = Spec();
  HPTUNE_ASSIGN_OR_RETURN(
      auto designer, MultiFidelityDesigner::Create(spec, OptionsOf(spec), 5));
  HPTUNE_RETURN_IF_ERROR(designer->RestoreState(state));
  if (defer) designer->DeferWork();
  HPTUNE_RETURN_IF_ERROR(designer->AcceptDeferredResult(result));
  HPTUNE_RETURN_IF_ERROR(designer->Update(trials, {}));
  HPTUNE_RETURN_IF_ERROR(designer->Suggest(1).status());
  return Round{designer->SaveState(), designer->TakeDeferredWork()};
}

// A due refit of the curve model and of the GP, run on the engine's worker
// and handed to the next round, gives the fits an inline refit gives.
TEST(MultiFidelityDesignerTest, ADeferredRefitGivesWhatAnInlineOneDoes) {
  const std::vector<int> stopped = {2, 4, 6, 8, 10, 12, 14, 16};
  const std::vector<Trial> first = Study(12, stopped);
  const std::vector<Trial> grown = Study(16, stopped);
  auto inline1 = PlayRound("", first, false);
  ASSERT_OK(inline1);
  auto inline2 = PlayRound(inline1->state, grown, false);
  ASSERT_OK(inline2);

  // The first fits run inline, with no hyperparameters to use meanwhile.
  auto deferred1 = PlayRound("", first, true);
  ASSERT_OK(deferred1);
  EXPECT_FALSE(deferred1->work.has_value());
  EXPECT_EQ(deferred1->state, inline1->state);
  auto deferred2 = PlayRound(deferred1->state, grown, true);
  ASSERT_OK(deferred2);
  ASSERT_TRUE(deferred2->work.has_value());
  EXPECT_NE(deferred2->state, inline2->state);
  const std::atomic<bool> cancelled = false;
  const std::string result = (*deferred2->work)(cancelled);
  EXPECT_THAT(result, StartsWith("mf1 gpfit1;rows="));
  auto accepted = PlayRound(deferred2->state, grown, true, result);
  ASSERT_OK(accepted);
  // The same curve fit. The GP's fit is of the same rows, but of trials
  // read at forecasts that the curve model's older fit made meanwhile.
  auto curve_fit = [](const std::string& state) {
    const std::vector<std::string> parts = absl::StrSplit(state, ' ');
    return parts.at(1);
  };
  auto gp_rows = [](const std::string& state) {
    const std::vector<std::string> parts = absl::StrSplit(state, ';');
    return parts.at(std::size(parts) - 2);
  };
  EXPECT_EQ(curve_fit(accepted->state), curve_fit(inline2->state));
  EXPECT_NE(curve_fit(accepted->state), curve_fit(deferred2->state));
  EXPECT_EQ(gp_rows(accepted->state), gp_rows(inline2->state));
}

TEST(MultiFidelityDesignerTest,
     CancelledWorkGivesNothingAndAForeignResultIsRefused) {
  const std::vector<int> stopped = {2, 4, 6, 8, 10, 12, 14, 16};
  auto first = PlayRound("", Study(12, stopped), true);
  ASSERT_OK(first);
  auto second = PlayRound(first->state, Study(16, stopped), true);
  ASSERT_OK(second);
  ASSERT_TRUE(second->work.has_value());
  const std::atomic<bool> cancelled = true;
  EXPECT_EQ((*second->work)(cancelled), "");
  EXPECT_THAT(
      PlayRound(first->state, Study(16, stopped), true, "gpfit1;rows=3;theta="),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("expected a deferred result")));
}

TEST(MultiFidelityDesignerTest, AForeignStateIsRefused) {
  const StudySpec spec = Spec();
  auto mf = MultiFidelityDesigner::Create(spec, OptionsOf(spec), 3);
  ASSERT_OK(mf);
  EXPECT_THAT((*mf)->RestoreState("gp1;halton=3;calls=1;fit_rows=0;theta="),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("MULTI_FIDELITY_GP: expected a state")));
}

TEST(MultiFidelityDesignerTest, ItRefusesWhatTheGpRefuses) {
  StudySpec spec = Spec();
  spec.search_space = SearchSpace({DoubleParam("k", 0, 10, ScaleType::kLog)});
  EXPECT_FALSE(MultiFidelityDesigner::Create(spec, OptionsOf(spec), 1).ok());
}

}  // namespace
}  // namespace hptune::algorithms::gp
