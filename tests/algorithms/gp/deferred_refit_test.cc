// The GP designer's deferred refits (designer.h, gp_designer.h): a refit
// handed over as deferred work gives the hyperparameters the inline refit
// would have, so a study whose engine runs fits in the background differs
// from a deterministic one only in when the new hyperparameters arrive.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/gp/gp_state.h"
#include "algorithms/gp/hyperparameters.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/gp/designer_options.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

constexpr int kDimension = 3;
// The first fit happens at kFirstFit observations; 10% more makes the
// next one due (gp_model.h's kRefitGrowth).
constexpr int kFirstFit = 20;
constexpr int kRefitDue = 22;

// Minimises "loss" or, with `objectives` = 2, "loss" and "cost".
StudySpec Spec(int objectives = 1) {
  StudySpec spec;
  std::vector<ParameterSpec> params;
  for (int i = 0; i < kDimension; ++i) {
    params.push_back(DoubleParam("x" + std::to_string(i), 0, 1));
  }
  spec.search_space = SearchSpace(params);
  spec.SetSingleMetric("loss", Goal::kMinimize);
  if (objectives == 2) {
    spec.SetMetrics({{.id = "loss", .goal = Goal::kMinimize},
                     {.id = "cost", .goal = Goal::kMinimize}});
  }
  return spec;
}

// n completed trials at pseudo-random points with smooth metrics.
std::vector<Trial> History(int n) {
  SplitMix64 rng(7);
  std::vector<Trial> trials;
  for (int i = 0; i < n; ++i) {
    ParameterAssignment a;
    double loss = 0, cost = 0;
    for (int j = 0; j < kDimension; ++j) {
      const double x = rng.NextUnit();
      a["x" + std::to_string(j)] = ParameterValue::Double(x);
      loss += (x - 0.3) * (x - 0.3);
      cost += (x - 0.8) * (x - 0.8) + 0.1 * std::sin(5 * x);
    }
    Trial t = TrialAt(std::move(a));
    t.number = i + 1;
    t.final_measurement =
        Measurement{.step = 1, .metrics = {{"loss", loss}, {"cost", cost}}};
    trials.push_back(std::move(t));
  }
  return trials;
}

// A designer restored from `state`, deferring when asked, given the first
// n trials of History, having suggested one point.
struct Round {
  std::unique_ptr<GpDesigner> designer;
  Suggestion suggestion;
};

Round Suggest(const StudySpec& spec, const std::string& state, int n,
              bool defer, const std::string& result = "") {
  auto designer = GpDesigner::Create(spec, OptionsOf(spec), /*seed=*/3);
  EXPECT_OK(designer);
  EXPECT_OK((*designer)->RestoreState(state));
  if (defer) (*designer)->DeferWork();
  EXPECT_OK((*designer)->AcceptDeferredResult(result));
  const std::vector<Trial> all = History(n);
  EXPECT_OK((*designer)->Update(all, {}));
  auto suggestions = (*designer)->Suggest(1);
  EXPECT_OK(suggestions);
  return {*std::move(designer), suggestions->at(0)};
}

// The state after the first fit, at kFirstFit observations.
std::string StateAfterFirstFit(const StudySpec& spec) {
  Round first = Suggest(spec, "", kFirstFit, /*defer=*/true);
  EXPECT_TRUE(first.designer->last_suggest_refitted())
      << "the first fit stays inline";
  EXPECT_FALSE(first.designer->TakeDeferredWork().has_value());
  return first.designer->SaveState();
}

void ExpectDeferredRefitIsTheInlineOne(int objectives) {
  const StudySpec spec = Spec(objectives);
  const std::string fitted = StateAfterFirstFit(spec);

  Round inline_round = Suggest(spec, fitted, kRefitDue, /*defer=*/false);
  ASSERT_TRUE(inline_round.designer->last_suggest_refitted());

  Round deferred = Suggest(spec, fitted, kRefitDue, /*defer=*/true);
  EXPECT_FALSE(deferred.designer->last_suggest_refitted());
  auto saved = ParseGpState(fitted, PackedSize(kDimension));
  ASSERT_OK(saved);
  EXPECT_EQ(deferred.designer->theta(), saved->theta)
      << "the suggestion used the hyperparameters it had";
  std::optional<Designer::DeferredWork> work =
      deferred.designer->TakeDeferredWork();
  ASSERT_TRUE(work.has_value());
  EXPECT_FALSE(deferred.designer->TakeDeferredWork().has_value())
      << "work is handed over once";

  // Run on another thread, as the engine does.
  std::string result;
  std::atomic<bool> cancelled{false};
  std::thread([&] { result = (*work)(cancelled); }).join();
  auto fit = ParseGpFit(result, PackedSize(kDimension));
  ASSERT_OK(fit);
  EXPECT_EQ(fit->rows, static_cast<uint64_t>(kRefitDue));
  ASSERT_EQ(fit->thetas.size(), static_cast<size_t>(objectives));

  // The next designer, given the result, holds the inline round's state.
  auto next = GpDesigner::Create(spec, OptionsOf(spec), 3);
  ASSERT_OK(next);
  ASSERT_OK((*next)->RestoreState(deferred.designer->SaveState()));
  ASSERT_OK((*next)->AcceptDeferredResult(result));
  auto with_result = ParseGpState((*next)->SaveState(), PackedSize(kDimension));
  auto inline_state =
      ParseGpState(inline_round.designer->SaveState(), PackedSize(kDimension));
  ASSERT_OK(with_result);
  ASSERT_OK(inline_state);
  EXPECT_EQ(*with_result, *inline_state);
  EXPECT_EQ(fit->thetas[0], inline_state->theta);
}

