#include "hptune/algorithms/stopping_policy.h"

#include <memory>
#include <string_view>
#include <utility>

#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/median_stopping_policy.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_registry.h"
#include "tests/algorithms/stopping/curves.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::Flat;
using ::hptune::algorithms::testing::Hundreds;
using ::hptune::algorithms::testing::Study;

// hptune's rule `name` with its defaults.
std::unique_ptr<StoppingPolicy> Rule(std::string_view name) {
  auto policy = StoppingRuleRegistry::WithBuiltins().Create(name);
  EXPECT_OK(policy);
  return policy.ok() ? *std::move(policy) : nullptr;
}

// The same when it is a curve rule; nullptr otherwise.
std::unique_ptr<CurveStoppingPolicy> CurveRule(std::string_view name) {
  std::unique_ptr<StoppingPolicy> policy = Rule(name);
  if (dynamic_cast<CurveStoppingPolicy*>(policy.get()) == nullptr) {
    return nullptr;
  }
  return std::unique_ptr<CurveStoppingPolicy>(
      static_cast<CurveStoppingPolicy*>(policy.release()));
}

TEST(StoppingPolicyTest, MedianAtStepRuleComparesValuesAtTheStep) {
  std::unique_ptr<StoppingPolicy> policy = Rule("median-at-step");
  auto* median = dynamic_cast<MedianStoppingPolicy*>(policy.get());
  ASSERT_NE(median, nullptr);
  EXPECT_EQ(median->options().reference,
            MedianStoppingOptions::Reference::kValueAtStep);
  EXPECT_EQ(median->options().min_completed_trials, 5);
}

TEST(StoppingPolicyTest, MedianRuleGivesTheMedianPolicyWithDefaults) {
  std::unique_ptr<StoppingPolicy> policy = Rule("median");
  auto* median = dynamic_cast<MedianStoppingPolicy*>(policy.get());
  ASSERT_NE(median, nullptr);
  EXPECT_EQ(median->options().min_completed_trials, 5);
  EXPECT_EQ(median->options().min_step_fraction, 0.25);
  EXPECT_EQ(median->options().min_measurements, 1);
}

TEST(StoppingPolicyTest, AshaRuleGivesTheAshaPolicyWithDefaults) {
  std::unique_ptr<StoppingPolicy> policy = Rule("asha");
  auto* asha = dynamic_cast<AshaStoppingPolicy*>(policy.get());
  ASSERT_NE(asha, nullptr);
  EXPECT_FALSE(asha->options().min_resource.has_value());
  EXPECT_EQ(asha->options().reduction_factor, 3);
  EXPECT_EQ(asha->options().min_early_stopping_rate, 0);
}

TEST(StoppingPolicyTest, BothDefaultsStopAClearlyBadTrial) {
  // Ten completed curves at 0.9 to step 1000, one running at 0.1 to step
  // 500: below the median, and below the top third at every rung (auto:
  // r = 10, rungs 10, 30, 90, 270).
  std::vector<Trial> trials;
  for (int i = 1; i <= 10; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.9, Hundreds(1000))));
  }
  std::vector<int64_t> steps = {10, 30, 90, 270, 300, 400, 500};
  trials.push_back(CurveTrial(11, TrialState::kActive, Flat(0.1, steps)));
  for (std::string_view rule : {"median", "median-at-step", "asha"}) {
    auto decisions = Rule(rule)->Decide(Study(), trials);
    ASSERT_OK(decisions);
    ASSERT_EQ(decisions->size(), 1u);
    EXPECT_TRUE((*decisions)[0].stop) << rule << ": " << (*decisions)[0].reason;
  }
}

// The rules `hptune run --early-stopping` and `hptune serve` use, as
// designers.md promises: a hopeless trial is kept until 5 completed trials
// have values by its step and its step is a quarter of the way along the
// longest completed curve; then it is stopped.
TEST(StoppingPolicyTest, TheMedianRulesWaitForFiveCompletedAndAQuarterCurve) {
  for (std::string_view rule : {"median", "median-at-step"}) {
    std::unique_ptr<StoppingPolicy> policy = Rule(rule);
    auto stops = [&](int completed, std::vector<int64_t> steps) {
      std::vector<Trial> trials;
      for (int i = 1; i <= completed; ++i) {
        trials.push_back(
            CurveTrial(i, TrialState::kSucceeded, Flat(0.9, Hundreds(1000))));
      }
      trials.push_back(CurveTrial(99, TrialState::kActive, Flat(0.1, steps)));
      auto decisions = policy->Decide(Study(), trials);
      EXPECT_OK(decisions);
      return decisions.ok() && decisions->size() == 1 && (*decisions)[0].stop;
    };
    EXPECT_FALSE(stops(4, {100, 200, 300, 400, 500})) << rule;
    EXPECT_FALSE(stops(10, {100, 200})) << rule;
    EXPECT_TRUE(stops(5, {100, 200, 300})) << rule;
  }
}

