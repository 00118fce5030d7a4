#include "src/launch/slurm/slurm_trial_run.h"

#include <csignal>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/launch/slurm/slurm_commands.h"

namespace hptune::launch::slurm_internal {
namespace {

// Long enough for Slurm's KillWait and the epilog of a loaded controller;
// the job is cancelled by then, this only bounds how long we watch it go.
constexpr std::chrono::seconds kCancelDeadline{60};
constexpr std::chrono::milliseconds kWaitStep{20};

}  // namespace

SlurmTrialRun::SlurmTrialRun(Env& env, std::string slurm_job,
                             std::filesystem::path dir, int replicas,
                             std::chrono::milliseconds state_poll_interval)
    : env_(env),
      slurm_job_(std::move(slurm_job)),
      dir_(std::move(dir)),
      state_poll_interval_(state_poll_interval),
      replicas_(replicas),
      last_state_check_(env.MonotonicNow()) {}

std::unique_ptr<SlurmTrialRun> SlurmTrialRun::Attach(
    Env& env, std::string slurm_job, std::filesystem::path dir, int replicas,
    std::chrono::milliseconds state_poll_interval) {
  auto run = std::make_unique<SlurmTrialRun>(
      env, std::move(slurm_job), std::move(dir), replicas, state_poll_interval);
  for (int k = 0; k < replicas; ++k) {
    Replica& replica = run->replicas_[k];
    while (env.Exists(run->dir_ /
                      absl::StrCat("r", k, ".restart.", replica.run + 1))) {
      ++replica.run;
    }
    // An exit the dead process may not have seen: Poll() reports it.
    replica.running = true;
  }
  return run;
}

SlurmTrialRun::~SlurmTrialRun() {
  if (!terminated_) Terminate(kDestructorGrace);
}

std::filesystem::path SlurmTrialRun::ExitFile(int replica, int run) const {
  return dir_ / absl::StrCat("r", replica, ".exit.", run);
}

void SlurmTrialRun::Touch(const std::filesystem::path& path) {
  // Unsynced and readable by the node's side, as an ofstream's file was.
  env_.WriteFileAtomically(path, "", 0644, Durability::kUnsynced).IgnoreError();
}

std::optional<ReplicaExit> SlurmTrialRun::ReadExit(int replica) const {
  absl::StatusOr<std::string> text =
      env_.ReadFile(ExitFile(replica, replicas_[replica].run));
  if (!text.ok()) return std::nullopt;
  std::istringstream in(*text);
  ReplicaExit exit{.replica = replica};
  if (!(in >> exit.exit_code >> exit.signal)) {
    // Written by rename, so never half-written; unreadable means the file
    // system lost it. Count it as a failure rather than wait forever.
    exit = ReplicaExit{.replica = replica, .exit_code = 255};
  }
  return exit;
}

void SlurmTrialRun::RefreshJobState(bool force) {
  if (job_ended_) return;
  const MonotonicTime now = env_.MonotonicNow();
  if (!force && now - last_state_check_ < state_poll_interval_) return;
  last_state_check_ = now;
  auto state = QueryJob(env_, slurm_job_);
  if (!state.ok()) return;
  job_state_ = state->state;
  job_ended_ = state->phase != JobPhase::kAlive;
}

bool SlurmTrialRun::AnyRunning() const {
  for (const Replica& r : replicas_) {
    if (r.running) return true;
  }
  return false;
}

absl::StatusOr<std::vector<ReplicaExit>> SlurmTrialRun::Poll() {
  std::vector<ReplicaExit> exits;
  if (terminated_) return exits;
  auto collect = [&] {
    for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
      if (!replicas_[k].running) continue;
      if (auto exit = ReadExit(k)) {
        replicas_[k].running = false;
        exits.push_back(*exit);
      }
    }
  };
  collect();
  if (!AnyRunning()) return exits;
  RefreshJobState(/*force=*/false);
  if (!job_ended_) return exits;
  // The job ended under its replicas (scancel, time limit, node failure):
  // what wrote no exit file was killed with it.
  collect();
  for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
    if (!replicas_[k].running) continue;
    replicas_[k].running = false;
    exits.push_back(ReplicaExit{.replica = k, .signal = SIGKILL});
  }
  return exits;
}

absl::Status SlurmTrialRun::Restart(int replica) {
  if (replica < 0 || replica >= static_cast<int>(replicas_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("no replica ", replica, " in Slurm job ", slurm_job_));
  }
  Replica& r = replicas_[replica];
  if (r.running) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replica ", replica, " of Slurm job ", slurm_job_, " is running"));
  }
  RefreshJobState(/*force=*/true);
  if (job_ended_ || terminated_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Slurm job ", slurm_job_, " is no longer running (", job_state_, ")"));
  }
  ++r.run;
  Touch(dir_ / absl::StrCat("r", replica, ".restart.", r.run));
  r.running = true;
  return absl::OkStatus();
}

bool SlurmTrialRun::Queued() const {
  if (placed_ || job_ended_ || terminated_) return false;
  placed_ = env_.Exists(dir_ / "hosts");
  return !placed_;
}

bool SlurmTrialRun::IsRunning(int replica) const {
  return replica >= 0 && replica < static_cast<int>(replicas_.size()) &&
         replicas_[replica].running;
}

void SlurmTrialRun::Terminate(std::chrono::milliseconds grace) {
  if (terminated_) return;
  const bool placed = !Queued();
  terminated_ = true;
  Touch(dir_ / "stop");
  RefreshJobState(/*force=*/true);
  // A job whose replicas never started (still in the queue, or requeued)
  // has no step to signal, and `scancel --signal` refuses it and retries for
  // about 95 s: it is cancelled outright.
  if (!job_ended_ && placed && job_state_ == "RUNNING") {
    // SIGTERM to every step (not the supervisor), then the grace period for
    // the replicas to write their exit files, then the job goes.
    (void)RunSlurm(env_, {"scancel", "--quiet", "--signal=TERM", slurm_job_});
    const MonotonicTime deadline = env_.MonotonicNow() + grace;
    auto all_exited = [&] {
      for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
        if (replicas_[k].running && !ReadExit(k)) return false;
      }
      return true;
    };
    while (env_.MonotonicNow() < deadline && !all_exited()) {
      env_.SleepFor(kWaitStep);
    }
  }
  if (!job_ended_) (void)RunSlurm(env_, {"scancel", "--quiet", slurm_job_});
  // Returns when squeue shows nothing of the job running or completing.
  const MonotonicTime deadline = env_.MonotonicNow() + kCancelDeadline;
  auto wait = std::chrono::milliseconds(10);
  while (env_.MonotonicNow() < deadline) {
    auto state = QueryJob(env_, slurm_job_);
    if (state.ok() && state->phase == JobPhase::kEnded) {
      job_state_ = state->state;
      break;
    }
    env_.SleepFor(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(200));
  }
  job_ended_ = true;
  for (Replica& r : replicas_) r.running = false;
}

}  // namespace hptune::launch::slurm_internal
