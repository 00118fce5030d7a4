#include "hptune/engine/job_runner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/launch/replica_env.h"
#include "src/engine/trial_execution.h"

namespace hptune::engine {
namespace {

using internal::TrialExecution;
using internal::TrialPoll;

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

absl::Status CheckRunnable(const JobSpec& job) {
  if (!job.study) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", Quoted(job.job_id),
                     ": trainingInput.hyperparameters is missing; hptune runs "
                     "hyperparameter tuning jobs"));
  }
  if (job.command.empty() && job.module_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job ", Quoted(job.job_id),
        ": no trainer to run; give --command (trainingInput.command) or "
        "--module-name (trainingInput.pythonModule)"));
  }
  return absl::OkStatus();
}

// The trials of job `previous` whose results a resumed job starts from (AI
// Platform's resumePreviousJobId), as new trials of a warm-started study.
absl::StatusOr<std::vector<Trial>> PreviousResults(store::Store& store,
                                                   std::string_view previous) {
  auto job = store.GetJob(previous);
  if (!job.ok()) {
    return absl::Status(
        job.status().code(),
        absl::StrCat("resumePreviousJobId: ", job.status().message()));
  }
  ASSIGN_OR_RETURN(std::vector<Trial> trials,
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

}  // namespace

JobRunner::JobRunner(store::Store& store, TuningEngine& engine,
                     launch::Launcher& launcher, JobRunnerOptions options,
                     Clock& clock)
    : store_(store),
      engine_(engine),
      launcher_(launcher),
      options_(std::move(options)),
      clock_(clock) {}

absl::StatusOr<JobRecord> JobRunner::Submit(const JobSpec& job) {
  std::vector<FieldError> errors = ValidateJobId(job.job_id, "job ID");
  RETURN_IF_ERROR(FieldErrorsToStatus(errors));
  RETURN_IF_ERROR(CheckRunnable(job));
  RETURN_IF_ERROR(launcher_.CheckFits(launch::ReplicaRequests(job)));
  if (store_.GetJob(job.job_id).ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat("job ", Quoted(job.job_id), " already exists"));
  }
  StudySpec spec = *job.study;
  std::vector<Trial> resumed;
  if (!spec.resume_previous_job_id.empty()) {
    ASSIGN_OR_RETURN(resumed,
                     PreviousResults(store_, spec.resume_previous_job_id));
    // maxTrials counts the trials this job runs, as in AI Platform; the
    // previous results are history on top.
    spec.max_trials += static_cast<int>(resumed.size());
  }
  ASSIGN_OR_RETURN(StudyRecord study, engine_.CreateStudy(job.job_id, spec));
  for (Trial& t : resumed) {
    RETURN_IF_ERROR(engine_.CreateTrial(study.name, std::move(t)).status());
  }
  JobRecord record{.job_id = job.job_id,
                   .training_input_json = TrainingInputToJson(job),
                   .study_name = study.name,
                   .labels = job.labels,
                   .slurm = job.slurm,
                   .state = JobState::kQueued};
  RETURN_IF_ERROR(store_.CreateJob(record));
  return store_.GetJob(job.job_id);
}

namespace {

// The state of one Run(): the trials running now, by slot, and the counts.
// Each slot is a client of the engine ("<job>/slot-<k>"), so the engine
// hands a slot back its unfinished trial when a job is run again after a
// crash, and never hands out a trial that another slot runs.
class JobRun {
 public:
  // Records a job state (CANCELLING before the replicas are stopped, RUNNING
  // when the first trial runs) and returns the job as stored.
  using RecordState = std::function<absl::StatusOr<JobRecord>(JobState)>;

  JobRun(store::Store& store, TuningEngine& engine, launch::Launcher& launcher,
         const JobRunnerOptions& options, Clock& clock, const JobSpec& job,
         const JobRecord& record, StudyRecord study, RecordState record_state)
      : store_(store),
        engine_(engine),
        launcher_(launcher),
        options_(options),
        clock_(clock),
        record_state_(std::move(record_state)),
        job_(job),
        submitted_(record.create_time),
        started_(record.start_time),
        study_(std::move(study)),
        requests_(launch::ReplicaRequests(job)),
        training_input_json_(TrainingInputToJson(job)),
        job_dir_(job.job_dir.empty() ? options.runs_dir / job.job_id / "job-dir"
                                     : std::filesystem::path(job.job_dir)),
        limits_{.max_replica_restarts = options.max_replica_restarts,
                .max_trial_retries = options.max_trial_retries,
                .termination_grace = options.termination_grace} {
    for (int k = 0; k < study_.spec.max_parallel_trials; ++k) {
      free_slots_.insert(k);
    }
  }

