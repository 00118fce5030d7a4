// JobRun: one run of a job by JobRunner::Run, advanced a step at a time.
//
// Each Step() does what is due now and never blocks on the trials: it polls
// every running trial (replica exits, new reports), applies early stopping,
// checks the job's ends (cancel flag, scheduling limits, maxFailedTrials,
// every trial done), and starts trials while slots, budget and GPUs allow.
// Between steps the caller waits on ExitFds() (or sleeps), so a runner on
// a simulated clock (a FakeEnv, a fake launcher) runs the same code as the
// real one, only faster.
//
// A job is done only when the engine has nothing more to suggest AND no
// trial of the job is still ACTIVE in any of its slots (job_slots.h), so a
// trial a dead runner left is never abandoned.
//
// Not thread-safe: one thread steps a JobRun.
#ifndef HPTUNE_SRC_RUNNER_JOB_RUN_H_
#define HPTUNE_SRC_RUNNER_JOB_RUN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/env/users.h"
#include "hptune/launch/stored_reports.h"
#include "hptune/runner/job_runner.h"
#include "src/runner/backend_queue.h"
#include "src/runner/job_slots.h"
#include "src/runner/trial_execution.h"

namespace hptune::runner::internal {

// How a job ended: its final state and message.
struct JobOutcome {
  JobState state = JobState::kSucceeded;
  std::string message;
};

// Whether a job of `owner` runs as another user than the one `env`'s
// process acts as: a root server's job of another user (JobOwner).
bool RunsAsAnotherUser(const JobOwner& owner, Env& env);

class JobRun {
 public:
  // Records a job state (CANCELLING before the replicas are stopped, RUNNING
  // when the first trial runs) and returns the job as stored.
  using RecordState = std::function<absl::StatusOr<JobRecord>(JobState)>;

  JobRun(store::Store& store, engine::TuningEngine& engine,
         launch::Launcher& launcher, const JobRunnerOptions& options, Env& env,
         const JobSpec& job, const JobRecord& record, StudyRecord study,
         RecordState record_state);

  // Finds the trials an earlier runner of this job left ACTIVE; call once,
  // before the first Step().
  [[nodiscard]] absl::Status Begin();
  // Does what is due now; the job's outcome once it has ended.
  absl::StatusOr<std::optional<JobOutcome>> Step();
  // Whether the last step saw or did anything: then step again at once.
  bool busy() const { return busy_; }
  // What to wait on before the next step: readable when a replica exits.
  std::vector<int> ExitFds() const;

 private:
  bool Cancelled() const;
  absl::StatusOr<bool> StartTrials();
  // The trial for `client` to run: the designer's suggestion, or for a job
  // without a study its one trial (RunStudyOf), once.
  absl::StatusOr<engine::SuggestResponse> NextTrial(const std::string& client);
  [[nodiscard]] absl::Status StartTrial(
      int slot, const Trial& trial,
      std::unique_ptr<launch::Placement> placement);
  absl::StatusOr<bool> PollTrials();
  [[nodiscard]] absl::Status EndTrial(int slot, const TrialPoll& poll);
  [[nodiscard]] absl::Status StopEarly();
  [[nodiscard]] absl::Status EndAll(std::string_view reason);
  [[nodiscard]] absl::Status Report(std::vector<Measurement> measurements,
                                    int64_t trial);
  void Release(int slot);
  JobState State() const;
  void Progress(JobState state);
  [[nodiscard]] absl::Status MarkRunning();
  absl::StatusOr<JobOutcome> Cancel(std::string message);
  bool Done() const;

  store::Store& store_;
  engine::TuningEngine& engine_;
  launch::Launcher& launcher_;
  const JobRunnerOptions& options_;
  Env& env_;
  const RecordState record_state_;
  const JobSpec& job_;
  const Timestamp submitted_;
  std::optional<Timestamp> started_;  // When the job entered RUNNING.
  const StudyRecord study_;
  // Whose running trials the job's count against (TrialAdmission).
  const int64_t user_;
  const std::vector<launch::ReplicaRequest> requests_;
  const std::string training_input_json_;
  const std::filesystem::path job_dir_;
  // The job owner's credentials when replicas run as another user.
  const std::optional<UserCredentials> run_as_;
  const TrialExecutionLimits limits_;

  // The job's turn among its user's runners waiting for a place.
  TrialAdmission::Waiter waiter_;
  // Each running trial's place among its user's (by slot), given back
  // after the slot's execution has ended: declared before slots_.
  std::map<int, TrialAdmission::Ticket> admitted_;
  JobSlots slots_;
  BackendQueue queue_;
  // Of a reattached trial: what the dead runner stored, which its metric
  // files report again from their start.
  std::map<int64_t, launch::StoredReports> stored_;
  // Running continuations (freeze-thaw) not yet checked: the step their
  // copied curve ends at, which their trainer's first report must pass.
  std::map<int64_t, int64_t> resumed_at_;
  bool exhausted_ = false;  // The engine will suggest nothing more.
  // The engine had nothing to hand out now (budget or parallelism); ask
  // again when a trial ends.
  bool blocked_ = false;
  bool waiting_for_gpus_ = false;
  bool new_measurements_ = false;
  bool busy_ = true;
  int succeeded_ = 0, stopped_early_ = 0, failed_ = 0, infeasible_ = 0;
  int restarts_ = 0;  // JobProgress::restarts.
  std::string last_failure_;
  // Set when a trial failed permanently before any succeeded: the job's
  // failure message, with the log's last lines.
  std::optional<std::string> permanent_failure_;
  std::vector<std::string> warnings_;  // JobProgress::warnings.
  // A report was refused by a quota: warned of once.
  bool quota_warned_ = false;
};

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_JOB_RUN_H_
