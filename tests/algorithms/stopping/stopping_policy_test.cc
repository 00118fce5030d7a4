#include "hptune/algorithms/stopping_policy.h"

#include <memory>

#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/median_stopping_policy.h"
#include "gtest/gtest.h"
#include "tests/algorithms/stopping/curves.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::Flat;
using ::hptune::algorithms::testing::Hundreds;
using ::hptune::algorithms::testing::Study;

TEST(StoppingPolicyTest, RulesHaveNames) {
  EXPECT_EQ(ToString(StoppingRule::kMedian), "MEDIAN");
  EXPECT_EQ(ToString(StoppingRule::kMedianAtStep), "MEDIAN_AT_STEP");
  EXPECT_EQ(ToString(StoppingRule::kAsha), "ASHA");
}

TEST(StoppingPolicyTest, MedianAtStepRuleComparesValuesAtTheStep) {
  std::unique_ptr<StoppingPolicy> policy =
      CreateStoppingPolicy(StoppingRule::kMedianAtStep);
  auto* median = dynamic_cast<MedianStoppingPolicy*>(policy.get());
  ASSERT_NE(median, nullptr);
  EXPECT_EQ(median->options().reference,
            MedianStoppingOptions::Reference::kValueAtStep);
  EXPECT_EQ(median->options().min_completed_trials, 5);
}

TEST(StoppingPolicyTest, MedianRuleGivesTheMedianPolicyWithDefaults) {
  std::unique_ptr<StoppingPolicy> policy =
      CreateStoppingPolicy(StoppingRule::kMedian);
  auto* median = dynamic_cast<MedianStoppingPolicy*>(policy.get());
  ASSERT_NE(median, nullptr);
  EXPECT_EQ(median->options().min_completed_trials, 5);
  EXPECT_EQ(median->options().min_step_fraction, 0.25);
  EXPECT_EQ(median->options().min_measurements, 1);
}

TEST(StoppingPolicyTest, AshaRuleGivesTheAshaPolicyWithDefaults) {
  std::unique_ptr<StoppingPolicy> policy =
      CreateStoppingPolicy(StoppingRule::kAsha);
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
  for (StoppingRule rule : {StoppingRule::kMedian, StoppingRule::kMedianAtStep,
                            StoppingRule::kAsha}) {
    auto decisions = CreateStoppingPolicy(rule)->Decide(Study(), trials);
    ASSERT_TRUE(decisions.ok()) << decisions.status().message();
    ASSERT_EQ(decisions->size(), 1u);
    EXPECT_TRUE((*decisions)[0].stop)
        << ToString(rule) << ": " << (*decisions)[0].reason;
  }
}

}  // namespace
}  // namespace hptune::algorithms
