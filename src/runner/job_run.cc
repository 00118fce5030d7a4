#include "src/runner/job_run.h"

#include <sys/types.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "hptune/env/env.h"
#include "hptune/env/users.h"
#include "hptune/launch/replica_env.h"
#include "src/runner/job_progress.h"
#include "src/runner/time_limits.h"

namespace hptune::runner::internal {
namespace {

constexpr size_t kMaxWarnings = 10;

// Where a continuation (hptune/core/trial_resume.h) takes over: the first
// trial of its line, whose checkpoints it resumes, and the last step the
// trial it resumes reported (0: none).
struct TakeOver {
  int64_t first_trial = 0;
  int64_t after_step = 0;
};

// nullopt for a trial that continues none.
absl::StatusOr<std::optional<TakeOver>> TakeOverOf(store::Store& store,
                                                   const std::string& study,
                                                   const Trial& trial) {
  std::optional<int64_t> resumed = ResumedTrial(trial);
  if (!resumed) return std::nullopt;
  TakeOver take_over{.first_trial = trial.number};
  // Each continuation has a lower number than the one before: this ends.
  while (resumed && *resumed < take_over.first_trial) {
    take_over.first_trial = *resumed;
    HPTUNE_ASSIGN_OR_RETURN(Trial earlier, store.GetTrial(study, *resumed));
    if (take_over.after_step == 0 && !earlier.measurements.empty()) {
      take_over.after_step = earlier.measurements.back().step;
    }
    resumed = ResumedTrial(earlier);
  }
  return take_over;
}

// The config field that names the objective, in the job's own dialect.
std::string ObjectiveField(const JobSpec& job) {
  return job.dialect == SpecDialect::kVertex ? "studySpec.metrics[0].metricId"
                                             : "hyperparameterMetricTag";
}

// Whom the job's replicas run as: its owner, when that is another user.
std::optional<UserCredentials> RunAs(const JobOwner& owner, Env& env) {
  if (!RunsAsAnotherUser(owner, env)) return std::nullopt;
  return LookUpUser(static_cast<uid_t>(owner.uid),
                    static_cast<gid_t>(owner.gid));
}

}  // namespace

bool RunsAsAnotherUser(const JobOwner& owner, Env& env) {
  return owner.known() &&
         owner.uid != static_cast<int64_t>(env.EffectiveUserId());
}

JobRun::JobRun(store::Store& store, engine::TuningEngine& engine,
               launch::Launcher& launcher, const JobRunnerOptions& options,
               Env& env, const JobSpec& job, const JobRecord& record,
               StudyRecord study, RecordState record_state)
    : store_(store),
      engine_(engine),
      launcher_(launcher),
      options_(options),
      env_(env),
      record_state_(std::move(record_state)),
      job_(job),
      submitted_(record.create_time),
      started_(record.start_time),
      study_(std::move(study)),
      user_(study_.owner_uid >= 0 ? study_.owner_uid : record.owner.uid),
      requests_(launch::ReplicaRequests(job)),
      training_input_json_(TrainingInputToJson(job)),
      job_dir_(job.job_dir),
      run_as_(RunAs(record.owner, env)),
      limits_{.max_replica_restarts = options.max_replica_restarts,
              .max_trial_retries = options.max_trial_retries,
              .termination_grace = options.termination_grace,
              .max_log_bytes = options.max_log_bytes},
      waiter_(options.admission, user_),
      slots_(job.job_id, study_.spec.max_parallel_trials) {}

bool JobRun::Cancelled() const {
  return options_.cancel != nullptr &&
         options_.cancel->load(std::memory_order_relaxed);
}

absl::Status JobRun::Begin() {
  HPTUNE_RETURN_IF_ERROR(launcher_.BeginJob(job_));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study_.name));
  slots_.FindUnfinished(trials);
  Progress(State());
  return absl::OkStatus();
}

