// StoppingPolicy: decides which running trials to stop early.
//
// The job runner (and the CheckEarlyStopping API) gives a policy the study's
// trials with their learning curves whenever new measurements arrive; the
// policy says, for each ACTIVE trial, whether to stop it and why. A stopped
// trial ends SUCCEEDED with stopped_early set, and its last measurement is its
// result. A policy sees the study's Problem (its metric and goal) at each
// check; its rule's settings are given once, to its factory
// (stopping_registry.h). Implementations live under algorithms/stopping:
// pure computation, no I/O or clock, deterministic for a given history. Not
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

struct StoppingDecision {
  int64_t trial = 0;
  bool stop = false;
  // Why: "best 0.41 at step 300 is worse than the median 0.62 of 5 trials".
  std::string reason;
  bool operator==(const StoppingDecision&) const = default;
};

class StoppingPolicy {
 public:
  virtual ~StoppingPolicy() = default;
  // One decision per ACTIVE trial of `trials` (all of the study's trials, with
  // their intermediate measurements), in trial order. Measurements lacking
  // the study's metric are ignored.
  virtual absl::StatusOr<std::vector<StoppingDecision>> Decide(
      const Problem& problem, const std::vector<Trial>& trials) = 0;

  // Freeze-thaw (hptune/core/trial_resume.h): whether this rule pauses
  // trials rather than stops them, so that a stopped trial may be resumed
  // from its checkpoint. The trainer must then load AIP_CHECKPOINT_DIR's
  // checkpoint (docs/trainer.md), so only rules users choose for that do.
  virtual bool ResumesStoppedTrials() const { return false; }
  // The stopped trial (SUCCEEDED, stopped_early) of `trials` that now
  // deserves the steps it was denied, or nullopt. `trials` as for Decide,
  // without those already resumed (their continuations stand for them).
  virtual absl::StatusOr<std::optional<int64_t>> TrialToResume(
      const Problem& problem, const std::vector<Trial>& trials) {
    (void)problem;
    (void)trials;
    return std::nullopt;
  }
};

// A trial as a curve rule sees it; its number is curve->trial().
struct TrialCurve {
  TrialState state = TrialState::kRequested;
  const LearningCurve* curve = nullptr;  // Not owned; never null.
};

// A rule that judges each ACTIVE trial by its own learning curve against the
// SUCCEEDED trials' curves and needs nothing else of a trial. Clients check
// after every report, so curves are long and checks frequent: a caller may
// keep the extracted curves between checks and extend them with new reports
// (the engine does) instead of rebuilding them from measurements each time.
class CurveStoppingPolicy : public StoppingPolicy {
 public:
  // One decision per ACTIVE entry of `trials`, in trial order. Each curve is
  // of the study's metric.
  virtual absl::StatusOr<std::vector<StoppingDecision>> DecideOnCurves(
      const Problem& problem, std::span<const TrialCurve> trials) = 0;

  // Extracts the curves of `trials` and decides on them.
  absl::StatusOr<std::vector<StoppingDecision>> Decide(
      const Problem& problem, const std::vector<Trial>& trials) final;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_POLICY_H_