  // Drives the job until it ends; returns the final job state and message.
  absl::StatusOr<std::pair<JobState, std::string>> Drive();

 private:
  bool Cancelled() const {
    return options_.cancel != nullptr &&
           options_.cancel->load(std::memory_order_relaxed);
  }
  std::string SlotClient(int slot) const {
    return absl::StrCat(job_.job_id, "/slot-", slot);
  }
  // Starts trials while slots, budget and GPUs allow. Sets exhausted_ when
  // the study will suggest no more.
  absl::StatusOr<bool> StartTrials();
  absl::StatusOr<bool> PollTrials();
  absl::Status StopEarly();
  absl::Status EndAll(std::string_view reason);
  absl::Status Report(std::vector<Measurement> measurements, int64_t trial);
  // The trials an earlier runner of this job left ACTIVE in its slots; the
  // engine hands them back, and the launcher may still be running them.
  absl::Status FindUnfinishedTrials();
  void Release(int slot);
  // PREPARING until a trial first runs, then RUNNING.
  JobState State() const {
    return started_ ? JobState::kRunning : JobState::kPreparing;
  }
  void Progress(JobState state);
  // Records RUNNING the first time a trial's replicas run.
  absl::Status MarkRunning();
  // A trial that waited in the backend's queue starts when its replicas
  // leave it (TuningEngine::MarkTrialStarted), not when it was suggested.
  absl::Status NoteQueueExit(const TrialExecution& execution);
  // The trainingInput.scheduling limit the job has reached, as the job's
  // message; nullopt while it is within them.
  std::optional<std::string> TimeLimitReached() const;
  absl::StatusOr<std::pair<JobState, std::string>> Cancel(std::string message);

  store::Store& store_;
  TuningEngine& engine_;
  launch::Launcher& launcher_;
  const JobRunnerOptions& options_;
  Clock& clock_;
  const RecordState record_state_;
  const JobSpec& job_;
  const Timestamp submitted_;
  std::optional<Timestamp> started_;  // When the job entered RUNNING.
  const StudyRecord study_;
  const std::vector<launch::ReplicaRequest> requests_;
  const std::string training_input_json_;
  const std::filesystem::path job_dir_;
  const internal::TrialExecutionLimits limits_;