absl::StatusOr<bool> JobRun::StartTrials() {
  bool started = false;
  waiting_for_gpus_ = false;
  while (!exhausted_ && !blocked_ && slots_.HasFree()) {
    // Refused, the trial waits as for GPUs: the next step asks again.
    std::optional<TrialAdmission::Ticket> ticket = waiter_.TryAdmit();
    if (!ticket) break;
    auto placement = launcher_.Reserve(requests_);
    if (absl::IsResourceExhausted(placement.status())) {
      waiting_for_gpus_ = true;
      break;
    }
    HPTUNE_RETURN_IF_ERROR(placement.status());
    const int slot = slots_.NextFree();
    HPTUNE_ASSIGN_OR_RETURN(engine::SuggestResponse response,
                            NextTrial(slots_.Client(slot)));
    if (response.trials.empty()) {
      // Nothing now; later only if running trials end (maxParallelTrials
      // counts trials of other clients too) and the study is not done.
      exhausted_ = response.study_completed || slots_.running().empty();
      blocked_ = true;
      break;
    }
    HPTUNE_RETURN_IF_ERROR(
        StartTrial(slot, response.trials.front(), *std::move(placement)));
    admitted_.insert_or_assign(slot, *std::move(ticket));
    started = true;
  }
  slots_.Trim();
  return started;
}

absl::StatusOr<engine::SuggestResponse> JobRun::NextTrial(
    const std::string& client) {
  if (job_.study) return engine_.SuggestTrials(study_.name, 1, client);
  // A job without a study runs once: its one trial, made here (no designer
  // has a space to search), or found unfinished by a runner taking over.
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study_.name));
  engine::SuggestResponse response;
  if (trials.empty()) {
    HPTUNE_ASSIGN_OR_RETURN(
        Trial made,
        engine_.CreateTrial(study_.name, {.state = TrialState::kActive,
                                          .client_id = client,
                                          .origin = "one run"}));
    response.trials.push_back(std::move(made));
  } else if (!IsTerminal(trials.front().state)) {
    response.trials.push_back(std::move(trials.front()));
  } else {
    response.study_completed = true;
  }
  return response;
}

absl::Status JobRun::StartTrial(int slot, const Trial& trial,
                                std::unique_ptr<launch::Placement> placement) {
  const std::filesystem::path trial_dir =
      RunsLayout(options_.runs_dir).TrialDir(job_.job_id, trial.number);
  // A failure shows as the replicas' log files that cannot be opened.
  env_.CreatePrivateDirectories(trial_dir).IgnoreError();
  // The trial's directory is its replicas' working directory: their user's.
  if (run_as_) GiveToUser(trial_dir, *run_as_).IgnoreError();
  HPTUNE_ASSIGN_OR_RETURN(const std::optional<TakeOver> take_over,
                          TakeOverOf(store_, study_.name, trial));
  const int64_t checkpoint_trial = take_over ? take_over->first_trial : 0;
  HPTUNE_ASSIGN_OR_RETURN(const std::filesystem::path working_dir,
                          env_.WorkingDirectory());
  const launch::TrialContext context{
      .job = &job_,
      .training_input_json = training_input_json_,
      .trial = trial.number,
      .parameters = trial.parameters,
      .metric_tag = study_.spec.metric_tag(),
      .job_dir = job_dir_,
      .trial_dir = trial_dir,
      .checkpoint_trial = checkpoint_trial,
      .checkpoint_trial_dir =
          RunsLayout(options_.runs_dir).TrialDir(job_.job_id, checkpoint_trial),
      .working_dir = working_dir,
      .gcs_root = options_.gcs_root};
  HPTUNE_ASSIGN_OR_RETURN(
      launch::TrialLaunch launch,
      launch::BuildTrialLaunch(context, requests_, placement->replicas()));
  // The AIP_* directories exist from the start, so a trainer can write a
  // checkpoint without making them. A failure shows as the trainer's.
  if (const launch::AipDirs aip = launch::TrialOutputDirs(context); aip.local) {
    // Made by their user, wherever the job's jobDir names.
    std::optional<ScopedFileIdentity> as_user;
    if (run_as_) as_user.emplace(*run_as_);
    for (const std::string& dir :
         {aip.model, aip.checkpoint, aip.tensorboard}) {
      env_.CreatePrivateDirectories(dir).IgnoreError();
    }
  }
  launch.job_id = job_.job_id;
  for (launch::ReplicaLaunch& replica : launch.replicas) {
    replica.run_as = run_as_;
  }
  auto execution = std::make_unique<TrialExecution>(
      store_, study_.name, launcher_, std::move(launch), std::move(placement),
      job_.study ? study_.spec.metric_tag() : "", ObjectiveField(job_), limits_,
      env_);
  HPTUNE_RETURN_IF_ERROR(
      execution->Start(trial, slots_.TakeUnfinished(trial.number)));
  if (take_over && !execution->reattached()) {
    resumed_at_[trial.number] = take_over->after_step;
    // The stopped trial's training runs again: it is neither done nor
    // stopped (when this run counted it).
    if (stopped_early_ > 0) {
      --stopped_early_;
      --succeeded_;
    }
  }
  // Only replicas that kept running report again what is already stored;
  // a trial started afresh reports new measurements, even equal ones.
  if (execution->reattached()) {
    HPTUNE_ASSIGN_OR_RETURN(Trial stored,
                            store_.GetTrial(study_.name, trial.number));
    stored_[trial.number] = launch::StoredReports(stored.measurements);
  }
  slots_.Occupy(slot, std::move(execution));
  return absl::OkStatus();
}

