// What early stopping saved, as `hptune run`'s end-of-job summary and
// `hptune jobs describe` show it: the line "early stopping: ..." and, for
// describe's --format json, the Job JSON with an `earlyStoppingSavings`
// object. The numbers are the read side's (read::StudyAnswers::Savings),
// the answer the dashboard and the API give too. Used only by src/cli.
// Pure functions; thread-safe.
#ifndef HPTUNE_CLI_SAVINGS_LINE_H_
#define HPTUNE_CLI_SAVINGS_LINE_H_

#include <optional>
#include <string>

#include "hptune/core/savings.h"

namespace hptune::cli {

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
