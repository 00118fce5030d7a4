// What submitting a trial to Slurm takes (slurm_launcher.h has the design):
// the trial's heterogeneous job, one component per GPU shape; the
// attempt's directory and the files the scripts read there
// (slurm_scripts.h); sbatch's options and the submission itself; an
// allocation's directory. Internal to the Slurm launcher; functions of
// their arguments and the file system, thread-compatible.
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_SUBMISSION_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_SUBMISSION_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/launch/launcher.h"
#include "hptune/launch/slurm_launcher.h"

namespace hptune::launch::slurm_internal {

// Memory of a replica whose machine type the catalogue does not know (the
// BASIC tiers name none): a step must ask for some, or it would take all
// of its node's share of the job and block the other replicas there.
constexpr int kDefaultMemoryMb = 2048;

// What one replica asks Slurm for.
struct Shape {
  int cpus = 1;
  int mem_per_cpu_mb = kDefaultMemoryMb;
  int gpus = 0;
  std::string gres_type;  // "": GPUs of any type.
};

// A trial's heterogeneous Slurm job: one component per distinct GPU count
// and type, in order of first use, each with the most CPUs and memory any
// of its replicas needs. Slurm puts components on different nodes, so fewer
// components fit more clusters.
struct Components {
  std::vector<Shape> shapes;
  std::vector<int> tasks;         // Replicas of each component.
  std::vector<int> component_of;  // Each replica's component.
};

// The job master 0 sees in TF_CONFIG (or, for a Vertex job of one replica,
// in CLUSTER_SPEC), as a JobSpec with its scale tier resolved into pools.
absl::StatusOr<JobSpec> JobOfLaunch(const TrialLaunch& launch,
                                    const MachineCatalogue& catalogue);

// `gpu_types` as in SlurmOptions.
Components ComponentsOf(const TrialLaunch& launch, const JobSpec& job,
                        const MachineCatalogue& catalogue,
                        const std::map<std::string, std::string>& gpu_types);

// A fresh <trial dir>/slurm/<n> for this attempt.
absl::StatusOr<std::filesystem::path> NewAttemptDir(
    Env& env, const std::filesystem::path& base);

// What the supervisor script reads in the attempt's directory: the
// scripts, each replica's component and shape (layout), and each replica's
// environment, argv, log path and working directory (r<k>.*), each written
// whole through `env`.
absl::Status WriteAttemptFiles(Env& env, const std::filesystem::path& dir,
                               const TrialLaunch& launch,
                               const Components& components);

// sbatch's resource options: the launcher's options, then the job's (sbatch
// takes the last of a repeated option), then each component's resources.
std::vector<std::string> SbatchResources(
    const Components& components, const SlurmJobOptions& launcher_options,
    const SlurmJobOptions& job_options);

// Submits batch script `script` of directory `dir` (its comment, its output
// in batch.out) as job `name`, sbatch run through `env`; Slurm's job ID.
absl::StatusOr<std::string> Submit(Env& env, const std::string& name,
                                   const std::filesystem::path& dir,
                                   const std::vector<std::string>& resources,
                                   const std::string& script);

// An allocation's directory under the job's runs directory, with what its
// holder reads, copied from the attempt's directory `attempt`.
absl::StatusOr<std::filesystem::path> NewAllocationDir(
    Env& env, const std::filesystem::path& attempt);

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_SUBMISSION_H_