absl::Status JobRun::Report(std::vector<Measurement> measurements,
                            int64_t trial) {
  if (auto stored = stored_.find(trial); stored != stored_.end()) {
    measurements = stored->second.TakeUnstored(std::move(measurements));
  }
  if (auto resumed = resumed_at_.find(trial);
      resumed != resumed_at_.end() && !measurements.empty()) {
    if (measurements.front().step <= resumed->second &&
        warnings_.size() < kMaxWarnings) {
      warnings_.push_back(absl::StrCat(
          "trial ", trial, " resumes a stopped trial after step ",
          resumed->second, ", but its trainer reported step ",
          measurements.front().step,
          ": it did not load its checkpoint from AIP_CHECKPOINT_DIR "
          "(docs/trainer.md, \"Resuming from a checkpoint\")"));
    }
    resumed_at_.erase(resumed);
  }
  for (Measurement& m : measurements) {
    absl::Status added =
        engine_.AddMeasurement(study_.name, trial, std::move(m));
    // A quota (the server's on its owner's stored bytes) refuses the
    // report, not the trial, which runs on; the job's log says so once.
    if (absl::IsResourceExhausted(added)) {
      if (!quota_warned_ && warnings_.size() < kMaxWarnings) {
        warnings_.push_back(absl::StrCat(
            "trial ", trial,
            ": reports not stored from here on: ", added.message()));
      }
      quota_warned_ = true;
      continue;
    }
    HPTUNE_RETURN_IF_ERROR(added);
    new_measurements_ = true;
  }
  return absl::OkStatus();
}

void JobRun::Release(int slot) {
  const int64_t trial = slots_.running().at(slot)->trial();
  stored_.erase(trial);
  resumed_at_.erase(trial);
  slots_.Release(slot);
  admitted_.erase(slot);
  blocked_ = false;
}

absl::StatusOr<bool> JobRun::PollTrials() {
  bool changed = false;
  JobSlots::Running& running = slots_.running();
  for (auto it = running.begin(); it != running.end();) {
    const int slot = it->first;
    TrialExecution& execution = *it->second;
    ++it;  // EndTrial() below erases this entry.
    HPTUNE_ASSIGN_OR_RETURN(TrialPoll poll, execution.Poll());
    changed |= poll.changed;
    restarts_ += poll.restarts;
    // Before the trial's outcome is stored: a trial that ended ran first.
    if (!started_ && !execution.queued()) {
      HPTUNE_RETURN_IF_ERROR(MarkRunning());
      changed = true;
    }
    if (queue_.LeftQueue(execution.trial(), execution.queued())) {
      HPTUNE_RETURN_IF_ERROR(
          engine_.MarkTrialStarted(study_.name, execution.trial(), env_.Now())
              .status());
    }
    const size_t warned = warnings_.size();
    HPTUNE_RETURN_IF_ERROR(
        Report(std::move(poll.measurements), execution.trial()));
    changed |= warnings_.size() != warned;
    if (!poll.warning.empty() && warnings_.size() < kMaxWarnings) {
      warnings_.push_back(poll.warning);
      changed = true;
    }
    HPTUNE_RETURN_IF_ERROR(EndTrial(slot, poll));
  }
  // A trial leaving the backend's queue is news too.
  changed |= queue_.Note(running);
  return changed;
}

