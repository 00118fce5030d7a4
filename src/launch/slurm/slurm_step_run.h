// The TrialRun of SlurmLauncher in SlurmAllocation::kPerLane: one trial
// attempt run as srun steps inside an allocation its job reuses
// (slurm_allocations.h). Each replica is an `srun --jobid=<allocation>`
// child process of this one, so the runner learns a step's end from that
// process's exit (a pidfd, ExitFds), with no squeue polling; the exit status
// is the one the task wrapper wrote (slurm_scripts.h), else srun's own.
// squeue is asked only while the allocation waits in the queue, and when an
// srun ends without its replica's exit file (the allocation may be gone).
// Used by one thread at a time (TrialRun's contract). Internal to the launch
// module.
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_STEP_RUN_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_STEP_RUN_H_

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "src/env/scoped_fd.h"
#include "src/launch/slurm/slurm_allocations.h"

namespace hptune::launch::slurm_internal {

class StepTrialRun : public TrialRun {
 public:
  // What the destructor gives replicas between SIGTERM and the kill.
  static constexpr std::chrono::milliseconds kDestructorGrace{5000};

  // The replicas of `launch`, whose files are in `dir` (its attempt
  // directory: r<k>.* and task.sh), run in `allocation`, which goes back to
  // `pool` when the run is terminated. Starts them if the allocation is
  // placed, else once it is (Poll). Its files, clock and waits are `env`'s,
  // which must outlive it.
  static absl::StatusOr<std::unique_ptr<StepTrialRun>> Start(
      Env& env, const TrialLaunch& launch, std::filesystem::path dir,
      std::shared_ptr<AllocationPool> pool,
      std::shared_ptr<const Allocation> allocation,
      std::chrono::milliseconds state_poll_interval);
  ~StepTrialRun() override;

  absl::StatusOr<std::vector<ReplicaExit>> Poll() override;
  // A new srun step for the replica on the same node; FailedPrecondition
  // while it runs or once the allocation has ended.
  [[nodiscard]] absl::Status Restart(int replica) override;
  bool IsRunning(int replica) const override;
  // Until the allocation's holder has placed the replicas.
  bool Queued() const override;
  std::vector<int> ExitFds() const override;
  // SIGTERM to the allocation's steps (scancel --signal=TERM), up to `grace`
  // for the sruns to end, then SIGKILL to those left, whose steps Slurm then
  // ends; the allocation goes back to the pool, or is cancelled when a step
  // would not end or it has ended.
  void Terminate(std::chrono::milliseconds grace) override;

 private:
  struct Replica {
    std::string name;  // "master-0": the step's name ends with it.
    int run = 1;
    bool running = true;
    pid_t pid = -1;  // The srun of the current run; -1 before placement.
    ScopedFd pidfd;  // Of `pid` while it runs.
  };
  StepTrialRun(Env& env, const TrialLaunch& launch, std::filesystem::path dir,
               std::shared_ptr<AllocationPool> pool,
               std::shared_ptr<const Allocation> allocation,
               std::chrono::milliseconds state_poll_interval);

  // When the holder has written the nodes: copies them into dir_ and starts
  // every replica. False while the allocation is not placed.
  absl::StatusOr<bool> TryPlace();
  absl::Status Spawn(int k);
  // The replica's exit from its file, else from srun's wait status.
  ReplicaExit ExitOf(int k, int wait_status);
  void Reaped(Replica& replica);
  // squeue: whether the allocation has ended, at most once an interval
  // unless `force`; a failing squeue leaves it as it was.
  void RefreshAllocationState(bool force);
  bool AnyChild() const;
  // Whether every replica whose srun runs has written its exit file.
  bool TasksEnded() const;
  // Waits up to `until` for the running sruns to end; true when they did.
  bool WaitForChildren(MonotonicTime until);
  // Whether the allocation has no step but its batch step left, waiting up
  // to a minute for those a killed srun leaves to end.
  bool StepsEnded() const;

  // The lines of a file of the allocation's; none when it cannot be read.
  std::vector<std::string> FileLines(const std::filesystem::path& path) const;

  Env& env_;
  const std::filesystem::path dir_;
  const std::string step_prefix_;  // "hptune.<job>.<trial>."
  const std::shared_ptr<AllocationPool> pool_;
  const std::shared_ptr<const Allocation> allocation_;
  const std::chrono::milliseconds state_poll_interval_;
  std::vector<Replica> replicas_;
  std::vector<std::string> layout_;  // The allocation's, line k for replica k.
  std::vector<std::string> nodes_;   // Node of replica k.
  bool het_ = false;                 // Several components: --het-group.
  bool placed_ = false;
  bool allocation_ended_ = false;
  bool terminated_ = false;
  MonotonicTime last_state_check_{};
};

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_STEP_RUN_H_