// cloudml-hypertune writes global_step 0 when the program gives no step: such
// a file never stops a trial, under any rule.
TEST(StoppingPolicyTest, NoRuleStopsATrialWhoseReportsHaveNoSteps) {
  std::vector<Trial> trials;
  for (int i = 1; i <= 10; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.9, {0, 0, 0, 0, 0})));
  }
  trials.push_back(
      CurveTrial(11, TrialState::kActive, Flat(0.1, {0, 0, 0, 0, 0, 0})));
  for (std::string_view rule : {"median", "median-at-step", "asha"}) {
    auto decisions = Rule(rule)->Decide(Study(), trials);
    ASSERT_OK(decisions);
    for (const StoppingDecision& decision : *decisions) {
      EXPECT_FALSE(decision.stop) << rule << ": " << decision.reason;
    }
  }
}

TEST(StoppingPolicyTest, OnlyTheMedianRulesAreCurvePolicies) {
  for (std::string_view rule : {"median", "median-at-step"}) {
    std::unique_ptr<CurveStoppingPolicy> policy = CurveRule(rule);
    ASSERT_NE(policy, nullptr) << rule;
    EXPECT_EQ(
        dynamic_cast<MedianStoppingPolicy*>(policy.get())->options().reference,
        rule == "median" ? MedianStoppingOptions::Reference::kRunningAverage
                         : MedianStoppingOptions::Reference::kValueAtStep);
  }
  EXPECT_EQ(CurveRule("asha"), nullptr);
}

TEST(StoppingPolicyTest, CurvesKeptAndExtendedDecideAsTheTrialsDo) {
  // Completed curves, and running ones that grow report by report, as the
  // engine keeps them between checks: each check on the kept curves must
  // equal a check on the trials read whole.
  std::vector<Trial> trials;
  for (int i = 1; i <= 6; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.1 * i, Hundreds(1000))));
  }
  trials.push_back(CurveTrial(7, TrialState::kActive, {}));
  trials.push_back(CurveTrial(8, TrialState::kActive, {}));
  trials.push_back(CurveTrial(9, TrialState::kFailed, Flat(0.9, {100})));
  std::vector<LearningCurve> kept;
  for (const Trial& t : trials) kept.emplace_back(t, Study().metric_tag());
  int stops = 0;
  int keeps = 0;
  for (std::string_view rule : {"median", "median-at-step"}) {
    std::unique_ptr<CurveStoppingPolicy> policy = CurveRule(rule);
    for (int64_t step = 100; step <= 1000; step += 100) {
      for (size_t t : {size_t{6}, size_t{7}}) {
        // Trial 7 climbs past the median; trial 8 stays low.
        const double value = t == 6 ? 0.001 * step : 0.2;
        const Trial report =
            CurveTrial(trials[t].number, TrialState::kActive, {{step, value}});
        trials[t].measurements.push_back(report.measurements[0]);
        kept[t].Extend(report.measurements, Study().metric_tag());
      }
      std::vector<TrialCurve> curves;
      for (size_t t = 0; t < trials.size(); ++t) {
        curves.push_back({.state = trials[t].state, .curve = &kept[t]});
      }
      auto from_curves = policy->DecideOnCurves(Study(), curves);
      auto from_trials = policy->Decide(Study(), trials);
      ASSERT_OK(from_curves);
      ASSERT_OK(from_trials);
      EXPECT_EQ(*from_curves, *from_trials) << rule << " " << step;
      ASSERT_EQ(from_curves->size(), 2u);
      for (const StoppingDecision& d : *from_curves) ++(d.stop ? stops : keeps);
    }
  }
  // Both outcomes occur, so the comparison covers both.
  EXPECT_GT(stops, 0);
  EXPECT_GT(keeps, 0);
}

}  // namespace
}  // namespace hptune::algorithms