absl::Status JobRun::EndTrial(int slot, const TrialPoll& poll) {
  const int64_t trial = slots_.running().at(slot)->trial();
  switch (poll.outcome) {
    case TrialPoll::Outcome::kRunning:
      return absl::OkStatus();
    case TrialPoll::Outcome::kSucceeded:
      HPTUNE_RETURN_IF_ERROR(
          engine_.CompleteTrial(study_.name, trial, std::nullopt).status());
      ++succeeded_;
      break;
    case TrialPoll::Outcome::kFailed:
      HPTUNE_RETURN_IF_ERROR(
          engine_.MarkTrialFailed(study_.name, trial, poll.reason).status());
      ++failed_;
      last_failure_ = absl::StrCat("trial ", trial, ": ", poll.reason);
      // A typo or a missing module fails every trial alike: the first such
      // failure ends the job, with what the log says, unless trials have
      // succeeded (then it is this trial's own, counted as usual).
      if (poll.permanent && succeeded_ == 0 && !permanent_failure_) {
        permanent_failure_ = absl::StrCat(
            last_failure_,
            "\nThis error is permanent (restarts and re-runs "
            "cannot cure it) and no trial has succeeded, so the job stops.");
        if (!poll.log_tail.empty()) {
          absl::StrAppend(&*permanent_failure_, "\nThe log's last ",
                          poll.log_tail.size(), " lines:");
          for (const std::string& line : poll.log_tail) {
            absl::StrAppend(&*permanent_failure_, "\n  ", line);
          }
        }
      }
      break;
    case TrialPoll::Outcome::kInfeasible:
      // A result for the designer (this point diverges), not a failure of
      // the job: it does not count against maxFailedTrials.
      HPTUNE_RETURN_IF_ERROR(
          engine_.MarkTrialInfeasible(study_.name, trial, poll.reason)
              .status());
      ++infeasible_;
      break;
  }
  Release(slot);
  return absl::OkStatus();
}

absl::Status JobRun::StopEarly() {
  if (!study_.spec.enable_early_stopping || !new_measurements_) {
    return absl::OkStatus();
  }
  new_measurements_ = false;
  HPTUNE_ASSIGN_OR_RETURN(
      std::vector<algorithms::StoppingDecision> decisions,
      engine_.CheckEarlyStopping(study_.name,
                                 study_.spec.EffectiveStoppingRule()));
  for (const auto& decision : decisions) {
    if (!decision.stop) continue;
    JobSlots::Running& running = slots_.running();
    auto it = std::find_if(running.begin(), running.end(), [&](auto& r) {
      return r.second->trial() == decision.trial;
    });
    if (it == running.end()) continue;
    HPTUNE_RETURN_IF_ERROR(
        engine_.StopTrial(study_.name, decision.trial, decision.reason)
            .status());
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Measurement> last, it->second->Stop());
    HPTUNE_RETURN_IF_ERROR(Report(std::move(last), decision.trial));
    HPTUNE_RETURN_IF_ERROR(
        engine_.CompleteTrial(study_.name, decision.trial, std::nullopt)
            .status());
    ++succeeded_;
    ++stopped_early_;
    busy_ = true;
    Release(it->first);
  }
  return absl::OkStatus();
}

absl::Status JobRun::EndAll(std::string_view reason) {
  JobSlots::Running& running = slots_.running();
  while (!running.empty()) {
    const auto& [slot, execution] = *running.begin();
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Measurement> last, execution->Stop());
    HPTUNE_RETURN_IF_ERROR(Report(std::move(last), execution->trial()));
    HPTUNE_RETURN_IF_ERROR(
        engine_.MarkTrialCancelled(study_.name, execution->trial(), reason)
            .status());
    Release(slot);
  }
  return absl::OkStatus();
}

