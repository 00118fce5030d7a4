#include "hptune/algorithms/stopping_policy.h"

#include <cstddef>

namespace hptune::algorithms {

absl::StatusOr<std::vector<StoppingDecision>> CurveStoppingPolicy::Decide(
    const Problem& problem, const std::vector<Trial>& trials) {
  std::vector<LearningCurve> curves;
  curves.reserve(trials.size());
  for (const Trial& trial : trials)
    curves.emplace_back(trial, problem.metric_tag());
  std::vector<TrialCurve> views;
  views.reserve(trials.size());
  for (size_t i = 0; i < trials.size(); ++i) {
    views.push_back({.state = trials[i].state, .curve = &curves[i]});
  }
  return DecideOnCurves(problem, views);
}

}  // namespace hptune::algorithms
