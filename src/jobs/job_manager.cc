#include "src/jobs/job_manager.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"
#include "src/jobs/take_over.h"

namespace hptune::jobs {
namespace {

std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", std::string(text), "\"");
}

}  // namespace

JobManager::JobManager(store::Store& store, engine::TuningEngine& engine,
                       launch::Launcher& launcher,
                       runner::JobRunnerOptions options, Env& env,
                       JobLog::Sink log, store::RunnerLease* lease)
    : store_(store),
      engine_(engine),
      launcher_(launcher),
      options_(std::move(options)),
      env_(env),
      log_(std::move(log)),
      lease_(lease) {}

JobManager::~JobManager() {
  std::vector<RunningJob*> jobs;
  {
    MutexLock lock(&mutex_);
    for (auto& [id, job] : jobs_) {
      job->cancel.store(true);
      jobs.push_back(job.get());
    }
  }
  // Without the lock: the runner threads take it to report progress.
  for (RunningJob* job : jobs) {
    if (job->thread.joinable()) job->thread.join();
  }
}

void JobManager::Bump() {
  {
    MutexLock lock(&mutex_);
    ++version_;
  }
  changed_.SignalAll();
}

uint64_t JobManager::version() const {
  MutexLock lock(&mutex_);
  return version_;
}

uint64_t JobManager::WaitForChange(uint64_t seen,
                                   std::chrono::milliseconds timeout) {
  const MonotonicTime deadline = env_.MonotonicNow() + timeout;
  MutexLock lock(&mutex_);
  while (version_ == seen) {
    if (!env_.WaitUntil(&changed_, &mutex_, deadline)) break;
  }
  return version_;
}

bool JobManager::IsRunning(std::string_view job_id) const {
  MutexLock lock(&mutex_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && !it->second->done.load();
}

std::set<int64_t> JobManager::TrialsNotRunningYet(
    std::string_view job_id, const std::vector<Trial>& trials) const {
  MutexLock lock(&mutex_);
  std::set<int64_t> waiting;
  auto it = launched_.find(job_id);
  if (it == launched_.end()) return waiting;
  const LaunchedTrials& reported = it->second;
  auto holds = [](const std::vector<int64_t>& sorted, int64_t n) {
    return std::binary_search(sorted.begin(), sorted.end(), n);
  };
  for (const Trial& t : trials) {
    // A trial the engine handed out whose launch the runner has not
    // reported yet (e.g. sbatch still running) is not running either.
    if (t.state == TrialState::kActive &&
        (!holds(reported.launched, t.number) ||
         holds(reported.waiting, t.number))) {
      waiting.insert(t.number);
    }
  }
  return waiting;
}

absl::StatusOr<JobRecord> JobManager::Submit(const JobSpec& job, JobOwner owner,
                                             int64_t study_owner) {
  // Held before it is stored: another server never sees it free.
  absl::StatusOr<std::unique_ptr<store::JobHold>> hold = Hold(job.job_id);
  if (!hold.ok()) {
    // Held by another server: the job is stored, or being submitted there.
    if (store_.GetJob(job.job_id).ok()) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", Quoted(job.job_id), " already exists"));
    }
    return hold.status();
  }
  runner::JobRunner runner(store_, engine_, launcher_, options_, env_);
  HPTUNE_ASSIGN_OR_RETURN(JobRecord record,
                          runner.Submit(job, owner, study_owner));
  StartThread(job, *std::move(hold));
  Bump();
  return record;
}

absl::StatusOr<std::unique_ptr<store::JobHold>> JobManager::Hold(
    std::string_view job_id) {
  if (lease_ == nullptr) return std::make_unique<store::JobHold>();
  return lease_->HoldJob(job_id);
}

void JobManager::StartThread(const JobSpec& job,
                             std::unique_ptr<store::JobHold> hold) {
  MutexLock lock(&mutex_);
  auto& slot = jobs_[job.job_id];
  if (slot && !slot->done.load()) return;
  if (slot && slot->thread.joinable()) slot->thread.join();
  slot = std::make_unique<RunningJob>();
  RunningJob* running = slot.get();
  running->hold = std::move(hold);
  running->thread = std::thread([this, job, running] { RunJob(job, running); });
}

