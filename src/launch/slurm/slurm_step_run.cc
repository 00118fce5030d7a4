#include "src/launch/slurm/slurm_step_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/status.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/replica_process.h"
#include "src/launch/slurm/slurm_commands.h"

namespace hptune::launch::slurm_internal {
namespace {

constexpr std::chrono::milliseconds kChildWaitStep{5};
// How long an srun whose task has written its exit may take to end before
// its step is signalled like a running one.
constexpr std::chrono::milliseconds kSrunEndWait{2000};

// waitpid without blocking, EINTR retried: the pid when it ended.
pid_t Reap(pid_t pid, int* status) {
  pid_t got;
  do {
    got = waitpid(pid, status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  return got;
}

}  // namespace

StepTrialRun::StepTrialRun(Env& env, const TrialLaunch& launch,
                           std::filesystem::path dir,
                           std::shared_ptr<AllocationPool> pool,
                           std::shared_ptr<const Allocation> allocation,
                           std::chrono::milliseconds state_poll_interval)
    : env_(env),
      dir_(std::move(dir)),
      step_prefix_(
          absl::StrCat("hptune.", launch.job_id, ".", launch.trial, ".")),
      pool_(std::move(pool)),
      allocation_(std::move(allocation)),
      state_poll_interval_(state_poll_interval),
      last_state_check_(env.MonotonicNow()) {
  for (const ReplicaLaunch& replica : launch.replicas) {
    replicas_.push_back(
        Replica{.name = absl::StrCat(std::string(ToString(replica.type)), "-",
                                     replica.index)});
  }
}

absl::StatusOr<std::unique_ptr<StepTrialRun>> StepTrialRun::Start(
    Env& env, const TrialLaunch& launch, std::filesystem::path dir,
    std::shared_ptr<AllocationPool> pool,
    std::shared_ptr<const Allocation> allocation,
    std::chrono::milliseconds state_poll_interval) {
  std::unique_ptr<StepTrialRun> run(
      new StepTrialRun(env, launch, std::move(dir), std::move(pool),
                       std::move(allocation), state_poll_interval));
  // Which allocation ran the attempt, for whoever reads its directory.
  env.WriteFileAtomically(run->dir_ / "allocation",
                          absl::StrCat(run->allocation_->slurm_job, " ",
                                       run->allocation_->dir.string(), "\n"),
                          0644, Durability::kUnsynced)
      .IgnoreError();
  absl::StatusOr<bool> placed = run->TryPlace();
  if (!placed.ok()) {
    run->Terminate(std::chrono::milliseconds(0));
    return placed.status();
  }
  return run;
}

StepTrialRun::~StepTrialRun() {
  if (!terminated_) Terminate(kDestructorGrace);
}

std::vector<std::string> StepTrialRun::FileLines(
    const std::filesystem::path& path) const {
  std::istringstream in(env_.ReadFile(path).value_or(""));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

absl::StatusOr<bool> StepTrialRun::TryPlace() {
  if (placed_) return true;
  const std::filesystem::path& from = allocation_->dir;
  if (!env_.Exists(from / "nodes")) return false;
  layout_ = FileLines(from / "layout");
  nodes_ = FileLines(from / "nodes");
  std::istringstream components(
      env_.ReadFile(from / "components").value_or(""));
  int count = 1;
  components >> count;
  het_ = count > 1;
  if (layout_.size() != replicas_.size() || nodes_.size() != replicas_.size()) {
    return absl::InternalError(absl::StrCat(
        "Slurm allocation ", allocation_->slurm_job, " in ", from.string(),
        " places ", nodes_.size(), " replicas, not ", replicas_.size()));
  }
  absl::StatusOr<std::string> hosts = env_.ReadFile(from / "hosts");
  absl::Status copied = hosts.status();
  if (copied.ok()) {
    copied = env_.WriteFileAtomically(dir_ / "hosts", *hosts, 0644,
                                      Durability::kUnsynced);
  }
  if (!copied.ok()) {
    return absl::InternalError(absl::StrCat("cannot copy ", from.string(),
                                            "/hosts: ", copied.message()));
  }
  placed_ = true;
  for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
    if (absl::Status spawned = Spawn(k); !spawned.ok()) return spawned;
  }
  return true;
}

absl::Status StepTrialRun::Spawn(int k) {
  Replica& replica = replicas_[k];
  // "<component> <cpus> <mem/cpu MB> <gpus>[ <gres type>]"
  std::istringstream line(layout_[k]);
  std::string component, cpus, mem, gpus, type;
  line >> component >> cpus >> mem >> gpus >> type;
  ReplicaLaunch srun{.index = k};
  srun.argv = {"srun",
               absl::StrCat("--jobid=", allocation_->slurm_job),
               "--nodes=1",
               "--ntasks=1",
               absl::StrCat("--nodelist=", nodes_[k]),
               "--exact",
               absl::StrCat("--cpus-per-task=", cpus),
               absl::StrCat("--mem-per-cpu=", mem),
               "--input=none",
               absl::StrCat("--job-name=", step_prefix_, replica.name),
               "--kill-on-bad-exit=0"};
  if (het_) srun.argv.push_back(absl::StrCat("--het-group=", component));
  // A typed allocation takes only typed step requests.
  srun.argv.push_back(
      gpus == "0" || gpus.empty()
          ? std::string("--gres=none")
          : absl::StrCat("--gres=gpu:", type.empty() ? "" : type + ":", gpus));
  srun.argv.insert(srun.argv.end(),
                   {"/bin/bash", (dir_ / "task.sh").string(), dir_.string(),
                    std::to_string(k), std::to_string(replica.run)});
  srun.log_path = dir_ / absl::StrCat("r", k, ".srun");
  absl::StatusOr<pid_t> pid = SpawnReplica(env_, srun);
  if (!pid.ok()) {
    replica.running = false;
    return pid.status();
  }
  replica.pid = *pid;
  replica.pidfd = OpenPidfd(*pid);
  replica.running = true;
  return absl::OkStatus();
}

void StepTrialRun::Reaped(Replica& replica) {
  Disown(replica.pid);  // SpawnReplica's child; none when -1.
  replica.running = false;
  replica.pid = -1;
  replica.pidfd.Reset();
}

ReplicaExit StepTrialRun::ExitOf(int k, int wait_status) {
  ReplicaExit exit{.replica = k};
  std::istringstream in(
      env_.ReadFile(dir_ / absl::StrCat("r", k, ".exit.", replicas_[k].run))
          .value_or(""));
  if (in >> exit.exit_code >> exit.signal) return exit;
  // The wrapper wrote nothing: the step never ran it, or was killed with
  // the allocation (scancel, time limit, node failure).
  RefreshAllocationState(/*force=*/true);
  if (allocation_ended_) return ReplicaExit{.replica = k, .signal = SIGKILL};
  exit = ReplicaExit{.replica = k};
  if (WIFSIGNALED(wait_status)) {
    exit.signal = WTERMSIG(wait_status);
  } else {
    exit.exit_code = WEXITSTATUS(wait_status);
  }
  return exit;
}

void StepTrialRun::RefreshAllocationState(bool force) {
  if (allocation_ended_) return;
  const MonotonicTime now = env_.MonotonicNow();
  if (!force && now - last_state_check_ < state_poll_interval_) return;
  last_state_check_ = now;
  auto state = QueryJob(env_, allocation_->slurm_job);
  if (state.ok()) allocation_ended_ = state->phase != JobPhase::kAlive;
}

absl::StatusOr<std::vector<ReplicaExit>> StepTrialRun::Poll() {
  std::vector<ReplicaExit> exits;
  if (terminated_) return exits;
  if (!placed_) {
    HPTUNE_ASSIGN_OR_RETURN(bool placed, TryPlace());
    if (!placed) {
      RefreshAllocationState(/*force=*/false);
      if (!allocation_ended_) return exits;
      // Cancelled, or failed, before it ever ran.
      for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
        replicas_[k].running = false;
        exits.push_back(ReplicaExit{.replica = k, .signal = SIGKILL});
      }
      return exits;
    }
  }
  for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
    Replica& replica = replicas_[k];
    if (!replica.running || replica.pid < 0) continue;
    int status = 0;
    if (Reap(replica.pid, &status) != replica.pid) continue;
    Reaped(replica);
    exits.push_back(ExitOf(k, status));
  }
  return exits;
}

absl::Status StepTrialRun::Restart(int replica) {
  if (replica < 0 || replica >= static_cast<int>(replicas_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("no replica ", replica,
                                                   " in Slurm allocation ",
                                                   allocation_->slurm_job));
  }
  Replica& r = replicas_[replica];
  if (r.running) {
    return absl::FailedPreconditionError(
        absl::StrCat("replica ", replica, " in Slurm allocation ",
                     allocation_->slurm_job, " is running"));
  }
  if (!allocation_ended_) RefreshAllocationState(/*force=*/true);
  if (allocation_ended_ || terminated_ || !placed_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Slurm allocation ", allocation_->slurm_job, " is no longer running"));
  }
  ++r.run;
  return Spawn(replica);
}

bool StepTrialRun::IsRunning(int replica) const {
  return replica >= 0 && replica < static_cast<int>(replicas_.size()) &&
         replicas_[replica].running;
}

bool StepTrialRun::Queued() const {
  return !placed_ && !allocation_ended_ && !terminated_;
}

std::vector<int> StepTrialRun::ExitFds() const {
  std::vector<int> fds;
  for (const Replica& replica : replicas_) {
    if (replica.running && replica.pidfd.valid()) {
      fds.push_back(replica.pidfd.get());
    }
  }
  return fds;
}

bool StepTrialRun::AnyChild() const {
  for (const Replica& replica : replicas_) {
    if (replica.running && replica.pid >= 0) return true;
  }
  return false;
}

bool StepTrialRun::TasksEnded() const {
  for (int k = 0; k < static_cast<int>(replicas_.size()); ++k) {
    const Replica& replica = replicas_[k];
    if (replica.running && replica.pid >= 0 &&
        !env_.Exists(dir_ / absl::StrCat("r", k, ".exit.", replica.run))) {
      return false;
    }
  }
  return true;
}

bool StepTrialRun::WaitForChildren(MonotonicTime until) {
  while (true) {
    for (Replica& replica : replicas_) {
      int status = 0;
      if (replica.running && replica.pid >= 0 &&
          Reap(replica.pid, &status) == replica.pid) {
        Reaped(replica);
      }
    }
    if (!AnyChild()) return true;
    if (env_.MonotonicNow() >= until) return false;
    env_.SleepFor(kChildWaitStep);
  }
}

bool StepTrialRun::StepsEnded() const {
  const MonotonicTime deadline = env_.MonotonicNow() + std::chrono::seconds(60);
  auto wait = std::chrono::milliseconds(10);
  while (env_.MonotonicNow() < deadline) {
    auto steps = RunSlurm(
        env_, {"squeue", "-h", "-s", "-j", allocation_->slurm_job, "-o", "%i"});
    if (!steps.ok()) return false;
    bool left = false;
    for (absl::string_view step :
         absl::StrSplit(*steps, '\n', absl::SkipEmpty())) {
      step = absl::StripAsciiWhitespace(step);
      left = left || !(absl::EndsWith(step, ".batch") ||
                       absl::EndsWith(step, ".extern"));
    }
    if (!left) return true;
    env_.SleepFor(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(200));
  }
  return false;
}

void StepTrialRun::Terminate(std::chrono::milliseconds grace) {
  if (terminated_) return;
  terminated_ = true;
  bool broken = allocation_ended_;
  // Replicas that ended on their own need no signal: their sruns only
  // have the step's end to report.
  if (!WaitForChildren(env_.MonotonicNow()) &&
      !(TasksEnded() && WaitForChildren(env_.MonotonicNow() + kSrunEndWait))) {
    // The allocation runs this trial's steps only: every step's tasks get
    // SIGTERM (the holder's batch step does not).
    (void)RunSlurm(
        env_, {"scancel", "--quiet", "--signal=TERM", allocation_->slurm_job});
    if (!WaitForChildren(env_.MonotonicNow() + grace)) {
      for (Replica& replica : replicas_) {
        if (replica.running && replica.pid >= 0) {
          SignalGroup(replica.pid, SIGKILL);
        }
      }
      WaitForChildren(MonotonicTime::max());
      broken = broken || !StepsEnded();
    }
  }
  for (Replica& replica : replicas_) Reaped(replica);
  pool_->GiveBack(allocation_, broken);
}

}  // namespace hptune::launch::slurm_internal
