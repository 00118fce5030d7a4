// Test helper: whether the Slurm test cluster (scripts/start-slurm, started
// by ctest's slurm fixture) can be used, and why not. Sets SLURM_CONF to the
// cluster's config when it is unset, so the launcher and the Slurm commands
// of a test find it.
#ifndef HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_
#define HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_

#include <string>
#include <vector>

namespace hptune::testing_slurm {

// `scontrol ping` says the controller is up; *why_not otherwise.
bool ClusterUsable(std::string* why_not);
// True (with the reason) where start-slurm cannot run at all: not root, or
// the Slurm and munge daemons are not installed. Anything else is a failure.
bool ClusterCannotRunHere(std::string* why);
bool SlurmCommandsInstalled();
// ${HPTUNE_SLURM_DIR:-/tmp/hptune-slurm}/etc/slurm.conf
std::string ClusterConfig();
// squeue's lines (in `format`) for the jobs named `name` that have not
// ended: one per job, or per component of a heterogeneous job.
std::vector<std::string> QueuedJobs(const std::string& name,
                                    const std::string& format = "%i %T");

}  // namespace hptune::testing_slurm

#endif  // HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_