void JobManager::RunJob(JobSpec job, RunningJob* running) {
  runner::JobRunnerOptions options = options_;
  options.cancel = &running->cancel;
  JobLog log(job.job_id, job.study ? job.study->metric_tag() : "", log_,
             [this, &job](int64_t number) -> std::optional<Trial> {
               absl::StatusOr<Trial> trial =
                   store_.GetTrial(job.job_id, number);
               if (!trial.ok()) return std::nullopt;
               return *std::move(trial);
             });
  log.Started();
  options.on_progress = [this, &log](const runner::JobProgress& progress) {
    log.Progress(progress);
    {
      MutexLock lock(&mutex_);
      launched_[progress.job_id] = {progress.launched,
                                    progress.waiting_in_backend};
    }
    Bump();
  };
  runner::JobRunner runner(store_, engine_, launcher_, options, env_);
  absl::StatusOr<JobRecord> result = runner.Run(job);
  if (!result.ok()) {
    // The runner could not go on (e.g. the store failed): say so on the job
    // rather than leave it RUNNING with nobody running it.
    const std::string message =
        absl::StrCat("the server could not run the job: ",
                     std::string(result.status().message()));
    FailJob(job.job_id, message);
    log.Ended(JobState::kFailed, message);
  } else {
    log.Ended(result->state, result->error_message);
  }
  {
    MutexLock lock(&mutex_);
    launched_.erase(job.job_id);
  }
  running->hold.reset();
  running->done.store(true);
  Bump();
}

void JobManager::FailJob(const std::string& job_id,
                         const std::string& message) {
  absl::StatusOr<JobRecord> failed =
      store_.UpdateJob(job_id, [&](JobRecord& j) {
        if (IsTerminal(j.state)) return absl::OkStatus();
        j.error_message = message;
        return j.TransitionTo(JobState::kFailed, env_.Now());
      });
  if (!failed.ok() || failed->state != JobState::kFailed) return;
  // Nobody runs them any more: a trial left ACTIVE would stay so for good.
  absl::StatusOr<std::vector<Trial>> trials =
      store_.ListTrialSummaries(failed->study_name);
  if (!trials.ok()) return;
  for (const Trial& trial : *trials) {
    if (IsTerminal(trial.state)) continue;
    (void)engine_.MarkTrialFailed(failed->study_name, trial.number, message)
        .status();
  }
}

void JobManager::FailUnresumable(const std::string& job_id,
                                 const std::string& why) {
  FailJob(job_id, absl::StrCat("cannot resume: ", why));
}

void JobManager::ResumeUnfinished(const Admission& admit) {
  auto jobs = store_.ListJobs();
  if (!jobs.ok()) return;
  ResumeFree(*jobs, admit);
  Bump();
}

int JobManager::TakeOverOrphans(const Admission& admit) {
  if (lease_ == nullptr || !lease_->shared()) return 0;
  auto jobs = store_.ListJobs();
  if (!jobs.ok()) return 0;
  bool changed = false;
  for (const JobRecord& record : *jobs) {
    // Another server's JobManager::Cancel.
    if (record.state == JobState::kCancelling) {
      changed |= FlagCancel(record.job_id);
    }
  }
  const std::vector<std::string> taken = ResumeFree(*jobs, admit);
  // Not at start-up (ResumeUnfinished), when the sink may wait for the
  // server's start lines.
  for (const std::string& job_id : taken) {
    if (log_) log_(absl::StrCat("job ", job_id, ": taken over"));
  }
  if (changed || !taken.empty()) Bump();
  return static_cast<int>(taken.size());
}

std::vector<std::string> JobManager::ResumeFree(
    const std::vector<JobRecord>& jobs, const Admission& admit) {
  std::vector<std::string> started;
  for (const JobRecord& listed : jobs) {
    if (IsTerminal(listed.state) || IsRunning(listed.job_id)) continue;
    absl::StatusOr<std::unique_ptr<store::JobHold>> hold = Hold(listed.job_id);
    if (!hold.ok()) continue;  // Another runner has it.
    // Read again once held: its runner may have ended it since the list.
    absl::StatusOr<JobRecord> record = store_.GetJob(listed.job_id);
    if (!record.ok() || IsTerminal(record->state)) continue;
    if (Resume(*record, admit, *std::move(hold))) {
      started.push_back(record->job_id);
    }
  }
  return started;
}

