// Recovering what a killed runner left of a trial in its files.
//
// A trial that was ACTIVE when its runner (`hptune run` or `hptune serve`)
// died is run again by the next runner, in the same trial directory. Its
// master's metric file and log still hold the reports of the lost run, some of
// which the dead runner may not have read yet (a report made between its last
// poll and its death, or by the orphaned trainer afterwards). Fresh metric
// readers would either miss those or, reading the files from the start, store
// every earlier report a second time. RecoverTrialFiles stores exactly the
// reports that are missing, then moves the lost run's files aside (master-0.log
// -> master-0.log.1, ...), so the new run starts with empty files and the old
// logs are kept.
//
// Called by TakeOverJob (take_over.h) after the orphans are stopped and
// before the job runner starts. Not thread-safe per trial directory.
#ifndef HPTUNE_SRC_JOBS_TRIAL_RECOVERY_H_
#define HPTUNE_SRC_JOBS_TRIAL_RECOVERY_H_

#include <filesystem>

#include "absl/status/status.h"
#include "hptune/core/job.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"

namespace hptune::jobs {

// For every ACTIVE or STOPPING trial of `job`'s study: reports in the
// master's hypertune file whose (time, step) is not stored, or (when the
// file has none) metric lines of its log whose (step, metrics) are not
// stored, are added as measurements; then every *.log and *.metrics file of
// the trial directory <runs_dir>/<job>/<N>/ is renamed with the next free
// suffix .1, .2, ... Files are reached through `env`.
[[nodiscard]] absl::Status RecoverTrialFiles(
    engine::TuningEngine& engine, const std::filesystem::path& runs_dir,
    const JobRecord& job, const JobSpec& spec, Env& env);

}  // namespace hptune::jobs

#endif  // HPTUNE_SRC_JOBS_TRIAL_RECOVERY_H_
