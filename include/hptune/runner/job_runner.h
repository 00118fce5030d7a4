// JobRunner: runs a tuning job to its end, each trial a distributed training
// job of real processes.
//
// `hptune run` and the server call Submit() to validate a job and record it
// QUEUED with its study, then Run() to drive it: the runner asks the
// TuningEngine for trials (at most maxParallelTrials at once), reserves
// a placement from the Launcher (a trial waits while the GPUs it needs are
// busy), starts every replica, stores the master's measurements as soon as it
// sees them, restarts failed replicas and re-runs failed trial attempts, asks
// the stopping policy about running trials, and ends the job SUCCEEDED,
// FAILED (maxFailedTrials) or CANCELLED (the cancel flag, or a
// trainingInput.scheduling limit: maxWaitTime, maxRunningTime). The job is
// PREPARING until a trial's replicas first run (a trial waiting for GPUs or
// in Slurm's queue has not), then RUNNING, as AI Platform's job is RUNNING
// once its workers are up; maxRunningTime counts from then, using the
// stored start time, so a resumed job keeps its deadline. Every job, trial
// and replica transition is recorded in the Store. A job without a study
// (a CustomJob) runs once: one trial of the one-run study (RunStudyOf in
// hptune/core/job.h), added by the runner, no designer asked.
//
// Lifecycle of one trial (docs/trainer.md): a replica that exits
// non-zero is restarted with the same environment up to
// max_replica_restarts times; after that the attempt fails, every replica is
// stopped, and the trial is run again, up to max_trial_retries times, before
// it is FAILED. The master exiting 0 ends the trial; the other replicas are
// then stopped (SIGTERM to the process group, grace, SIGKILL). Another
// replica exiting 0 is done, and is not restarted.
//
// Metrics come from the master (the chief): its hypertune file and its
// stdout lines, as AI Platform reads the chief's reports.
//
// Thread-safety: Run() blocks its thread; cancel it by setting the atomic
// flag given in the options (safe from a signal handler).
#ifndef HPTUNE_RUNNER_JOB_RUNNER_H_
#define HPTUNE_RUNNER_JOB_RUNNER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/job.h"
#include "hptune/core/trial.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "hptune/runner/trial_admission.h"
#include "hptune/store/store.h"

namespace hptune::runner {

// A snapshot of a running job, for progress displays.
struct JobProgress {
  std::string job_id;
  JobState state = JobState::kQueued;
  int max_trials = 0;
  int succeeded = 0;  // Stopped-early trials included.
  int stopped_early = 0;
  int failed = 0;
  int infeasible = 0;  // The objective was NaN or infinite.
  int running = 0;     // Trials whose replicas were started.
  int queued = 0;      // Waiting for GPUs.
  int restarts = 0;    // Replica restarts and trial re-runs, all told.
  // "trial N: <reason>" of the newest failed trial, or "".
  std::string last_failure;
  // What the user should see at once, oldest first, each in every later
  // snapshot too (at most 10): a trial reporting metrics but not the
  // objective.
  std::vector<std::string> warnings;
  // The trials handed to the backend, by number, and those of them whose
  // replicas it has not started yet (a Slurm job waiting in the cluster's
  // queue), which `running` does not count.
  std::vector<int64_t> launched;
  std::vector<int64_t> waiting_in_backend;
  std::optional<Trial> best;
};

struct JobRunnerOptions {
  // hptune's files of trial N of job J (replica logs, metric files) go to
  // <runs_dir>/<J>/<N>/; so do its AIP_* output directories when the job
  // has no jobDir (launch::TrialOutputDirs).
  std::filesystem::path runs_dir = "hptune-runs";
  // The local root of gs:// paths (hptune/core/bucket_paths.h): an
  // absolute directory, or empty, when a job naming gs:// is refused at
  // Submit. Jobs are stored as written; Run launches a resolved copy.
  std::string gcs_root;
  int max_replica_restarts = 5;
  int max_trial_retries = 3;
  // Between SIGTERM and SIGKILL when replicas are stopped.
  std::chrono::milliseconds termination_grace{5000};
  // The cap on each replica's log, checked about once a second while it
  // runs (Env::CapLog: its head and its latest output stay, with a line at
  // the cut); 0: none. 64 MiB.
  int64_t max_log_bytes = int64_t{64} << 20;
  // Between steps the runner waits for a replica to exit (pidfds, at once)
  // or for this long at most, backing off to it from 0.5 ms while nothing
  // happens: how late a new report or the cancel flag can be seen.
  std::chrono::milliseconds max_poll_interval{100};
  // Set to true (from any thread or a signal handler) to cancel the job.
  const std::atomic<bool>* cancel = nullptr;
  // The running trials per user a server allows, shared by its runners: a
  // trial of a user at the limit waits to start (its job stays PREPARING
  // until one runs), and is seen admitted within max_poll_interval of a
  // place freeing. The job's user is its study's owner, else its owner.
  // Null: none. Outlives the runner.
  TrialAdmission* admission = nullptr;
  // Called from Run()'s thread after each change.
  std::function<void(const JobProgress&)> on_progress;
};

class JobRunner {
 public:
  // `env` gives the runner its clock and its waits: DefaultEnv(), or a
  // FakeEnv in tests, whose clock moves only while the runner waits.
  JobRunner(store::Store& store, engine::TuningEngine& engine,
            launch::Launcher& launcher, JobRunnerOptions options, Env& env);

  // Checks that `job` can run here (a trainer command, GPUs the launcher
  // can ever provide) and records it QUEUED with its study (named after the
  // job; RunStudyOf for a job without one). InvalidArgument or FailedPrecondition naming the
  // field and value; AlreadyExists for a job ID in use, or the name of a
  // study. The job is recorded before its study, which it owns from its
  // first row; a study that then cannot be made leaves the job FAILED.
  // `owner`: whom its replicas run as (JobOwner; unknown: this process's
  // user). `study_owner`: whose quotas its study counts against
  // (StudyRecord::owner_uid); -1: the owner's.
  absl::StatusOr<JobRecord> Submit(const JobSpec& job, JobOwner owner = {},
                                   int64_t study_owner = -1);

  // Runs the submitted job `job` until it ends and returns its final record.
  // An error means the runner itself could not go on (e.g. the store failed);
  // trial failures are part of the job's outcome, not errors.
  absl::StatusOr<JobRecord> Run(const JobSpec& job);

 private:
  // The job's study, with the trials of the job it resumes, its owner's.
  [[nodiscard]] absl::Status CreateStudyOf(const JobSpec& job,
                                           std::vector<Trial> resumed,
                                           int64_t owner_uid);

  store::Store& store_;
  engine::TuningEngine& engine_;
  launch::Launcher& launcher_;
  JobRunnerOptions options_;
  Env& env_;
};

}  // namespace hptune::runner

#endif  // HPTUNE_RUNNER_JOB_RUNNER_H_
