// SlurmLauncher: runs trials on a Slurm cluster (`hptune run --backend
// slurm`, or a server composed with it), one task per replica, in one of two
// modes (SlurmAllocation, the --slurm-allocation flag):
//
//  - per-lane (the default): a job's parallel lanes each hold an allocation,
//    a batch job named hptune.<job>.allocation running a holder script
//    (slurm_scripts.h), sized for one trial's replicas, and each trial runs
//    as srun steps inside one (`srun --jobid=<allocation>`, named
//    hptune.<job>.<trial>.<replica>), so a trial costs what its steps cost,
//    not a batch job. A trial takes an idle allocation of its job with the
//    same shape or submits a new one, and gives it back when it ends; the
//    job's end (EndJob) cancels them. Each srun is a child process of this
//    one: a step's end is its exit, seen through a pidfd.
//  - per-trial: each trial attempt is one batch job of its own, named
//    hptune.<job>.<trial>, whose batch script (the supervisor) starts each
//    replica as an srun step and records exits in files polled here, with
//    squeue asked about once a second. A site whose policy wants each trial
//    accounted as a job of its own chooses it; a runner that dies leaves
//    these jobs running, and the next one reattaches to them.
//
// Resources. Replicas are grouped by their GPUs (the acceleratorConfig of
// their task type: count, and type where SlurmOptions::gpu_types maps it to
// a gres type): one group is a plain job, several are the components of a
// heterogeneous job (`sbatch A : B`). Each component asks for one task per
// replica with --cpus-per-task and --mem-per-cpu (the largest machine type
// of the group in the catalogue) and --gpus-per-task ("2", or "t4:2" when
// typed). Slurm puts different components on different nodes, so CheckFits
// refuses more distinct groups than the cluster has nodes.
// The shapes are read from the job every replica sees in TF_CONFIG's "job"
// (the canonical trainingInput), so the TrialLaunch is all Start() needs.
//
// Limits. BeginJob refuses a job whose scheduling.maxRunningTime is longer
// than its partition's MaxTime (scontrol show partition), naming both,
// before anything is submitted. An sbatch refused for the user's or QOS's
// MaxSubmitJobs says so, and how to submit fewer jobs.
//
// Host resolution. Ports are picked at Reserve() time (free on this host;
// on a real cluster a guess that the trainer's bind confirms), but the
// hosts exist only once Slurm has allocated the job. Reserve() therefore
// gives every replica the placeholder host "@hptune-host-<i>@", which
// BuildTrialLaunch writes into TF_CONFIG, CLUSTER_SPEC and MASTER_ADDR.
// The batch script (supervisor or holder, on the job's first node) assigns
// replica i to a node of its component from SLURM_JOB_NODELIST[_HET_GROUP_g]
// and SLURM_TASKS_PER_NODE[_HET_GROUP_g], looks up that node's NodeAddr with
// scontrol, and writes the addresses to a hosts file; each replica's srun
// step is pinned to its node (-w). A small wrapper in each step
// substitutes the placeholders, applies the replica's environment and
// argv (NUL-separated files: no shell quoting), appends stdout and stderr to
// the replica's log (the same paths as the local backend) and records the
// trainer's exit status in a file. GPUs come from Slurm's gres plugin
// (CUDA_VISIBLE_DEVICES of the step); a replica without GPUs sees it empty.
//
// Restarts. TrialRun::Restart(i) re-runs replica i as a new srun step inside
// the same allocation (same node, address and environment). The restart
// rules stay in the job runner. An attempt that fails entirely is started
// again like a new one (per-trial: a new batch job).
//
// Files. A trial attempt's files are under <trial dir>/slurm/<n>/ (the
// replicas' log directory): the scripts, the replica specs, hosts, exit
// files, and per-trial the batch job's output (batch.out), per-lane each
// srun's own output (r<k>.srun). An allocation's are under
// <runs dir>/<job>/slurm-allocations/<n>/, its path in the allocation's
// --comment (per-trial: the attempt's directory in the job's). These
// directories, the logs and the metric files must be on a file system the
// nodes share with this host.
//
// State. A run is Queued() until its batch script has written the hosts
// file, i.e. while the job or allocation waits in the cluster's queue (the
// runner then shows the trial QUEUED). A job or allocation that ended
// (cancelled, timed out, node failure) while replicas had not exited
// reports them killed by SIGKILL, and restarting one then fails, so the
// attempt is re-run. Terminate() sends SIGTERM to every step (scancel
// --signal=TERM), waits up to the grace period, then kills what is left
// and waits until squeue shows nothing of it running.
//
// Take-over. StopLeftovers cancels the allocations of the job (by name,
// whose comment is under the job's runs directory) that a dead runner left;
// its trials are then re-run under the restart rules. A per-trial job is
// found again by Reattach() with squeue (by name; its directory is its
// comment), which cancels any older duplicates and attaches to the newest.
//
// Thread-safety: SlurmLauncher is thread-safe; a TrialRun is used by one
// thread at a time.
#ifndef HPTUNE_LAUNCH_SLURM_LAUNCHER_H_
#define HPTUNE_LAUNCH_SLURM_LAUNCHER_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {
namespace slurm_internal {
class AllocationPool;
}  // namespace slurm_internal

