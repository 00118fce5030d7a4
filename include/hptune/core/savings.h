// What early stopping saved a study: an estimate, against running every
// trial to its end, of the steps, trial-seconds, replica-seconds and
// GPU-seconds that stopped trials did not spend (docs/designers.md, "What
// stopping saved").
//
// The one computation behind `hptune run`'s summary, `hptune jobs describe`
// and the dashboard's study summary. Pure functions; thread-safe.
#ifndef HPTUNE_CORE_SAVINGS_H_
#define HPTUNE_CORE_SAVINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hptune/core/job.h"
#include "hptune/core/trial.h"

namespace hptune {

// What one trial holds while it runs: its replicas, and the GPUs among them.
struct TrialFootprint {
  int replicas = 1;
  int gpus = 0;  // Only pools with an acceleratorConfig count.
};

// Every pool's replicas, and each replica's accelerators, from the spec.
TrialFootprint FootprintOf(const JobSpec& job);

struct StoppingSavings {
  int64_t trials = 0;          // Every trial looked at (resumed ones not).
  int64_t trials_stopped = 0;  // Ended SUCCEEDED with stopped_early.
  int64_t trials_run_to_end =
      0;  // Ended SUCCEEDED, not stopped: the yardstick.
  // The sum of every trial's last reported step.
  int64_t steps_run = 0;
  // The median last step of the trials run to their end: how long a stopped
  // trial would have run. nullopt when none ran to its end.
  std::optional<double> full_steps;
  // nullopt: unknown (stopped trials, but none ran to its end). 0 when no
  // trial was stopped.
  std::optional<double> steps_saved;
  // The saved steps at the pace of a full training: the median seconds per
  // step of the trials run to their end, each one's start-up spread over
  // its steps. Never more than trials_stopped full trainings' seconds.
  // nullopt when steps were saved but no trial run to its end has both a
  // start and an end time.
  std::optional<double> trial_seconds_saved;
  // Also nullopt without a footprint (a study with no job).
  std::optional<double> replica_seconds_saved;
  // Also nullopt when the job allocates no GPUs.
  std::optional<double> gpu_seconds_saved;
  // steps_saved / (steps_run + steps_saved), in [0, 1].
  std::optional<double> share_saved;
};

// The savings over `trials` (one study's). `footprint`: the job's, nullopt
// for a study without a job. A trial that a continuation of `trials`
// resumes (hptune/core/trial_resume.h) is left out: its training counts
// once, as its continuation's.
StoppingSavings ComputeStoppingSavings(
    const std::vector<const Trial*>& trials,
    const std::optional<TrialFootprint>& footprint);

// The savings a study shows: nullopt when it does not stop trials early
// (`early_stopping`) and none of `trials` was stopped (a client can stop a
// trial itself), so a study without stopping shows nothing.
std::optional<StoppingSavings> ShownStoppingSavings(
    const std::vector<const Trial*>& trials, bool early_stopping,
    const std::optional<TrialFootprint>& footprint);

// The numbers of StoppingSavings by the names the JSON answers give them:
// the Job's `earlyStoppingSavings` (camelCase, docs/cli.md) and the
// dashboard's `early_stopping_savings` (snake_case, docs/dashboard.md), in
// the order both write them: the counts, then the estimates.
struct SavingsCount {
  const char* camel_name;
  const char* snake_name;
  int64_t value;
};
struct SavingsField {
  const char* camel_name;
  const char* snake_name;
  std::optional<double> value;  // nullopt or not finite: unknown (null).
};
std::vector<SavingsCount> SavingsCounts(const StoppingSavings& savings);
std::vector<SavingsField> SavingsEstimates(const StoppingSavings& savings);

// One line for people, e.g. "3 of 12 trials stopped early; saved about 450
// of 1650 steps (27%), 1.2 replica-hours, 2.5 GPU-hours (an estimate)"; it
// says when the saving is unknown and why.
std::string SavingsText(const StoppingSavings& savings);

}  // namespace hptune

#endif  // HPTUNE_CORE_SAVINGS_H_
