#include "src/jobs/draining_launcher.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/launch/replica_env.h"

namespace hptune::jobs {

class DrainingLauncher::Run : public launch::TrialRun {
 public:
  Run(DrainingLauncher& owner, std::unique_ptr<launch::TrialRun> inner,
      const launch::TrialLaunch& launch)
      : owner_(owner),
        drained_marker_(
            launch.replicas.empty()
                ? std::filesystem::path()
                : DrainedAttemptIn(
                      launch.replicas.front().log_path.parent_path())),
        inner_(std::move(inner)) {}
  ~Run() override {
    owner_.Forget(this);
    MutexLock lock(&mutex_);
    inner_.reset();
  }

  absl::StatusOr<std::vector<launch::ReplicaExit>> Poll() override {
    MutexLock lock(&mutex_);
    if (drained_) return std::vector<launch::ReplicaExit>();
    return inner_->Poll();
  }
  absl::Status Restart(int replica) override {
    MutexLock lock(&mutex_);
    if (drained_) {
      return absl::UnavailableError("the server is shutting down");
    }
    return inner_->Restart(replica);
  }
  bool IsRunning(int replica) const override {
    MutexLock lock(&mutex_);
    return !drained_ && inner_->IsRunning(replica);
  }
  bool Queued() const override {
    MutexLock lock(&mutex_);
    return !drained_ && inner_->Queued();
  }
  // Drained, no exit is reported: nothing to wait for.
  std::vector<int> ExitFds() const override {
    MutexLock lock(&mutex_);
    if (drained_) return {};
    return inner_->ExitFds();
  }
  void Terminate(std::chrono::milliseconds grace) override {
    MutexLock lock(&mutex_);
    inner_->Terminate(grace);
  }
  void Drain(std::chrono::milliseconds grace) {
    MutexLock lock(&mutex_);
    drained_ = true;
    // Before the replicas stop: the attempt ends for the server's sake, and
    // the next runner must not count it against the trial's retries. A
    // marker that cannot be written only costs the trial one retry.
    if (!drained_marker_.empty()) {
      owner_.env_.WriteFileAtomically(drained_marker_, "").IgnoreError();
    }
    inner_->Terminate(grace);
  }

 private:
  DrainingLauncher& owner_;
  const std::filesystem::path drained_marker_;
  mutable Mutex mutex_;
  bool drained_ ABSL_GUARDED_BY(mutex_) = false;
  std::unique_ptr<launch::TrialRun> inner_ ABSL_GUARDED_BY(mutex_);
};

absl::Status DrainingLauncher::CheckFits(
    const std::vector<launch::ReplicaRequest>& requests) const {
  return inner_.CheckFits(requests);
}

absl::StatusOr<std::unique_ptr<launch::Placement>> DrainingLauncher::Reserve(
    const std::vector<launch::ReplicaRequest>& requests) {
  return inner_.Reserve(requests);
}

void DrainingLauncher::BlockIfDraining() {
  MutexLock lock(&mutex_);
  // Never signalled: a draining server exits with this thread parked here,
  // so the trial it was about to start stays ACTIVE for the next server.
  while (draining_) never_.Wait(&mutex_);
}

absl::Status DrainingLauncher::BeginJob(const JobSpec& job) {
  {
    MutexLock lock(&mutex_);
    jobs_.insert(job.job_id);
  }
  return inner_.BeginJob(job);
}

void DrainingLauncher::EndJob(const std::string& job_id) {
  {
    MutexLock lock(&mutex_);
    jobs_.erase(job_id);
  }
  inner_.EndJob(job_id);
}

absl::StatusOr<std::unique_ptr<launch::TrialRun>> DrainingLauncher::Start(
    const launch::TrialLaunch& launch) {
  BlockIfDraining();
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<launch::TrialRun> inner,
                          inner_.Start(launch));
  auto run = std::make_unique<Run>(*this, std::move(inner), launch);
  if (!TrackUnlessDraining(run.get())) {
    // Drain() began while it started: stop it like the others.
    run->Drain(std::chrono::milliseconds(0));
    BlockIfDraining();  // Never returns.
  }
  return std::unique_ptr<launch::TrialRun>(std::move(run));
}

absl::StatusOr<std::unique_ptr<launch::TrialRun>> DrainingLauncher::Reattach(
    const launch::TrialLaunch& launch) {
  BlockIfDraining();
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<launch::TrialRun> inner,
                          inner_.Reattach(launch));
  if (inner == nullptr) return inner;
  auto run = std::make_unique<Run>(*this, std::move(inner), launch);
  MutexLock lock(&mutex_);
  runs_.insert(run.get());
  return std::unique_ptr<launch::TrialRun>(std::move(run));
}

bool DrainingLauncher::TrackUnlessDraining(Run* run) {
  MutexLock lock(&mutex_);
  if (draining_) return false;
  runs_.insert(run);
  return true;
}

void DrainingLauncher::Forget(Run* run) {
  MutexLock lock(&mutex_);
  runs_.erase(run);
}

void DrainingLauncher::Drain(std::chrono::milliseconds grace) {
  std::vector<Run*> runs;
  {
    MutexLock lock(&mutex_);
    draining_ = true;
    runs.assign(runs_.begin(), runs_.end());
  }
  // A run's destructor waits for mutex_ in Forget(); the runs are drained
  // without it. A run destroyed meanwhile has stopped its replicas itself.
  for (Run* run : runs) {
    MutexLock lock(&mutex_);
    if (runs_.contains(run)) run->Drain(grace);
  }
  std::set<std::string> jobs;
  {
    MutexLock lock(&mutex_);
    jobs.swap(jobs_);
  }
  for (const std::string& job_id : jobs) inner_.EndJob(job_id);
}

}  // namespace hptune::jobs
