// StoppingPolicy: decides which running trials to stop early.
//
// The job runner (and the CheckEarlyStopping API) gives a policy the study's
// trials with their learning curves whenever new measurements arrive; the
// policy says, for each ACTIVE trial, whether to stop it and why. A stopped
// trial ends SUCCEEDED with stopped_early set, and its last measurement is its
// result. Implementations live under algorithms/stopping: pure computation,
// no I/O or clock, deterministic for a given history. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
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
      const StudySpec& study, const std::vector<Trial>& trials) = 0;
};

// kMedian: Vizier's median rule on running averages; kMedianAtStep: the
// median rule on values at the same step (Optuna's MedianPruner); kAsha:
// asynchronous successive halving. See algorithms/stopping/.
enum class StoppingRule { kMedian, kMedianAtStep, kAsha };
std::string_view ToString(StoppingRule rule);

// The policy for `rule` with its documented default options.
std::unique_ptr<StoppingPolicy> CreateStoppingPolicy(StoppingRule rule);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_POLICY_H_
