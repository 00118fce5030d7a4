// JobManager: runs the server's jobs, each JobRunner::Run on a thread of its
// own, and tells watchers when a job changed.
//
// Used by JobService (submit, cancel, watch) and by the server's start-up,
// which resumes every job a previous server left unfinished (crash safety):
// TakeOverJob (take_over.h) stops what the dead server left running and
// stores its unread reports, then the job runner continues the job with the
// same study, trial numbers and job directories (an ACTIVE trial is
// re-attached when the launcher still finds it running, as Slurm's does, and
// otherwise handed back to its slot and re-run under the restart rules). A
// job left CANCELLING is finished as CANCELLED.
//
// On a store several servers share (RunnerLease::shared), each runs only
// the jobs it holds (RunnerLease::HoldJob): a job submitted here is held
// before it is stored, an unfinished one is taken over by whichever server
// holds it first, at start-up or at a later TakeOverOrphans, and a cancel
// for a job another server runs is recorded in the store (CANCELLING), for
// that server's TakeOverOrphans to pass on to its runner.
//
// Thread-safety: thread-safe.
#ifndef HPTUNE_SRC_JOBS_JOB_MANAGER_H_
#define HPTUNE_SRC_JOBS_JOB_MANAGER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/mutex.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "hptune/runner/job_runner.h"
#include "hptune/store/store.h"
#include "src/jobs/job_log.h"

namespace hptune::jobs {

class JobManager {
 public:
  // `options.cancel` and `options.on_progress` are set per job; the rest
  // (runs_dir, limits, stopping rule) applies to every job.
  // `env` is the runners' and take-over's machine; it must outlive the
  // manager. `log`, when set, gets JobLog's lines of every job, from the
  // jobs' threads (it must be thread-safe). `lease`, when set, is the
  // server's runner lease, whose jobs are held through it (it must outlive
  // the manager); none: every job of the store is this manager's.
  JobManager(store::Store& store, engine::TuningEngine& engine,
             launch::Launcher& launcher, runner::JobRunnerOptions options,
             Env& env, JobLog::Sink log = nullptr,
             store::RunnerLease* lease = nullptr);
  // Cancels the jobs still running and waits for their threads.
  ~JobManager();

  // Validates and records the job (JobRunner::Submit), then runs it as
  // `owner`; its study is `study_owner`'s (JobRunner::Submit). On a shared
  // store, AlreadyExists when another server holds the job ID.
  absl::StatusOr<JobRecord> Submit(const JobSpec& job, JobOwner owner = {},
                                   int64_t study_owner = -1);

  // Whether a stored job may run here (the server's --allow-command rules,
  // and whom it would run as).
  using Admission =
      std::function<absl::Status(const JobRecord&, const JobSpec&)>;
  // Start-up: resumes every job of the store that has not ended, that no
  // other server holds, and that `admit` (when set) allows; one it refuses
  // ends FAILED with its reason, whatever its dead runner left running
  // stopped. Errors of one job are recorded on that job (FAILED with the
  // reason), not returned.
  void ResumeUnfinished(const Admission& admit = nullptr);

  // On a shared store, every lease interval: passes on to this manager's
  // runners the cancels other servers recorded for them, and takes over
  // (as ResumeUnfinished) the unfinished jobs no runner holds any more,
  // their server having died. Nothing elsewhere. The number taken over.
  int TakeOverOrphans(const Admission& admit = nullptr);

  // Asks a job to stop; returns it once its state shows the request
  // (CANCELLING or ended), or after a short wait. A job another server of
  // a shared store runs is set CANCELLING in the store. FailedPrecondition
  // for an ended job or, on a store of one server, one another process
  // runs; NotFound for none.
  absl::StatusOr<JobRecord> Cancel(std::string_view job_id);

  // Deletes an ended job with its study (TuningEngine::DeleteJob), once
  // its thread here has finished; its directory under runs_dir is moved to
  // runs_dir/.deleted/, so a new job of the same ID starts with no old log
  // to read. FailedPrecondition naming the state for a job not ended;
  // NotFound for none; Aborted when its thread is still finishing after
  // 5 s.
  [[nodiscard]] absl::Status Delete(std::string_view job_id);

  // A counter that grows with every change of any job seen here.
  uint64_t version() const;
  // Waits until version() differs from `seen`, or `timeout` passed.
  uint64_t WaitForChange(uint64_t seen, std::chrono::milliseconds timeout);

  // Whether a thread of this manager still runs the job.
  bool IsRunning(std::string_view job_id) const;
  // Which of `trials` (the job's) are ACTIVE but not running, as the job's
  // runner here last reported: waiting in the backend's queue (Slurm jobs
  // PENDING) or not launched yet. Empty for a job not run here.
  std::set<int64_t> TrialsNotRunningYet(std::string_view job_id,
                                        const std::vector<Trial>& trials) const;

  const runner::JobRunnerOptions& options() const { return options_; }

 private:
  struct RunningJob {
    std::atomic<bool> cancel{false};
    std::atomic<bool> done{false};
    // Released once the job's end is stored: then another server may
    // take over what is left of it.
    std::unique_ptr<store::JobHold> hold;
    std::thread thread;
  };
  // The job's hold on a shared store (an empty one elsewhere): Unavailable
  // while another runner holds it.
  absl::StatusOr<std::unique_ptr<store::JobHold>> Hold(std::string_view job_id);
  // The unfinished jobs of `jobs` that no runner holds, taken over; the
  // IDs of those started again.
  std::vector<std::string> ResumeFree(const std::vector<JobRecord>& jobs,
                                      const Admission& admit);
  // Takes over one stored, held job: true when it runs again here.
  bool Resume(const JobRecord& record, const Admission& admit,
              std::unique_ptr<store::JobHold> hold);
  // Sets the cancel flag of a job run here; false for none.
  bool FlagCancel(std::string_view job_id);
  void StartThread(const JobSpec& job, std::unique_ptr<store::JobHold> hold);
  void RunJob(JobSpec job, RunningJob* running);
  // Ends the job FAILED with `message` unless it has ended, and then its
  // trials that have not ended too: no runner is left to end them.
  void FailJob(const std::string& job_id, const std::string& message);
  // Ends a job that cannot be resumed FAILED, saying why.
  void FailUnresumable(const std::string& job_id, const std::string& why);
  void Bump();

  store::Store& store_;
  engine::TuningEngine& engine_;
  launch::Launcher& launcher_;
  const runner::JobRunnerOptions options_;
  Env& env_;
  const JobLog::Sink log_;
  store::RunnerLease* const lease_;

  mutable Mutex mutex_;
  CondVar changed_;
  uint64_t version_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, std::unique_ptr<RunningJob>, std::less<>> jobs_
      ABSL_GUARDED_BY(mutex_);
  // Per job run here, what its runner last reported of its trials with the
  // launcher (JobProgress::launched and waiting_in_backend, sorted).
  struct LaunchedTrials {
    std::vector<int64_t> launched;
    std::vector<int64_t> waiting;
  };
  std::map<std::string, LaunchedTrials, std::less<>> launched_
      ABSL_GUARDED_BY(mutex_);
};

}  // namespace hptune::jobs

#endif  // HPTUNE_SRC_JOBS_JOB_MANAGER_H_
