// What JobRunner::Submit checks and builds before a job is recorded: that it
// can run at all, and the results a resumed job (resumePreviousJobId) starts
// from. Used by JobRunner only; thread-compatible.
#ifndef HPTUNE_SRC_RUNNER_JOB_SUBMISSION_H_
#define HPTUNE_SRC_RUNNER_JOB_SUBMISSION_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::runner::internal {

// InvalidArgument naming the job when it has no trainer (command or
// pythonModule), or naming the field when its command line is longer than
// exec(2) takes (ValidateTrainerCommandLine). A job without hyperparameters
// runs once (RunStudyOf).
[[nodiscard]] absl::Status CheckRunnable(const JobSpec& job);

// The trials of job `previous` whose results a resumed job starts from (AI
// Platform's resumePreviousJobId), as new trials of a warm-started study:
// succeeded with a final measurement, or infeasible. NotFound naming
// resumePreviousJobId when there is no such job.
absl::StatusOr<std::vector<Trial>> PreviousResults(store::Store& store,
                                                   std::string_view previous);

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_JOB_SUBMISSION_H_
