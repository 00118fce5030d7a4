// DominanceStoppingPolicy: early stopping for a study of several
// objectives. hptune's rule, Optuna's MedianPruner (Akiba et al., KDD
// 2019: compare a trial with the completed ones at the same step) carried
// from a median to Pareto dominance, as proposed for Optuna's
// multi-objective pruning (optuna#3450):
//
// Each ACTIVE trial t is judged at its latest step s at which one report
// carries every objective, by its point y_t(s) of those values. Each
// reference trial c (SUCCEEDED, stopped early or not, whose final result
// is feasible: IsFeasibleResult) contributes its point at s: its latest
// report with every objective at a step <= s. t is stopped when some y_c(s)
// dominates y_t(s) (better or equal on every objective, better on one,
// each in its goal's direction): then the front of the completed trials at
// step s dominates it too. Constraints are not judged: a trial may become
// feasible later, and infeasible trials do not stop others.
//
// As the median rule, a trial is kept without being judged until at least
// min_completed_trials reference trials have a point at or before s, and
// s >= max(1, min_step_fraction * L), L the largest step of a reference
// trial's report with every objective. Only intermediate measurements
// count. Off unless a study sets enableTrialEarlyStopping (which is off by
// default); docs/config.md says when it helps. Pure and stateless; not
// thread-safe (no shared state, but the interface makes no promise).
#ifndef HPTUNE_ALGORITHMS_STOPPING_DOMINANCE_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_DOMINANCE_STOPPING_POLICY_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

struct DominanceStoppingOptions {
  // Reference trials with a point at or before the judged step. >= 1.
  int min_completed_trials = 5;
  // As MedianStoppingOptions::min_step_fraction. In [0, 1].
  double min_step_fraction = 0.25;
};

class DominanceStoppingPolicy : public StoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of
  // range.
  static absl::StatusOr<std::unique_ptr<DominanceStoppingPolicy>> Create(
      DominanceStoppingOptions options);

  // Reasons name the trial that dominates and both points, e.g. "at step
  // 30 (loss 0.9, latency_ms 40) is dominated by trial 3 (loss 0.5,
  // latency_ms 20)".
  absl::StatusOr<std::vector<StoppingDecision>> Decide(
      const Problem& problem, const std::vector<Trial>& trials) override;

 private:
  explicit DominanceStoppingPolicy(DominanceStoppingOptions options)
      : options_(options) {}

  DominanceStoppingOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_DOMINANCE_STOPPING_POLICY_H_