bool JobManager::Resume(const JobRecord& record, const Admission& admit,
                        std::unique_ptr<store::JobHold> hold) {
  absl::StatusOr<JobSpec> job =
      DecodeStoredJob(record.training_input_json, record.job_id);
  if (!job.ok()) {
    StopLeftovers(launcher_, options_.runs_dir, record.job_id);
    FailUnresumable(record.job_id,
                    absl::StrCat("the stored trainingInput no longer parses: ",
                                 job.status().message()));
    return false;
  }
  job->labels = record.labels;
  job->slurm = record.slurm;
  if (absl::Status allowed = admit ? admit(record, *job) : absl::OkStatus();
      !allowed.ok()) {
    StopLeftovers(launcher_, options_.runs_dir, record.job_id);
    FailUnresumable(record.job_id, std::string(allowed.message()));
    return false;
  }
  absl::StatusOr<TakeOver> taken = TakeOverJob(
      store_, engine_, launcher_, options_.runs_dir, record, *job, env_);
  if (!taken.ok()) {
    FailUnresumable(record.job_id, std::string(taken.status().message()));
    return false;
  }
  if (*taken != TakeOver::kRun) return false;
  StartThread(*job, std::move(hold));
  return true;
}

bool JobManager::FlagCancel(std::string_view job_id) {
  MutexLock lock(&mutex_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second->done.load()) return false;
  return !it->second->cancel.exchange(true);
}

absl::StatusOr<JobRecord> JobManager::Cancel(std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, store_.GetJob(job_id));
  if (IsTerminal(job.state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", Quoted(job_id), " has ended (",
                     std::string(ToString(job.state)), "): nothing to cancel"));
  }
  if (!FlagCancel(job_id) && !IsRunning(job_id)) {
    if (lease_ == nullptr || !lease_->shared()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", Quoted(job_id), " is ", std::string(ToString(job.state)),
          " but not run by this server (another `hptune run`?): cancel it "
          "there"));
    }
    // Another server runs it (its TakeOverOrphans passes the request on),
    // or will take it over and finish it CANCELLED (TakeOverJob).
    return store_.UpdateJob(job_id, [&](JobRecord& j) {
      if (IsTerminal(j.state) || j.state == JobState::kCancelling) {
        return absl::OkStatus();
      }
      return j.TransitionTo(JobState::kCancelling, env_.Now());
    });
  }
  Bump();
  // The runner records CANCELLING at its next poll; give it a moment so the
  // reply shows it.
  const MonotonicTime deadline = env_.MonotonicNow() + std::chrono::seconds(2);
  uint64_t seen = version();
  while (env_.MonotonicNow() < deadline) {
    HPTUNE_ASSIGN_OR_RETURN(job, store_.GetJob(job_id));
    if (job.state == JobState::kCancelling || IsTerminal(job.state)) break;
    seen = WaitForChange(seen, std::chrono::milliseconds(50));
  }
  return job;
}

absl::Status JobManager::Delete(std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(const JobRecord job, store_.GetJob(job_id));
  // The store refuses it, naming its state.
  if (!IsTerminal(job.state)) return engine_.DeleteJob(job_id);
  // An ended job's thread may still be releasing what it held.
  const MonotonicTime deadline = env_.MonotonicNow() + std::chrono::seconds(5);
  for (uint64_t seen = version(); IsRunning(job_id);) {
    if (env_.MonotonicNow() >= deadline) {
      return absl::AbortedError(absl::StrCat(
          "job ", Quoted(job_id),
          " has ended but its runner is still finishing: try again"));
    }
    seen = WaitForChange(seen, std::chrono::milliseconds(50));
  }
  const RunsLayout runs(options_.runs_dir);
  const std::filesystem::path kept = runs.root() / ".deleted";
  const std::filesystem::path moved =
      kept / absl::StrCat(std::string(job_id), ".", ToUnixMicros(env_.Now()));
  const bool has_dir = env_.TypeOf(runs.JobDir(job_id)).ok();
  if (has_dir) {
    HPTUNE_RETURN_IF_ERROR(env_.CreatePrivateDirectories(kept));
    HPTUNE_RETURN_IF_ERROR(env_.Rename(runs.JobDir(job_id), moved));
  }
  absl::Status deleted = engine_.DeleteJob(job_id);
  if (!deleted.ok() && has_dir) {
    env_.Rename(moved, runs.JobDir(job_id)).IgnoreError();
  }
  return deleted;
}

}  // namespace hptune::jobs
