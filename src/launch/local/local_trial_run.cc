#include "src/launch/local/local_trial_run.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/replica_process.h"

namespace hptune::launch {
namespace {

// How long Terminate waits for SIGKILLed processes to vanish. Only a process
// stuck in the kernel (uninterruptible I/O) takes longer; Terminate then
// returns and the destructor tries again.
constexpr std::chrono::seconds kKillWait{30};

ReplicaExit Decode(int replica, int wait_status) {
  ReplicaExit exit{.replica = replica};
  if (WIFSIGNALED(wait_status)) {
    exit.signal = WTERMSIG(wait_status);
  } else if (WIFEXITED(wait_status)) {
    exit.exit_code = WEXITSTATUS(wait_status);
  }
  return exit;
}

}  // namespace

LocalTrialRun::LocalTrialRun(Env& env, const TrialLaunch& launch) : env_(env) {
  replicas_.reserve(launch.replicas.size());
  for (const ReplicaLaunch& spec : launch.replicas) {
    replicas_.push_back(
        {.spec = spec, .index = static_cast<int>(replicas_.size())});
  }
}

LocalTrialRun::~LocalTrialRun() {
  bool anything_left =
      std::any_of(replicas_.begin(), replicas_.end(), [this](const Replica& r) {
        return r.running || !r.groups.empty() ||
               (cgroup_ && cgroup_->ReplicaPopulated(r.index));
      });
  if (anything_left) Terminate(kDestructorGrace);
  for (Replica& replica : replicas_) Ended(replica);
}

void LocalTrialRun::Ended(Replica& replica) {
  // Collected, or left to the orphan collector by a destructor that could
  // not wait for it.
  if (replica.running) Disown(replica.pid);
  replica.running = false;
  replica.pidfd.Reset();
}

std::vector<int> LocalTrialRun::ExitFds() const {
  std::vector<int> fds;
  for (const Replica& replica : replicas_) {
    if (replica.running && replica.pidfd.valid()) {
      fds.push_back(replica.pidfd.get());
    }
  }
  return fds;
}

absl::StatusOr<std::unique_ptr<LocalTrialRun>> LocalTrialRun::Start(
    Env& env, const TrialLaunch& launch) {
  std::unique_ptr<LocalTrialRun> run(new LocalTrialRun(env, launch));
  if (!launch.replicas.empty()) {
    std::vector<std::string> names;
    for (const ReplicaLaunch& replica : launch.replicas) {
      names.push_back(replica.log_path.stem().string());  // "worker-1"
    }
    HPTUNE_ASSIGN_OR_RETURN(
        run->cgroup_,
        TrialCgroup::Create(env, launch.replicas.front().log_path.parent_path(),
                            names));
  }
  for (Replica& replica : run->replicas_) {
    absl::Status started = run->StartReplica(replica);
    if (!started.ok()) {
      run->Terminate(std::chrono::milliseconds(0));
      return started;
    }
  }
  return run;
}

absl::Status LocalTrialRun::StartReplica(Replica& replica) {
  int cgroup_fd = -1;
  if (cgroup_) {
    HPTUNE_ASSIGN_OR_RETURN(cgroup_fd,
                            cgroup_->NextReplicaCgroup(replica.index));
  }
  HPTUNE_ASSIGN_OR_RETURN(pid_t pid,
                          SpawnReplica(env_, replica.spec, cgroup_fd));
  replica.pid = pid;
  replica.running = true;
  // Without a pidfd (a kernel before 5.3) the runner polls this replica.
  replica.pidfd = OpenPidfd(pid);
  replica.groups.push_back(pid);
  return absl::OkStatus();
}

absl::Status LocalTrialRun::Collect(std::vector<ReplicaExit>* exits) {
  absl::Status status;
  for (size_t i = 0; i < replicas_.size(); ++i) {
    Replica& replica = replicas_[i];
    auto ended = [&](int wait_status) {
      Ended(replica);
      if (exits != nullptr) {
        exits->push_back(Decode(static_cast<int>(i), wait_status));
      }
    };
    if (replica.running) {
      int wait_status = 0;
      pid_t got;
      do {
        got = waitpid(replica.pid, &wait_status, WNOHANG);
      } while (got < 0 && errno == EINTR);
      if (got == replica.pid) {
        ended(wait_status);
      } else if (got < 0 && errno == ECHILD) {
        Ended(replica);
        status = absl::InternalError(absl::StrCat(
            DescribeReplica(replica.spec), " (pid ", replica.pid,
            "): its exit status was collected elsewhere in this process "
            "(SIGCHLD ignored, or a waitpid(-1) somewhere)"));
      }
    }
    for (pid_t group : replica.groups) {
      for (const auto& [pid, wait_status] : ReapGroup(group)) {
        if (replica.running && pid == replica.pid) ended(wait_status);
      }
    }
    std::erase_if(replica.groups, [&](pid_t group) {
      return !(replica.running && group == replica.pid) && GroupIsGone(group);
    });
  }
  return status;
}

bool LocalTrialRun::HasLiveProcess(const Replica& replica) const {
  if (replica.running) return true;
  if (cgroup_ && cgroup_->ReplicaPopulated(replica.index)) return true;
  for (pid_t group : replica.groups) {
    if (GroupHasLiveProcess(env_, group)) return true;
  }
  return false;
}

bool LocalTrialRun::WaitUntilGone(MonotonicTime deadline, int only) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    Collect(nullptr).IgnoreError();
    bool live = false;
    for (int i = 0; i < static_cast<int>(replicas_.size()) && !live; ++i) {
      if (only < 0 || only == i) live = HasLiveProcess(replicas_[i]);
    }
    if (!live) {
      // Orphans that ended after the last pass are ours to collect when
      // this process is a subreaper. The rest are zombies for init; once it
      // has collected them their ids may belong to someone else, so they
      // are never signalled again.
      Collect(nullptr).IgnoreError();
      for (int i = 0; i < static_cast<int>(replicas_.size()); ++i) {
        if (only < 0 || only == i) replicas_[i].groups.clear();
      }
      return true;
    }
    const MonotonicTime now = env_.MonotonicNow();
    if (now >= deadline) return false;
    env_.SleepFor(std::chrono::duration_cast<std::chrono::microseconds>(
        std::min<MonotonicTime::duration>(pause, deadline - now)));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

absl::StatusOr<std::vector<ReplicaExit>> LocalTrialRun::Poll() {
  std::vector<ReplicaExit> exits;
  HPTUNE_RETURN_IF_ERROR(Collect(&exits));
  return exits;
}

absl::Status LocalTrialRun::Restart(int replica) {
  if (replica < 0 || replica >= static_cast<int>(replicas_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no replica ", replica, " in a trial of ", replicas_.size()));
  }
  Replica& r = replicas_[replica];
  if (r.running) {
    return absl::FailedPreconditionError(absl::StrCat(
        DescribeReplica(r.spec), " is still running (pid ", r.pid, ")"));
  }
  for (pid_t group : r.groups) SignalGroup(group, SIGKILL);
  if (cgroup_) cgroup_->KillReplica(replica);
  if (!WaitUntilGone(env_.MonotonicNow() + kKillWait, replica)) {
    return absl::DeadlineExceededError(
        absl::StrCat(DescribeReplica(r.spec),
                     ": processes of its previous run survive "
                     "SIGKILL; not restarting it"));
  }
  return StartReplica(r);
}

bool LocalTrialRun::IsRunning(int replica) const {
  if (replica < 0 || replica >= static_cast<int>(replicas_.size())) {
    return false;
  }
  return replicas_[replica].running;
}

void LocalTrialRun::Terminate(std::chrono::milliseconds grace) {
  auto signal_all = [&](int signal) {
    for (const Replica& replica : replicas_) {
      for (pid_t group : replica.groups) SignalGroup(group, signal);
      // A replica that moved itself to another group is still our child.
      if (replica.running && getpgid(replica.pid) != replica.pid) {
        kill(replica.pid, signal);
      }
    }
  };
  Collect(nullptr).IgnoreError();
  if (grace.count() > 0) {
    signal_all(SIGTERM);
    if (WaitUntilGone(env_.MonotonicNow() + grace)) return;
  }
  signal_all(SIGKILL);
  if (cgroup_) cgroup_->KillAll();
  WaitUntilGone(env_.MonotonicNow() + kKillWait);
}

}  // namespace hptune::launch
