// Freeze-thaw in the engine: resuming the trials a study's stopping rule
// paused (hptune/core/trial_resume.h, docs/designers.md "Resuming stopped
// trials"). Internal to the engine (TuningEngine's SuggestTrials, which
// resumes before it designs, and the study's completion, which waits while
// a stopped trial deserves resuming). Free functions; thread-compatible:
// callers hold the study's lock.
#ifndef HPTUNE_SRC_ENGINE_RESUMPTION_H_
#define HPTUNE_SRC_ENGINE_RESUMPTION_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::engine {

// The policy of `spec`'s stopping rule when early stopping is on and the
// rule resumes stopped trials (StoppingPolicy::ResumesStoppedTrials); else
// nullptr.
absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>> ResumingPolicy(
    const algorithms::StoppingRuleRegistry& rules, const StudySpec& spec);

// Whether `policy` would resume one of `trials` (the study's, with their
// measurements) now.
absl::StatusOr<bool> HasTrialToResume(algorithms::StoppingPolicy& policy,
                                      const StudySpec& spec,
                                      const std::vector<Trial>& trials);

// Up to `count` continuations of the stopped trials `policy` promotes, one
// after another, each stored ACTIVE for `client_id` with a lease of
// `lease_seconds` (0: none) from `now`: the resumed trial's parameters and
// measurements, origin ResumeOrigin(its number). Reads the study's trials
// from `store`.
absl::StatusOr<std::vector<Trial>> ResumeStoppedTrials(
    store::Store& store, algorithms::StoppingPolicy& policy,
    const StudyRecord& study, int count, std::string_view client_id,
    int lease_seconds, Timestamp now);

// SuggestTrials' step: when the study's rule pauses (ResumingPolicy), up to
// `count` continuations (ResumeStoppedTrials) for `client_id`, appended to
// `out` and, as summaries, to `trials` (the study's summaries), which then
// leaves out every trial a continuation stands for (WithoutSuperseded).
// Returns how many.
absl::StatusOr<int> ResumePausedTrials(
    store::Store& store, const algorithms::StoppingRuleRegistry& rules,
    const StudyRecord& study, int count, std::string_view client_id,
    int lease_seconds, Timestamp now, std::vector<Trial>& trials,
    std::vector<Trial>& out);

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_RESUMPTION_H_
