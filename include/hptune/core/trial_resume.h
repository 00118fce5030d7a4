// Freeze-thaw: a trial that continues the training of a trial its stopping
// rule stopped, from that trial's checkpoint (docs/designers.md, "Resuming
// stopped trials"). The continuation is a trial of its own, with the same
// parameters, the stopped trial's measurements copied, and origin
// "resume[N]", N the stopped trial; it shares the AIP_CHECKPOINT_DIR of
// the first trial of its line (N's, unless N continued another) and does
// not count against maxTrials. The stopped trial stays as it ended; the
// continuation stands for its training from then on.
//
// Used by the engine (which makes continuations), the runner (which gives
// them the checkpoint directory) and the savings estimate. Pure functions;
// thread-safe.
#ifndef HPTUNE_CORE_TRIAL_RESUME_H_
#define HPTUNE_CORE_TRIAL_RESUME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hptune/core/trial.h"

namespace hptune {

// "resume[N]": the origin of a continuation of trial `resumed`.
std::string ResumeOrigin(int64_t resumed);

// The trial `trial` continues, from its origin; nullopt for any other trial.
std::optional<int64_t> ResumedTrial(const Trial& trial);

// The step a continuation took over at: its last measurement reported
// before it was created (those were copied from the trial it resumes); 0
// for any other trial.
int64_t ResumedAtStep(const Trial& trial);

// The numbers of the trials of `trials` that a later trial of `trials`
// continues: superseded by their continuation.
std::vector<int64_t> ResumedTrials(const std::vector<Trial>& trials);

// `trials` without the ones another of them continues: each training once,
// as it stands now.
std::vector<Trial> WithoutResumed(std::vector<Trial> trials);

// The same for a designer: a resumed trial stays when each of its
// continuations ended FAILED or CANCELLED, which left no result of their
// own in its place.
std::vector<Trial> WithoutSuperseded(std::vector<Trial> trials);

// How many of `trials` count against maxTrials: all but continuations.
int64_t TrialsAgainstBudget(const std::vector<Trial>& trials);

}  // namespace hptune

#endif  // HPTUNE_CORE_TRIAL_RESUME_H_