// How trials get their Slurm resources (the module comment has both).
enum class SlurmAllocation { kPerLane, kPerTrial };
// "per-lane", "per-trial": the --slurm-allocation values.
std::string_view ToString(SlurmAllocation allocation);
// InvalidArgument naming the flag and the value for anything else.
absl::StatusOr<SlurmAllocation> ParseSlurmAllocation(std::string_view value);

struct SlurmOptions {
  // The machine: the clock and sleeps of its waits, the attempt files.
  // Required; set by the composition root; must outlive the launcher.
  Env* env = nullptr;
  // The launcher's sbatch options (`--slurm-*` flags): partition, account,
  // time and more options. A job's own (JobSpec::slurm, taken by BeginJob)
  // apply over them.
  // The extra options apply to the job (its first component, and the others
  // where Slurm propagates).
  SlurmJobOptions sbatch;
  // CPUs and memory of machine types (scale tiers resolve to theirs);
  // replicas of a type the catalogue does not know ask for one CPU and
  // 2 GiB.
  MachineCatalogue catalogue = MachineCatalogue::Builtin();
  // How often Poll() asks squeue whether the job is still alive.
  std::chrono::milliseconds state_poll_interval{1000};
  // The cluster's gres type for each AI Platform GPU type
  // (`--slurm-gpu-type NVIDIA_TESLA_T4=t4`), so a replica gets the GPUs its
  // acceleratorConfig names; a GPU type it does not list then never fits.
  // Empty: GPUs of any type, whatever acceleratorConfig.type says.
  std::map<std::string, std::string> gpu_types;
  SlurmAllocation allocation = SlurmAllocation::kPerLane;
};

class SlurmLauncher : public Launcher {
 public:
  // Checks that Slurm can be used from here: sbatch, squeue, scancel and
  // scontrol on PATH (FailedPrecondition naming the missing command), and
  // `scontrol ping` reaching the controller (Unavailable with its output and
  // SLURM_CONF). Reads the nodes' GPUs by gres type (sinfo) for CheckFits.
  static absl::StatusOr<std::unique_ptr<SlurmLauncher>> Create(
      SlurmOptions options);
  // Cancels the allocations it still holds.
  ~SlurmLauncher() override;