TEST(DeferredRefitTest, ADeferredRefitGivesTheInlineRefitsHyperparameters) {
  ExpectDeferredRefitIsTheInlineOne(1);
}

TEST(DeferredRefitTest, SeveralObjectivesRefitEveryModelInTheBackground) {
  ExpectDeferredRefitIsTheInlineOne(2);
}

TEST(DeferredRefitTest, WithoutARefitDueNothingIsDeferred) {
  const StudySpec spec = Spec();
  Round round =
      Suggest(spec, StateAfterFirstFit(spec), kFirstFit + 1, /*defer=*/true);
  EXPECT_FALSE(round.designer->TakeDeferredWork().has_value());
}

TEST(DeferredRefitTest, CancelledWorkGivesNoResult) {
  const StudySpec spec = Spec();
  Round round =
      Suggest(spec, StateAfterFirstFit(spec), kRefitDue, /*defer=*/true);
  auto work = round.designer->TakeDeferredWork();
  ASSERT_TRUE(work.has_value());
  std::atomic<bool> cancelled{true};
  EXPECT_EQ((*work)(cancelled), "");
}

TEST(DeferredRefitTest, BackgroundWorkNeverChangesDeterministicSuggestions) {
  const StudySpec spec = Spec();
  const std::string fitted = StateAfterFirstFit(spec);
  auto run = [&] {
    std::vector<std::string> states;
    std::string state = fitted;
    for (int n = kFirstFit + 1; n <= kRefitDue + 4; ++n) {
      Round r = Suggest(spec, state, n, /*defer=*/false);
      state = r.designer->SaveState();
      states.push_back(state);
    }
    return states;
  };
  const std::vector<std::string> alone = run();
  // The same, while a deferred refit of the same study runs beside it.
  Round deferred = Suggest(spec, fitted, kRefitDue, /*defer=*/true);
  auto work = deferred.designer->TakeDeferredWork();
  ASSERT_TRUE(work.has_value());
  std::atomic<bool> cancelled{false};
  std::string result;
  std::thread background([&] { result = (*work)(cancelled); });
  const std::vector<std::string> beside = run();
  background.join();
  EXPECT_EQ(beside, alone);
  EXPECT_FALSE(result.empty());
}

TEST(DeferredRefitTest, AnOlderFitIsIgnored) {
  const StudySpec spec = Spec();
  const std::string fitted = StateAfterFirstFit(spec);
  Round round = Suggest(spec, fitted, kRefitDue, /*defer=*/false);
  const std::string refitted = round.designer->SaveState();
  // A fit of the first 20 rows arrives after the inline refit at 22.
  GpFit older{.rows = kFirstFit,
              .thetas = {std::vector<double>(PackedSize(kDimension), 0.25)}};
  auto designer = GpDesigner::Create(spec, OptionsOf(spec), 3);
  ASSERT_OK(designer);
  ASSERT_OK((*designer)->RestoreState(refitted));
  ASSERT_OK((*designer)->AcceptDeferredResult(FormatGpFit(older)));
  EXPECT_EQ((*designer)->SaveState(), refitted);
}

TEST(DeferredRefitTest, AForeignResultIsRefusedWithTheExpectedForm) {
  auto designer = GpDesigner::Create(Spec(), OptionsOf(Spec()), 3);
  ASSERT_OK(designer);
  EXPECT_OK((*designer)->AcceptDeferredResult(""));
  EXPECT_THAT((*designer)->AcceptDeferredResult("halton:index=3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected \"gpfit1;rows=<n>")));
  const std::string seven = "0x1p+0,0x1p+0,0x1p+0,0x1p+0,0x1p+0,0x1p+0,0x1p+0";
  EXPECT_THAT(
      (*designer)->AcceptDeferredResult("gpfit1;rows=30;theta=" + seven),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("theta has 7 entries, this search space "
                         "needs 6")));
  // A fit from before a parameter joined the space is no fit of this one.
  const std::string before = (*designer)->SaveState();
  EXPECT_OK((*designer)->AcceptDeferredResult("gpfit1;rows=30;theta=0x1p+0"));
  EXPECT_EQ((*designer)->SaveState(), before);
}

}  // namespace
}  // namespace hptune::algorithms::gp
