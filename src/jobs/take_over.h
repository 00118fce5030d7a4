// TakeOverJob: what a runner does before it continues a job whose runner
// died.
//
// A job that has not ended while nothing runs it (its `hptune run` or
// `hptune serve` was killed: SIGKILL, OOM, a reboot) is continued by the
// next runner on the same database: `hptune run` given the same --job-id,
// and `hptune serve` at start-up (JobManager::ResumeUnfinished). Both call
// TakeOverJob first, so both give the same guarantees:
//  - what the dead runner left running is stopped by its backend
//    (Launcher::StopLeftovers: every local replica, so no trainer is
//    orphaned or runs twice; Slurm's are left to the launcher's Reattach);
//  - a job left CANCELLING is finished CANCELLED, its open trials too;
//  - reports the dead runner had not read yet are stored, each once, and
//    its trials' files are set aside (RecoverTrialFiles), so the re-run
//    neither misses nor repeats a report.
// Then JobRunner::Run continues the job: trials ACTIVE in its slots are
// reattached or re-run under the restart rules.
//
// Thread-safety: call once per job, before any runner of it starts.
#ifndef HPTUNE_SRC_JOBS_TAKE_OVER_H_
#define HPTUNE_SRC_JOBS_TAKE_OVER_H_

#include <filesystem>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "hptune/store/store.h"

namespace hptune::jobs {

enum class TakeOver {
  kRun,    // Continue the job with JobRunner::Run.
  kEnded,  // It was being cancelled, and now is CANCELLED.
};

// `record` is the job as stored and not ended; `spec` its trainingInput (the
// stored one, or the config `hptune run` was given again). Errors come from
// the store or from reading the trials' files.
absl::StatusOr<TakeOver> TakeOverJob(store::Store& store,
                                     engine::TuningEngine& engine,
                                     launch::Launcher& launcher,
                                     const std::filesystem::path& runs_dir,
                                     const JobRecord& record,
                                     const JobSpec& spec, Env& env);

// Stops what a dead runner left running of job `job_id` on `launcher`'s
// backend (Launcher::StopLeftovers; the first step of TakeOverJob), for a
// job that cannot be taken over.
void StopLeftovers(launch::Launcher& launcher,
                   const std::filesystem::path& runs_dir,
                   const std::string& job_id);

}  // namespace hptune::jobs

#endif  // HPTUNE_SRC_JOBS_TAKE_OVER_H_