  // FailedPrecondition when a replica asks for more GPUs (of its gres type)
  // than any node of the cluster has, e.g.
  //   worker 0 asks for 8 GPUs, but the Slurm nodes have at most 4 (sinfo)
  // for a GPU type gpu_types does not map (when it maps any), or when the
  // replicas need more job components (distinct GPU counts and types) than
  // the cluster has nodes.
  [[nodiscard]] absl::Status CheckFits(
      const std::vector<ReplicaRequest>& requests) const override;
  // Placeholder hosts and one port per replica (0 for evaluators); never
  // ResourceExhausted: a job waits in Slurm's queue, PENDING.
  absl::StatusOr<std::unique_ptr<Placement>> Reserve(
      const std::vector<ReplicaRequest>& requests) override;
  // Keeps `job.slurm`, the sbatch options its trials' batch jobs get after
  // the launcher's own. FailedPrecondition when the job's partition (its
  // own, the launcher's, else the cluster's default) has a MaxTime shorter
  // than its scheduling.maxRunningTime, e.g.
  //   Slurm partition "short" runs a job at most 1m (MaxTime, scontrol show
  //   partition), less than the job's scheduling.maxRunningTime (1h)
  [[nodiscard]] absl::Status BeginJob(const JobSpec& job) override;
  // Cancels the job's allocations (per-lane) and forgets its options.
  void EndJob(const std::string& job_id) override;
  // Writes the attempt's directory. Per-lane: takes an idle allocation of
  // the job, or submits a new one, and starts the replicas' sruns in it as
  // soon as it runs. Per-trial: submits the attempt's batch job. Both with
  // the launcher's sbatch options and then the job's (BeginJob); returns
  // once sbatch has accepted what it submitted. Errors name what failed,
  // e.g. `sbatch: error: invalid partition`.
  absl::StatusOr<std::unique_ptr<TrialRun>> Start(
      const TrialLaunch& launch) override;
  // The newest pending or running Slurm job named for (job, trial), or
  // nullptr when there is none (always, per-lane: StopLeftovers ended it).
  absl::StatusOr<std::unique_ptr<TrialRun>> Reattach(
      const TrialLaunch& launch) override;
  // Cancels the allocations named for the job whose comment is under
  // `job_runs_dir`: what a dead runner of the job left. `grace` is not
  // used: their steps lost their watcher.
  void StopLeftovers(const std::filesystem::path& job_runs_dir,
                     std::chrono::milliseconds grace) override;

  // "hptune.<job>.<trial>": what squeue shows and Reattach looks for.
  static std::string JobName(const std::string& job_id, int64_t trial);
  // "hptune.<job>.allocation": the name of the job's allocations.
  static std::string AllocationName(const std::string& job_id);
  // The host BuildTrialLaunch sees for replica `replica`.
  static std::string HostPlaceholder(int replica);

 private:
  // Per node, its GPUs by gres type ("" for untyped ones).
  using NodeGpus = std::map<std::string, std::map<std::string, int>>;
  SlurmLauncher(SlurmOptions options, NodeGpus node_gpus);

  // Start() of per-trial and per-lane mode, once the attempt's directory
  // `dir` has its files.
  absl::StatusOr<std::unique_ptr<TrialRun>> SubmitTrial(
      const TrialLaunch& launch, const std::filesystem::path& dir,
      const std::vector<std::string>& resources);
  absl::StatusOr<std::unique_ptr<TrialRun>> StartInAllocation(
      const TrialLaunch& launch, const std::filesystem::path& dir,
      const std::vector<std::string>& resources);

  // The gres type replicas of AI Platform GPU type `type` ask for: "" for
  // any. NotFound when gpu_types maps other types but not this one.
  absl::StatusOr<std::string> GresType(const std::string& type) const;
  // The sbatch options BeginJob kept for `job_id`; none when it was not
  // called.
  SlurmJobOptions JobOptions(std::string_view job_id) const;
  // The most GPUs of gres type `gres` ("": of any type) one node has.
  int MostGpusOnANode(const std::string& gres) const;

  const SlurmOptions options_;
  const NodeGpus node_gpus_;
  mutable Mutex mutex_;
  // Each job's own sbatch options, by job ID (BeginJob).
  std::map<std::string, SlurmJobOptions, std::less<>> job_options_
      ABSL_GUARDED_BY(mutex_);
  // Per-lane mode's allocations; shared with the runs, which give theirs
  // back when they end.
  const std::shared_ptr<slurm_internal::AllocationPool> pool_;
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_SLURM_LAUNCHER_H_
