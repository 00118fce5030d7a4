// Building the JobProgress snapshot a runner hands its on_progress callback.
// Used by JobRun; pure and thread-safe.
#ifndef HPTUNE_SRC_RUNNER_JOB_PROGRESS_H_
#define HPTUNE_SRC_RUNNER_JOB_PROGRESS_H_

#include <cstdint>
#include <vector>

#include "hptune/runner/job_runner.h"

namespace hptune::runner::internal {

// `counts` with its trial lists filled in: `launched` is every trial handed
// to the backend, `waiting_in_backend` those of them the backend still holds
// in its queue (sorted), which `running` does not count.
JobProgress BuildProgress(JobProgress counts, std::vector<int64_t> launched,
                          const std::vector<int64_t>& waiting_in_backend);

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_JOB_PROGRESS_H_