  std::set<int> free_slots_;
  std::map<int, std::unique_ptr<TrialExecution>> running_;  // By slot.
  std::set<int64_t> unfinished_;  // FindUnfinishedTrials(), until started.
  // Of a reattached trial: the measurements the dead runner stored, which its
  // metric files report again from their start.
  std::map<int64_t, std::vector<Measurement>> stored_;
  bool exhausted_ = false;
  // The engine had nothing to hand out (budget or parallelism); ask again
  // when a trial ends.
  bool blocked_ = false;
  bool waiting_for_gpus_ = false;
  // The trials the backend held in its queue at the last poll.
  std::vector<int64_t> waiting_in_backend_;
  // Seen waiting in the backend's queue before they ever ran; seen running.
  // A re-run that waits again keeps its trial's first start.
  std::set<int64_t> queued_before_running_;
  std::set<int64_t> ran_;
  bool new_measurements_ = false;
  int succeeded_ = 0, stopped_early_ = 0, failed_ = 0;
  std::string last_failure_;
};

absl::StatusOr<bool> JobRun::StartTrials() {
  bool started = false;
  waiting_for_gpus_ = false;
  while (!exhausted_ && !blocked_ && !free_slots_.empty()) {
    auto placement = launcher_.Reserve(requests_);
    if (absl::IsResourceExhausted(placement.status())) {
      waiting_for_gpus_ = true;
      break;
    }
    RETURN_IF_ERROR(placement.status());
    const int slot = *free_slots_.begin();
    ASSIGN_OR_RETURN(SuggestResponse response,
                     engine_.SuggestTrials(study_.name, 1, SlotClient(slot)));
    if (response.trials.empty()) {
      // Nothing now; later only if running trials end (maxParallelTrials
      // counts trials of other clients too) and the study is not done.
      exhausted_ = response.study_completed || running_.empty();
      blocked_ = true;
      break;
    }
    const Trial& trial = response.trials.front();
    const std::filesystem::path trial_dir =
        options_.runs_dir / job_.job_id / std::to_string(trial.number);
    std::error_code ec;
    std::filesystem::create_directories(trial_dir, ec);
    launch::TrialContext context{.job = &job_,
                                 .training_input_json = training_input_json_,
                                 .trial = trial.number,
                                 .parameters = trial.parameters,
                                 .metric_tag = study_.spec.metric_tag,
                                 .job_dir = job_dir_,
                                 .trial_dir = trial_dir};
    ASSIGN_OR_RETURN(
        launch::TrialLaunch launch,
        launch::BuildTrialLaunch(context, requests_, (*placement)->replicas()));
    launch.job_id = job_.job_id;
    launch.slurm = job_.slurm;
    auto execution = std::make_unique<TrialExecution>(
        store_, launcher_, std::move(launch), *std::move(placement),
        study_.spec.metric_tag, limits_);
    const bool reattach = unfinished_.erase(trial.number) > 0;
    RETURN_IF_ERROR(execution->Start(reattach));
    // Only replicas that kept running report again what is already stored;
    // a trial started afresh reports new measurements, even equal ones.
    if (execution->reattached()) {
      ASSIGN_OR_RETURN(Trial stored,
                       store_.GetTrial(study_.name, trial.number));
      stored_[trial.number] = std::move(stored.measurements);
    }
    free_slots_.erase(slot);
    running_[slot] = std::move(execution);
    started = true;
  }
  return started;
}

absl::Status JobRun::Report(std::vector<Measurement> measurements,
                            int64_t trial) {
  auto stored = stored_.find(trial);
  for (Measurement& m : measurements) {
    if (stored != stored_.end()) {
      // Read again after a reattach: the same step and values are stored.
      auto same =
          std::find_if(stored->second.begin(), stored->second.end(),
                       [&](const Measurement& s) {
                         return s.step == m.step && s.metrics == m.metrics;
                       });
      if (same != stored->second.end()) {
        stored->second.erase(same);
        continue;
      }
    }
    RETURN_IF_ERROR(engine_.AddMeasurement(study_.name, trial, std::move(m)));
    new_measurements_ = true;
  }
  return absl::OkStatus();
}

absl::Status JobRun::FindUnfinishedTrials() {
  ASSIGN_OR_RETURN(std::vector<Trial> trials,
                   store_.ListTrialSummaries(study_.name));
  const std::string slot_prefix = absl::StrCat(job_.job_id, "/slot-");
  for (const Trial& t : trials) {
    if (t.state == TrialState::kActive &&
        t.client_id.rfind(slot_prefix, 0) == 0) {
      unfinished_.insert(t.number);
    }
  }
  return absl::OkStatus();
}

void JobRun::Release(int slot) {
  if (auto it = running_.find(slot); it != running_.end()) {
    stored_.erase(it->second->trial());
  }
  running_.erase(slot);
  free_slots_.insert(slot);
  blocked_ = false;
}

absl::StatusOr<bool> JobRun::PollTrials() {
  bool changed = false;
  for (auto it = running_.begin(); it != running_.end();) {
    const int slot = it->first;
    TrialExecution& execution = *it->second;
    ++it;  // Release() below erases this entry.
    ASSIGN_OR_RETURN(TrialPoll poll, execution.Poll());
    changed |= poll.changed;
    // Before the trial's outcome is stored: a trial that ended ran first.
    if (!started_ && !execution.queued()) {
      RETURN_IF_ERROR(MarkRunning());
      changed = true;
    }
    RETURN_IF_ERROR(NoteQueueExit(execution));
    RETURN_IF_ERROR(Report(std::move(poll.measurements), execution.trial()));
    switch (poll.outcome) {
      case TrialPoll::Outcome::kRunning:
        break;
      case TrialPoll::Outcome::kSucceeded:
        RETURN_IF_ERROR(
            engine_.CompleteTrial(study_.name, execution.trial(), std::nullopt)
                .status());
        ++succeeded_;
        Release(slot);
        break;
      case TrialPoll::Outcome::kFailed:
        RETURN_IF_ERROR(
            engine_.MarkTrialFailed(study_.name, execution.trial(), poll.reason)
                .status());
        ++failed_;
        last_failure_ =
            absl::StrCat("trial ", execution.trial(), ": ", poll.reason);
        Release(slot);
        break;
    }
  }
  // A trial leaving the backend's queue is news too.
  std::vector<int64_t> waiting;
  for (const auto& [slot, execution] : running_) {
    if (execution->queued()) waiting.push_back(execution->trial());
  }
  std::sort(waiting.begin(), waiting.end());
  changed |= waiting != waiting_in_backend_;
  waiting_in_backend_ = std::move(waiting);
  return changed;
}

absl::Status JobRun::StopEarly() {
  if (!study_.spec.enable_early_stopping || !new_measurements_) {
    return absl::OkStatus();
  }
  new_measurements_ = false;
  ASSIGN_OR_RETURN(
      std::vector<algorithms::StoppingDecision> decisions,
      engine_.CheckEarlyStopping(study_.name, options_.stopping_rule));
  for (const auto& decision : decisions) {
    if (!decision.stop) continue;
    for (auto& [slot, execution] : running_) {
      if (execution->trial() != decision.trial) continue;
      RETURN_IF_ERROR(
          engine_.StopTrial(study_.name, decision.trial, decision.reason)
              .status());
      ASSIGN_OR_RETURN(std::vector<Measurement> last, execution->Stop());
      RETURN_IF_ERROR(Report(std::move(last), decision.trial));
      RETURN_IF_ERROR(
          engine_.CompleteTrial(study_.name, decision.trial, std::nullopt)
              .status());
      ++succeeded_;
      ++stopped_early_;
      Release(slot);
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status JobRun::EndAll(std::string_view reason) {
  for (auto& [slot, execution] : running_) {
    ASSIGN_OR_RETURN(std::vector<Measurement> last, execution->Stop());
    RETURN_IF_ERROR(Report(std::move(last), execution->trial()));
    RETURN_IF_ERROR(
        engine_.MarkTrialCancelled(study_.name, execution->trial(), reason)
            .status());
  }
  running_.clear();
  return absl::OkStatus();
}

absl::Status JobRun::NoteQueueExit(const TrialExecution& execution) {
  const int64_t trial = execution.trial();
  if (execution.queued()) {
    if (!ran_.contains(trial)) queued_before_running_.insert(trial);
    return absl::OkStatus();
  }
  ran_.insert(trial);
  if (queued_before_running_.erase(trial) == 0) return absl::OkStatus();
  return engine_.MarkTrialStarted(study_.name, trial, clock_.Now()).status();
}

absl::Status JobRun::MarkRunning() {
  ASSIGN_OR_RETURN(JobRecord record, record_state_(JobState::kRunning));
  started_ = record.start_time.value_or(clock_.Now());
  return absl::OkStatus();
}

std::optional<std::string> JobRun::TimeLimitReached() const {
  const SchedulingSpec& limits = job_.scheduling;
  const Timestamp now = clock_.Now();
  if (started_ && limits.max_running_time &&
      now - *started_ >= *limits.max_running_time) {
    return absl::StrCat(
        "maxRunningTime (", FormatDurationSeconds(*limits.max_running_time),
        ") reached: the job has run since ", FormatRfc3339(*started_));
  }
  if (!started_ && limits.max_wait_time &&
      now - submitted_ >= *limits.max_wait_time) {
    return absl::StrCat("maxWaitTime (",
                        FormatDurationSeconds(*limits.max_wait_time),
                        ") reached: no trial has started running since the "
                        "job was submitted at ",
                        FormatRfc3339(submitted_));
  }
  return std::nullopt;
}

absl::StatusOr<std::pair<JobState, std::string>> JobRun::Cancel(
    std::string message) {
  RETURN_IF_ERROR(record_state_(JobState::kCancelling).status());
  Progress(JobState::kCancelling);
  RETURN_IF_ERROR(EndAll(
      message.empty() ? std::string("the job was cancelled")
                      : absl::StrCat("the job was cancelled: ", message)));
  return std::pair{JobState::kCancelled, std::move(message)};
}

void JobRun::Progress(JobState state) {
  if (!options_.on_progress) return;
  JobProgress progress{.job_id = job_.job_id,
                       .state = state,
                       .max_trials = study_.spec.max_trials,
                       .succeeded = succeeded_,
                       .stopped_early = stopped_early_,
                       .failed = failed_,
                       .queued = waiting_for_gpus_ ? 1 : 0};
  // Trials that ended since the last poll are in neither list.
  for (const auto& [slot, execution] : running_) {
    const int64_t trial = execution->trial();
    progress.launched.push_back(trial);
    if (std::binary_search(waiting_in_backend_.begin(),
                           waiting_in_backend_.end(), trial)) {
      progress.waiting_in_backend.push_back(trial);
    } else {
      ++progress.running;
    }
  }
  std::sort(progress.launched.begin(), progress.launched.end());
  std::sort(progress.waiting_in_backend.begin(),
            progress.waiting_in_backend.end());
  auto best = engine_.BestTrial(study_.name);
  if (best.ok()) progress.best = *best;
  options_.on_progress(progress);
}

absl::StatusOr<std::pair<JobState, std::string>> JobRun::Drive() {
  const int max_failed = study_.spec.EffectiveMaxFailedTrials();
  auto idle = std::chrono::milliseconds(1);
  RETURN_IF_ERROR(FindUnfinishedTrials());
  Progress(State());
  while (true) {
    if (Cancelled()) return Cancel("");
    if (std::optional<std::string> limit = TimeLimitReached()) {
      return Cancel(*std::move(limit));
    }
    ASSIGN_OR_RETURN(bool started, StartTrials());
    ASSIGN_OR_RETURN(bool changed, PollTrials());
    RETURN_IF_ERROR(StopEarly());
    if (failed_ >= max_failed) {
      std::string message = absl::StrCat("maxFailedTrials (", max_failed,
                                         ") reached; last: ", last_failure_);
      RETURN_IF_ERROR(EndAll("the job failed: maxFailedTrials reached"));
      return std::pair{JobState::kFailed, message};
    }
    if (started || changed) Progress(State());
    if (exhausted_ && running_.empty()) break;
    // Poll again at once while things happen; back off when idle.
    idle = (started || changed)
               ? std::chrono::milliseconds(1)
               : std::min(idle * 2, options_.max_poll_interval);
    std::this_thread::sleep_for(idle);
  }
  if (succeeded_ == 0 && failed_ > 0) {
    return std::pair{JobState::kFailed,
                     absl::StrCat("no trial succeeded; last: ", last_failure_)};
  }
  return std::pair{JobState::kSucceeded, std::string()};
}

}  // namespace

absl::StatusOr<JobRecord> JobRunner::Run(const JobSpec& job) {
  ASSIGN_OR_RETURN(JobRecord record, store_.GetJob(job.job_id));
  if (IsTerminal(record.state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", Quoted(job.job_id), " has ended (",
                     std::string(ToString(record.state)), ")"));
  }
  auto set_state = [&](JobState state, std::string message) {
    return store_.UpdateJob(job.job_id, [&](JobRecord& j) {
      if (j.state == state) return absl::OkStatus();
      j.error_message = message;
      return j.TransitionTo(state, clock_.Now());
    });
  };
  if (record.state == JobState::kQueued) {
    RETURN_IF_ERROR(set_state(JobState::kPreparing, "").status());
  }
  ASSIGN_OR_RETURN(StudyRecord study, engine_.GetStudy(record.study_name));
  std::error_code ec;
  std::filesystem::create_directories(options_.runs_dir / job.job_id, ec);
  if (ec) {
    std::string message = absl::StrCat(
        "cannot create ", (options_.runs_dir / job.job_id).string(), ": ",
        ec.message());
    return set_state(JobState::kFailed, message);
  }
  // The job stays PREPARING until a trial's replicas run, as AI Platform's
  // stays until its workers are up: what maxWaitTime limits. `record`'s
  // create and start times, all JobRun reads of it, are as first read.
  JobRun run(store_, engine_, launcher_, options_, clock_, job, record, study,
             [&](JobState state) { return set_state(state, ""); });
  ASSIGN_OR_RETURN(auto outcome, run.Drive());
  if (outcome.first == JobState::kSucceeded) {
    // A job can end with no trial run by it: one resumed with nothing left.
    RETURN_IF_ERROR(set_state(JobState::kRunning, "").status());
  }
  return set_state(outcome.first, outcome.second);
}

}  // namespace hptune::engine
