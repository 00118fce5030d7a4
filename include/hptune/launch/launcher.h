// Launcher: starts the replicas of one trial and watches them.
//
// The job runner (src/engine) asks a Launcher to reserve a placement for a
// trial's replicas (addresses and GPUs), builds each replica's command line
// and environment from it (replica_env.h), and starts them as one TrialRun.
// It polls the run for replica exits, restarts a failed replica with the same
// spec, and terminates the run when the trial ends. Restart and re-run policy
// lives in the job runner, not here, so every backend behaves the same.
//
// LocalLauncher (local_launcher.h) runs replicas as child processes, each in
// its own process group; a Slurm launcher runs them as job steps.
//
// Thread-safety: a Launcher is safe to use from many threads; a TrialRun is
// used by one thread at a time.
#ifndef HPTUNE_LAUNCH_LAUNCHER_H_
#define HPTUNE_LAUNCH_LAUNCHER_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/env/users.h"

namespace hptune::launch {

// What one replica needs from the backend.
struct ReplicaRequest {
  TaskType type = TaskType::kMaster;
  int index = 0;  // Within its task type.
  int gpu_count = 0;
  std::string gpu_type;  // e.g. "NVIDIA_TESLA_T4"; "" when gpu_count is 0.
  // Where its pool is written in the job's config (JobSpec::PoolConfigPath),
  // for errors; "" when unknown.
  std::string config_path;
  bool operator==(const ReplicaRequest&) const = default;
};

// Where one replica runs: its cluster address and its devices.
struct ReplicaPlacement {
  std::string host;  // "127.0.0.1" locally.
  int port = 0;      // Reserved for this replica's server; 0 for evaluators.
  std::vector<int> gpus;  // Device indices, for CUDA_VISIBLE_DEVICES.
  bool operator==(const ReplicaPlacement&) const = default;
};

// Resources reserved for one trial; releases them when destroyed.
class Placement {
 public:
  virtual ~Placement() = default;
  // One per request, in request order.
  virtual const std::vector<ReplicaPlacement>& replicas() const = 0;
};

// A replica that runs in an OCI container (its pool's ContainerSpec), with
// what the container needs of the host.
struct ReplicaContainer {
  ContainerSpec spec;
  // Host directories the replica is given paths under (its trial's
  // directory, the local AIP_* base and job dir), bound into the container
  // at the same paths, so every path in its environment and argv holds.
  std::vector<std::filesystem::path> mounts;
  // The local root of gs:// paths (`--gcs-root`: gs://B/P is DIR/B/P),
  // bound at /gcs as Vertex AI's Cloud Storage FUSE mount is, so a trainer
  // that reads /gcs/B/P finds the bucket's file; empty: no /gcs.
  std::filesystem::path gcs_root;
  std::vector<int> gpus;  // The host's GPU indices allocated to it.
  bool operator==(const ReplicaContainer&) const = default;
};

// Everything needed to start one replica. No shell is involved: argv[0] is
// looked up on PATH and the other elements are passed as they are. For a
// replica with a `container`, argv is what follows the image: the command
// (container.spec.command, the image's entrypoint when empty) runs with
// these arguments; a launcher wraps it in its container runtime.
struct ReplicaLaunch {
  TaskType type = TaskType::kMaster;
  int index = 0;
  std::vector<std::string> argv;
  // Added to (and overriding) the launcher's own environment.
  std::map<std::string, std::string> env;
  std::filesystem::path working_dir;  // Empty: the launcher's.
  std::filesystem::path log_path;     // stdout and stderr, appended.
  // The hypertune file the replica reports to (CLOUD_ML_HP_METRIC_FILE in
  // `env`), which the job runner reads.
  std::filesystem::path metrics_path;
  // Whom the replica runs as, and whose its log is: the job's owner, for a
  // root server's job of another user (hptune/env/users.h). Unset: this
  // process's user.
  std::optional<UserCredentials> run_as;
  std::optional<ReplicaContainer> container;  // Unset: a host process.
};

struct TrialLaunch {
  std::string job_id;
  int64_t trial = 0;
  std::vector<ReplicaLaunch> replicas;  // replicas[0] is the master.
};

// One replica process ending.
struct ReplicaExit {
  int replica = 0;    // Index into TrialLaunch::replicas.
  int exit_code = 0;  // Meaningful when signal == 0.
  int signal = 0;     // The signal that killed it, or 0.
  bool succeeded() const { return signal == 0 && exit_code == 0; }
};

class TrialRun {
 public:
  virtual ~TrialRun() = default;
  // Replicas that ended since the last call, without blocking.
  virtual absl::StatusOr<std::vector<ReplicaExit>> Poll() = 0;
  // Starts replica `replica` again with the spec it was launched with.
  // FailedPrecondition while it is still running.
  [[nodiscard]] virtual absl::Status Restart(int replica) = 0;
  virtual bool IsRunning(int replica) const = 0;
  // Whether the backend still holds the run in its queue with no replica
  // started: a Slurm job PENDING for resources. Never true for local runs.
  // Its replicas count as running all the same (IsRunning, Poll). Pure, so
  // that a wrapping run cannot forget to pass it on.
  virtual bool Queued() const = 0;
  // Descriptors that become readable when a replica of this run exits (the
  // local launcher's pidfds), so a runner can wait for an exit instead of
  // polling for it. Valid until the next call on this run. Empty when the
  // backend has none: its runs are polled.
  virtual std::vector<int> ExitFds() const { return {}; }
  // Stops every replica still running: SIGTERM to its whole process group,
  // then SIGKILL after `grace`; returns when no process of the run is left.
  // Exits seen here are not reported by Poll().
  virtual void Terminate(std::chrono::milliseconds grace) = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // OK when these replicas fit the backend at all, even if not right now;
  // FailedPrecondition naming the replica, the GPUs it asks for and what the
  // backend has, when they never can.
  [[nodiscard]] virtual absl::Status CheckFits(
      const std::vector<ReplicaRequest>& requests) const = 0;
  // Reserves addresses and GPUs for one trial. ResourceExhausted when the
  // GPUs are busy now (the trial waits QUEUED); CheckFits' error when never.
  virtual absl::StatusOr<std::unique_ptr<Placement>> Reserve(
      const std::vector<ReplicaRequest>& requests) = 0;
  // Called by the job runner before it launches any trial of `job`, each
  // time it runs the job: a backend keeps what it needs of the job's own
  // settings for its trials' launches (the Slurm launcher: the job's sbatch
  // options, JobSpec::slurm). Errors name the setting.
  [[nodiscard]] virtual absl::Status BeginJob(const JobSpec& job) {
    (void)job;
    return absl::OkStatus();
  }
  // Called by the job runner when it stops running `job` (the job ended, was
  // cancelled, or this process gives it up), after every trial run of it
  // was terminated: a backend releases what it held for the job's trials
  // (the Slurm launcher: the allocations its trials reused).
  virtual void EndJob(const std::string& job_id) { (void)job_id; }
  // Starts every replica of `launch`. On error nothing is left running.
  // NotFound or PermissionDenied: a program cannot be executed (missing, not
  // executable, a bad #! interpreter), which no retry cures; the trial fails
  // at once.
  virtual absl::StatusOr<std::unique_ptr<TrialRun>> Start(
      const TrialLaunch& launch) = 0;
  // For a trial that was running when the process running its job died:
  // finds what an earlier incarnation left of `launch` (same job and trial).
  // Returns a run attached to replicas that are still alive (a backend whose
  // replicas outlive us, like Slurm, so they are not launched twice), or
  // nullptr after stopping whatever is left, so the trial is started afresh
  // under the restart rules. The default has nothing to find.
  virtual absl::StatusOr<std::unique_ptr<TrialRun>> Reattach(
      const TrialLaunch& launch) {
    (void)launch;
    return nullptr;
  }
  // Before a job an earlier, killed process ran is taken over or failed:
  // stops what that process left running of it (its files are under
  // `job_runs_dir`, <runs_dir>/<job>), SIGTERM, `grace`, SIGKILL. The
  // default stops nothing: a backend whose replicas outlive us (Slurm)
  // finds them again trial by trial in Reattach.
  virtual void StopLeftovers(const std::filesystem::path& job_runs_dir,
                             std::chrono::milliseconds grace) {
    (void)job_runs_dir;
    (void)grace;
  }
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_LAUNCHER_H_
