// SlurmLauncher: runs each trial attempt as one Slurm batch job, one task per
// replica (`hptune run --backend slurm`, or a server composed with it).
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
// Host resolution. Ports are picked at Reserve() time (free on this host;
// on a real cluster a guess that the trainer's bind confirms), but the
// hosts exist only once Slurm has allocated the job. Reserve() therefore
// gives every replica the placeholder host "@hptune-host-<i>@", which
// BuildTrialLaunch writes into TF_CONFIG, CLUSTER_SPEC and MASTER_ADDR.
// The batch script (a supervisor running on the job's first node) assigns
// replica i to a node of its component from SLURM_JOB_NODELIST[_HET_GROUP_g]
// and SLURM_TASKS_PER_NODE[_HET_GROUP_g], looks up that node's NodeAddr with
// scontrol, writes the addresses to a hosts file, and starts each replica as
// an srun step pinned to its node (-w). A small wrapper in each step
// substitutes the placeholders, applies the replica's environment and
// argv (NUL-separated files: no shell quoting), appends stdout and stderr to
// the replica's log (the same paths as the local backend) and records the
// trainer's exit status in a file. GPUs come from Slurm's gres plugin
// (CUDA_VISIBLE_DEVICES of the step); a replica without GPUs sees it empty.
//
// Restarts. TrialRun::Restart(i) re-runs replica i as a new srun step inside
// the same allocation (same node, address and environment): the launcher
// drops a request file that the supervisor is waiting for. The restart rules
// stay in the job runner. An attempt that fails entirely is a new job.
//
// Files. Everything is under <trial dir>/slurm/<n>/ (the replicas' log
// directory): the scripts, the replica specs, hosts, exit files and the batch
// job's own output (batch.out). That directory, the logs and the metric files
// must be on a file system the nodes share with this host.
//
// State. A run is Queued() until the supervisor has written the hosts file,
// i.e. while the job waits in the cluster's queue (the runner then shows the
// trial QUEUED). Poll() reads exit files; about once a second it also asks
// squeue for the job: a job that ended (cancelled, timed out, node failure)
// while replicas had not exited reports them killed by SIGKILL, and restarting
// one then fails, so the attempt is re-run. Terminate() sends SIGTERM to every
// step (scancel --signal=TERM), waits up to the grace period, then cancels
// the job and waits until squeue shows nothing of it running.
//
// Reattach. The job is named hptune.<job>.<trial> and carries its directory
// in --comment, so Reattach() finds a pending or running job of the trial
// with squeue, cancels any older duplicates, and attaches to the newest.
//
// Thread-safety: SlurmLauncher is thread-safe; a TrialRun is used by one
// thread at a time.
#ifndef HPTUNE_LAUNCH_SLURM_LAUNCHER_H_
#define HPTUNE_LAUNCH_SLURM_LAUNCHER_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/mutex.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

struct SlurmOptions {
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
};

class SlurmLauncher : public Launcher {
 public:
  // Checks that Slurm can be used from here: sbatch, squeue, scancel and
  // scontrol on PATH (FailedPrecondition naming the missing command), and
  // `scontrol ping` reaching the controller (Unavailable with its output and
  // SLURM_CONF). Reads the nodes' GPUs by gres type (sinfo) for CheckFits.
  static absl::StatusOr<std::unique_ptr<SlurmLauncher>> Create(
      SlurmOptions options);

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
  // the launcher's own.
  [[nodiscard]] absl::Status BeginJob(const JobSpec& job) override;
  // Writes the attempt's directory and submits the batch job with the
  // launcher's sbatch options and then the job's (BeginJob); returns once
  // sbatch has accepted it (the replicas start when Slurm allocates it).
  // Errors name what failed, e.g. `sbatch: error: invalid partition`.
  absl::StatusOr<std::unique_ptr<TrialRun>> Start(
      const TrialLaunch& launch) override;
  // The newest pending or running Slurm job named for (job, trial), or
  // nullptr when there is none.
  absl::StatusOr<std::unique_ptr<TrialRun>> Reattach(
      const TrialLaunch& launch) override;

  // "hptune.<job>.<trial>": what squeue shows and Reattach looks for.
  static std::string JobName(const std::string& job_id, int64_t trial);
  // The host BuildTrialLaunch sees for replica `replica`.
  static std::string HostPlaceholder(int replica);

 private:
  // Per node, its GPUs by gres type ("" for untyped ones).
  using NodeGpus = std::map<std::string, std::map<std::string, int>>;
  SlurmLauncher(SlurmOptions options, NodeGpus node_gpus);

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
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_SLURM_LAUNCHER_H_
