// AshaStoppingPolicy: asynchronous successive halving as a stopping rule
// (Li et al., "A System for Massively Parallel Hyperparameter Tuning", MLSys
// 2020, Algorithm 2), in the form of Optuna's SuccessiveHalvingPruner.
//
// Rungs sit at steps
//   R_k = r * eta^(s + k),   k = 0, 1, 2, ...
// (r = min_resource, eta = reduction_factor, s = min_early_stopping_rate).
// A trial's value at rung R_k is its metric at the largest step <= R_k (the
// later report on a tie); it reached R_k with its first report, in report
// order, at a step >= R_k. An ACTIVE trial at latest step S is judged at
// every rung R_k <= S, lowest first, since the runner polls periodically and
// a trial may pass several rungs between two decisions; it is stopped at the
// first rung where it is not promoted. At a rung where it has no value (its
// first report came after R_k) it is not judged.
//
// Promotion at rung R_k, as in Optuna: the competitors are the trials
// (SUCCEEDED, stopped-early ones included, ACTIVE and STOPPING) that have a
// value at R_k and reached it before the judged trial did, plus the judged
// trial itself. With n competitors the trial continues when its value is at
// least as good as the k-th best, k = max(1, floor(n / eta)): the top 1/eta,
// and with fewer than 2 * eta competitors only the best (ties continue).
// "Before" orders by the time of the reaching report, then by trial number
// (so reports without times order by trial number). Comparing only against
// earlier arrivals makes a promotion final, as in ASHA and Optuna, where a
// trial is compared once, when it reaches the rung; comparing against later
// arrivals too would revoke promotions whenever better trials arrive, and
// would make the outcome depend on when the runner polls.
//
// min_resource "auto" (unset, the default), as Optuna: r = max(1,
// floor(L / auto_divisor)), L the last step of the first completed trial
// (SUCCEEDED, not stopped early, with a value of the metric; first by end
// time, then by trial number). Until such a trial exists every trial
// continues.
//
// With `resume` (the rule "asha-resume"), a stop is a pause, as in the
// paper's Algorithm 2, where a configuration waits at its rung until it is
// promoted: TrialToResume names a stopped trial that is now in the top
// floor(n / eta) (at least 1) of all n trials with a value at each rung it
// reached, whenever they reached it; among several, the one that reached
// the highest rung, then the best value there, then the lowest number. The
// engine then resumes it from its checkpoint (hptune/core/trial_resume.h).
// A continuation is not judged again at the rungs its copied curve reached
// (those reached before the trial was created): it was promoted there.
// The space is the metric's raw values and the steps as reported; only
// intermediate measurements form a curve. Steps at 0 sit below every rung,
// so curves without steps are never judged.
//
// Pure and stateless: Decide depends only on its arguments. Not thread-safe
// (no shared state, but the interface makes no promise).
#ifndef HPTUNE_ALGORITHMS_STOPPING_ASHA_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_ASHA_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

struct AshaOptions {
  // r, the step of the first rung before min_early_stopping_rate; unset is
  // "auto" (see above). >= 1 when set.
  std::optional<int64_t> min_resource;
  // eta: about 1/eta of the trials reaching a rung go on. >= 2. 3 as in the
  // ASHA paper's experiments (Optuna's default is 4).
  int reduction_factor = 3;
  // s: the first rung is at r * eta^s. >= 0.
  int min_early_stopping_rate = 0;
  // The L / auto_divisor of min_resource "auto". >= 1. 100 as Optuna.
  int64_t auto_divisor = 100;
  // Stops are pauses: stopped trials are resumed when promoted (above).
  bool resume = false;
};

// "asha-resume": ASHA whose stopped trials are resumed from their
// checkpoints when promoted, with the first rung at L / (2 eta) (a sixth of
// a full curve), so that a trial is judged twice before its end (at L/6 and
// L/2) and not before a sixth of its training, where the ranks of real
// curves are still unreliable (benchmarks/RESULTS.md, "Resuming stopped
// trials"). "asha" is the stopping form with Optuna's defaults.
AshaOptions AshaResumeOptions();

class AshaStoppingPolicy : public StoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of range.
  static absl::StatusOr<std::unique_ptr<AshaStoppingPolicy>> Create(
      AshaOptions options);

  // InvalidArgument when the study has no metric tag. Reasons name the
  // numbers, e.g. "value 0.41 at the rung at step 9 is not in the top 1/3 of
  // the 7 trials there: 2nd best is 0.62".
  absl::StatusOr<std::vector<StoppingDecision>> Decide(
      const Problem& problem, const std::vector<Trial>& trials) override;

  bool ResumesStoppedTrials() const override { return options_.resume; }
  absl::StatusOr<std::optional<int64_t>> TrialToResume(
      const Problem& problem, const std::vector<Trial>& trials) override;

  const AshaOptions& options() const { return options_; }

 private:
  explicit AshaStoppingPolicy(AshaOptions options) : options_(options) {}

  AshaOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_ASHA_STOPPING_POLICY_H_
