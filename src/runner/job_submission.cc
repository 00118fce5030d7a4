#include "src/runner/job_submission.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"

namespace hptune::runner::internal {

absl::Status CheckRunnable(const JobSpec& job) {
  // A pool with an image runs its own command; only host pools need one.
  if (job.RunsHostTrainer() && job.command.empty() && job.module_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job \"", job.job_id,
        "\": no trainer to run; give --command (trainingInput.command) or "
        "--module-name (trainingInput.pythonModule)"));
  }
  return FieldErrorsToStatus(ValidateTrainerCommandLine(job, "trainingInput"));
}

absl::StatusOr<std::vector<Trial>> PreviousResults(store::Store& store,
                                                   std::string_view previous) {
  auto job = store.GetJob(previous);
  if (!job.ok()) {
    return absl::Status(
        job.status().code(),
        absl::StrCat("resumePreviousJobId: ", job.status().message()));
  }
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store.ListTrialSummaries(job->study_name));
  std::vector<Trial> results;
  for (const Trial& t : trials) {
    const bool result =
        (t.state == TrialState::kSucceeded && t.final_measurement) ||
        t.state == TrialState::kInfeasible;
    if (!result) continue;
    results.push_back(
        Trial{.parameters = t.parameters,
              .state = t.state,
              .final_measurement = t.final_measurement,
              .stopped_early = t.stopped_early,
              .reason = t.reason,
              .origin = absl::StrCat("resumed from ", std::string(previous),
                                     " trial ", t.number)});
  }
  return results;
}

}  // namespace hptune::runner::internal
