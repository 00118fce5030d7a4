// What early stopping saved, as `hptune run`'s end-of-job summary and
// `hptune jobs describe` show it: the line "early stopping: ..." and, for
// describe's --format json, the Job JSON with an `earlyStoppingSavings`
// object. The numbers come from ComputeStoppingSavings
// (hptune/core/savings.h), the one computation the dashboard uses too.
// Used only by src/cli. Pure functions; thread-safe.
#ifndef HPTUNE_CLI_SAVINGS_LINE_H_
#define HPTUNE_CLI_SAVINGS_LINE_H_

#include <optional>
#include <string>
#include <vector>

#include "hptune/core/job.h"
#include "hptune/core/savings.h"
#include "hptune/core/trial.h"

namespace hptune::cli {

// The savings of a job's trials, with the job's replicas and GPUs; nullopt
// when its study does not stop trials early and none was stopped (a client
// can stop a trial itself), so a job without stopping shows nothing.
std::optional<StoppingSavings> JobSavings(const JobSpec& job,
                                          const std::vector<Trial>& trials);

// "early stopping: 3 of 12 trials stopped early; saved about ...".
std::string SavingsLine(const StoppingSavings& savings);

// `job_json` (a Job as JSON, an object) with "earlyStoppingSavings": null
// when `savings` is nullopt, else {trialsStopped, trialsRunToEnd, stepsRun,
// fullTrialSteps, stepsSaved, trialSecondsSaved, replicaSecondsSaved,
// gpuSecondsSaved, shareSaved, summary}, an unknown number null. Indented by 2,
// the other keys in their order.
std::string WithSavingsJson(const std::string& job_json,
                            const std::optional<StoppingSavings>& savings);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_SAVINGS_LINE_H_