JobState JobRun::State() const {
  return started_ ? JobState::kRunning : JobState::kPreparing;
}

absl::Status JobRun::MarkRunning() {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord record, record_state_(JobState::kRunning));
  started_ = record.start_time.value_or(env_.Now());
  return absl::OkStatus();
}

absl::StatusOr<JobOutcome> JobRun::Cancel(std::string message) {
  HPTUNE_RETURN_IF_ERROR(record_state_(JobState::kCancelling).status());
  Progress(JobState::kCancelling);
  HPTUNE_RETURN_IF_ERROR(EndAll(
      message.empty() ? std::string("the job was cancelled")
                      : absl::StrCat("the job was cancelled: ", message)));
  return JobOutcome{JobState::kCancelled, std::move(message)};
}

void JobRun::Progress(JobState state) {
  if (!options_.on_progress) return;
  std::vector<int64_t> running;
  for (const auto& [slot, execution] : slots_.running()) {
    running.push_back(execution->trial());
  }
  JobProgress progress = BuildProgress({.job_id = job_.job_id,
                                        .state = state,
                                        .max_trials = study_.TrialBudget(),
                                        .succeeded = succeeded_,
                                        .stopped_early = stopped_early_,
                                        .failed = failed_,
                                        .infeasible = infeasible_,
                                        .queued = waiting_for_gpus_ ? 1 : 0,
                                        .restarts = restarts_,
                                        .last_failure = last_failure_,
                                        .warnings = warnings_},
                                       running, queue_.waiting());
  auto best = engine_.BestTrial(study_.name);
  if (best.ok()) progress.best = *best;
  options_.on_progress(progress);
}

bool JobRun::Done() const {
  return exhausted_ && slots_.running().empty() && !slots_.AnyUnfinished();
}

std::vector<int> JobRun::ExitFds() const {
  std::vector<int> fds;
  for (const auto& [slot, execution] : slots_.running()) {
    for (int fd : execution->ExitFds()) fds.push_back(fd);
  }
  return fds;
}

absl::StatusOr<std::optional<JobOutcome>> JobRun::Step() {
  busy_ = false;
  if (Cancelled()) return Cancel("");
  if (std::optional<std::string> limit =
          TimeLimitReached(job_.scheduling, env_.Now(), submitted_, started_)) {
    return Cancel(*std::move(limit));
  }
  HPTUNE_ASSIGN_OR_RETURN(bool changed, PollTrials());
  HPTUNE_RETURN_IF_ERROR(StopEarly());
  if (permanent_failure_) {
    HPTUNE_RETURN_IF_ERROR(
        EndAll("the job failed: a trial failed with a permanent error"));
    return JobOutcome{JobState::kFailed, *permanent_failure_};
  }
  const int max_failed = study_.spec.EffectiveMaxFailedTrials();
  if (failed_ >= max_failed) {
    // A job without a study fails with its one run, for that run's reason.
    std::string message = job_.study
                              ? absl::StrCat("maxFailedTrials (", max_failed,
                                             ") reached; last: ", last_failure_)
                              : last_failure_;
    HPTUNE_RETURN_IF_ERROR(EndAll("the job failed: maxFailedTrials reached"));
    return JobOutcome{JobState::kFailed, std::move(message)};
  }
  // After the poll, so a slot freed by an ended trial is filled at once.
  HPTUNE_ASSIGN_OR_RETURN(bool started, StartTrials());
  // A trial just handed to the backend may wait in its queue: say so from
  // the first progress report on, not from the next poll.
  busy_ |= queue_.Note(slots_.running()) || changed || started;
  if (busy_) Progress(State());
  if (!Done()) return std::nullopt;
  if (succeeded_ == 0 && failed_ > 0) {
    return JobOutcome{
        JobState::kFailed,
        absl::StrCat("no trial succeeded; last: ", last_failure_)};
  }
  return JobOutcome{JobState::kSucceeded, ""};
}

}  // namespace hptune::runner::internal
