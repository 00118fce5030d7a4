// The TrialRun of LocalLauncher: one trial's replicas as child processes of
// this process, each in a process group of its own.
//
// Every process group a replica has had (one per start) is remembered until
// it is empty, so Terminate and Restart also reach what an ended replica left
// behind; once a group is empty its id is forgotten, because the kernel may
// give it to an unrelated process. Where cgroups can be used, each replica
// also runs in a cgroup of its own under the trial's (trial_cgroup.h), which
// reaches what left the process group too. Used by one thread at a time
// (TrialRun's contract). Internal to the launch module.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_LOCAL_TRIAL_RUN_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_LOCAL_TRIAL_RUN_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/launch/launcher.h"
#include "src/env/scoped_fd.h"
#include "src/launch/local/trial_cgroup.h"

namespace hptune::launch {

class LocalTrialRun : public TrialRun {
 public:
  // What the destructor gives replicas between SIGTERM and SIGKILL.
  static constexpr std::chrono::milliseconds kDestructorGrace{5000};

  // Spawns every replica; when one cannot start, kills those already started
  // and returns that replica's error.
  // Waits and the trial's cgroups go through `env`, which must outlive the
  // run.
  static absl::StatusOr<std::unique_ptr<LocalTrialRun>> Start(
      Env& env, const TrialLaunch& launch);
  ~LocalTrialRun() override;

  absl::StatusOr<std::vector<ReplicaExit>> Poll() override;
  // Kills what the replica's earlier process group left behind (it may hold
  // the replica's port), then starts it again from its ReplicaLaunch.
  [[nodiscard]] absl::Status Restart(int replica) override;
  bool IsRunning(int replica) const override;
  bool Queued() const override { return false; }  // Started at once.
  // The pidfds of the replicas running now.
  std::vector<int> ExitFds() const override;
  void Terminate(std::chrono::milliseconds grace) override;

 private:
  struct Replica {
    ReplicaLaunch spec;
    int index = 0;   // In the launch; its cgroup's too.
    pid_t pid = -1;  // The current (or last) process; its group id too.
    bool running = false;
    ScopedFd pidfd;  // Of `pid` while running; none when it could not open.
    // Process groups of this replica that may still have members.
    std::vector<pid_t> groups;
  };

  LocalTrialRun(Env& env, const TrialLaunch& launch);
  [[nodiscard]] absl::Status StartReplica(Replica& replica);
  // The replica's process was collected.
  static void Ended(Replica& replica);
  // Collects ended processes; an ended replica's exit goes to `exits` when
  // given. Forgets groups that are gone.
  [[nodiscard]] absl::Status Collect(std::vector<ReplicaExit>* exits);
  bool HasLiveProcess(const Replica& replica) const;
  // Polls until no process of replica `only` (of every replica when -1) is
  // alive, then forgets its groups; false when `deadline` passes first.
  bool WaitUntilGone(MonotonicTime deadline, int only = -1);

  Env& env_;
  std::vector<Replica> replicas_;
  std::unique_ptr<TrialCgroup> cgroup_;  // Null where cgroups are not used.
};

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_LOCAL_TRIAL_RUN_H_
