// LocalLauncher: runs each trial's replicas as child processes on this
// machine (the embedded default of `hptune run` and `hptune serve`).
//
// Every replica gets a real free port on `host` for its cluster address
// (evaluators get none), its own GPUs from the inventory, and its own process
// group, so stopping a replica reaches everything it started. Processes end
// up in no state other than running or collected: TrialRun::Terminate and
// the TrialRun's destructor signal and wait for every process group the run
// ever had. Orphaned grandchildren that outlive their replica are collected
// by init, or by this process when it is a child subreaper
// (BecomeChildSubreaper, below, collects them also when they left their
// group with setsid, which a process-group launcher cannot signal).
//
// The process must not ignore SIGCHLD or collect children it did not start
// (waitpid(-1)): replica exits would be lost.
//
// Thread-safety: LocalLauncher is thread-safe; a Placement may be destroyed
// on any thread and may outlive the launcher; a TrialRun is used by one
// thread at a time.
#ifndef HPTUNE_LAUNCH_LOCAL_LAUNCHER_H_
#define HPTUNE_LAUNCH_LOCAL_LAUNCHER_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/gpu_inventory.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

struct LocalLauncherOptions {
  // The machine: files the launcher writes (containers' env files).
  // Required; set by the composition root; must outlive the launcher.
  Env* env = nullptr;
  GpuInventory gpus;  // GpuInventory::Detect or FromSpec; none by default.
  // The address replicas listen on and find each other at.
  std::string host = "127.0.0.1";
  // Reattach: between SIGTERM and SIGKILL for replicas left running.
  std::chrono::milliseconds reattach_grace{5000};
  // BeginJob pulls an image the job names that podman's local storage
  // lacks, instead of refusing the job (`--pull-images`).
  bool pull_images = false;
};

class LocalLauncher : public Launcher {
 public:
  explicit LocalLauncher(LocalLauncherOptions options);
  ~LocalLauncher() override;

  // FailedPrecondition naming the first replica whose GPUs the machine
  // cannot provide, what it asks for and what the machine has, e.g.
  //   worker 2 asks for 4 x NVIDIA_TESLA_T4, but this machine has
  //   2 x NVIDIA_TESLA_T4 (GPUs 0,1)
  [[nodiscard]] absl::Status CheckFits(
      const std::vector<ReplicaRequest>& requests) const override;
  // One free port per replica (0 for evaluators) and disjoint GPUs, all
  // released when the Placement is destroyed. ResourceExhausted while other
  // placements hold the GPUs.
  absl::StatusOr<std::unique_ptr<Placement>> Reserve(
      const std::vector<ReplicaRequest>& requests) override;
  // A replica with a container runs as `podman run` in the foreground
  // (src/launch/local/podman_argv.h), as the process described here.
  // Spawns every replica with posix_spawnp: argv[0] looked up on this
  // process's PATH, no shell; a process group of its own; stdin /dev/null,
  // stdout and stderr appended to log_path (directories created), no other
  // inherited descriptor; default signal actions; this process's environment
  // with the replica's env over it; working_dir when set. When one cannot
  // start, those already started are killed and the error names it:
  //   master 0: cannot start "/no/such": No such file or directory
  absl::StatusOr<std::unique_ptr<TrialRun>> Start(
      const TrialLaunch& launch) override;
  // Local replicas die with the trial's attempt: a replica left running by
  // an earlier hptune process that was killed (SIGKILL, OOM, power) has lost
  // the process watching it, its restarts and its metric reader. Reattach
  // finds such processes by the HPTUNE_REPLICA marker every replica carries
  // in its environment (its absolute log path, see replica_process.h),
  // stops them (SIGTERM to their process groups, reattach_grace, SIGKILL),
  // then kills what is left in the trial's recorded cgroup (processes that
  // left their group and cleaned their environment), records nothing, and
  // returns nullptr so the job runner starts the trial again under the
  // restart rules. No trainer is left orphaned.
  absl::StatusOr<std::unique_ptr<TrialRun>> Reattach(
      const TrialLaunch& launch) override;
  // A job whose pools name OCI images (ContainerSpec) needs podman and
  // every image in its local storage (pulled first with pull_images):
  // FailedPrecondition naming the field, the image and how to load it.
  [[nodiscard]] absl::Status BeginJob(const JobSpec& job) override;
  // StopLeftoverReplicas, below.
  void StopLeftovers(const std::filesystem::path& job_runs_dir,
                     std::chrono::milliseconds grace) override;

  const GpuInventory& gpus() const { return gpus_.inventory(); }

 private:
  Env& env_;
  GpuAllocator gpus_;
  std::string host_;
  std::chrono::milliseconds reattach_grace_;
  bool pull_images_;
};

// Stops every local replica an earlier, killed hptune process left running
// for the job whose files are under `job_runs_dir` (<runs_dir>/<job>), found
// by the HPTUNE_REPLICA marker as Reattach finds one trial's: SIGTERM to
// their process groups, `grace`, SIGKILL; then every process left in the
// cgroups its trials recorded; then the job's containers podman still
// lists. Returns how many were found. The job's files are read through
// `env`.
int StopLeftoverReplicas(Env& env, const std::filesystem::path& job_runs_dir,
                         std::chrono::milliseconds grace);

// How local replicas are contained on this machine, for a start-up line:
// "cgroup v2 (/sys/fs/cgroup/...)" when each trial's processes get a cgroup
// that is killed as a whole when the trial ends, else "process groups (why
// cgroups cannot be used)": then a process that leaves its process group
// and session can outlive its trial.
std::string ReplicaContainment();

// Makes this process a child subreaper (prctl(PR_SET_CHILD_SUBREAPER)): what
// a replica leaves behind, also in a session of its own (setsid), becomes
// this process's child when its parent ends, instead of init's. A thread
// started here collects each such orphan once it ends, so none stays a
// zombie holding its pid; the children the launchers started are left to
// them. For a process that waits for no children of its own by pid, as
// `hptune serve` and `hptune run`; once is enough, later calls do nothing.
// The thread reads the process table and waits through `process_env`, which
// must live as long as the process (the machine's Env: the thread never
// ends).
void BecomeChildSubreaper(Env& process_env);

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_LOCAL_LAUNCHER_H_
