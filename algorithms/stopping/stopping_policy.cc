#include "hptune/algorithms/stopping_policy.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/dominance_stopping_policy.h"
#include "algorithms/stopping/median_stopping_policy.h"

namespace hptune::algorithms {

std::string_view ToString(StoppingRule rule) {
  switch (rule) {
    case StoppingRule::kMedian:
      return "MEDIAN";
    case StoppingRule::kMedianAtStep:
      return "MEDIAN_AT_STEP";
    case StoppingRule::kAsha:
      return "ASHA";
  }
  return "UNKNOWN";
}

absl::StatusOr<std::vector<StoppingDecision>> CurveStoppingPolicy::Decide(
    const StudySpec& study, const std::vector<Trial>& trials) {
  std::vector<LearningCurve> curves;
  curves.reserve(trials.size());
  for (const Trial& trial : trials)
    curves.emplace_back(trial, study.metric_tag);
  std::vector<TrialCurve> views;
  views.reserve(trials.size());
  for (size_t i = 0; i < trials.size(); ++i) {
    views.push_back({.state = trials[i].state, .curve = &curves[i]});
  }
  return DecideOnCurves(study, views);
}

namespace {

// The default options are valid; a failure is a programming error.
template <typename Policy>
std::unique_ptr<Policy> ValidOrDie(
    absl::StatusOr<std::unique_ptr<Policy>> policy, StoppingRule rule) {
  HPTUNE_CHECK(policy.ok(),
               absl::StrCat("stopping rule ", std::string(ToString(rule)), ": ",
                            policy.status().message()));
  return *std::move(policy);
}

}  // namespace

std::unique_ptr<CurveStoppingPolicy> CreateCurveStoppingPolicy(
    StoppingRule rule) {
  switch (rule) {
    case StoppingRule::kMedian:
      return ValidOrDie(MedianStoppingPolicy::Create(MedianStoppingOptions{}),
                        rule);
    case StoppingRule::kMedianAtStep:
      return ValidOrDie(
          MedianStoppingPolicy::Create(MedianStoppingOptions{
              .reference = MedianStoppingOptions::Reference::kValueAtStep}),
          rule);
    case StoppingRule::kAsha:
      break;
  }
  return nullptr;
}

std::unique_ptr<StoppingPolicy> CreateStoppingPolicy(StoppingRule rule) {
  if (rule == StoppingRule::kAsha) {
    return ValidOrDie(AshaStoppingPolicy::Create(AshaOptions{}), rule);
  }
  std::unique_ptr<StoppingPolicy> policy = CreateCurveStoppingPolicy(rule);
  HPTUNE_CHECK(policy != nullptr,
               absl::StrCat("unknown stopping rule ", static_cast<int>(rule)));
  return policy;
}

std::unique_ptr<StoppingPolicy> CreateStoppingPolicy(const StudySpec& spec,
                                                     StoppingRule rule) {
  if (spec.Objectives().size() > 1) {
    return ValidOrDie(
        DominanceStoppingPolicy::Create(DominanceStoppingOptions{}), rule);
  }
  return CreateStoppingPolicy(rule);
}

}  // namespace hptune::algorithms
