// The two bash scripts a Slurm trial attempt runs (slurm_launcher.h has the
// design): the supervisor, which is the batch script, and the per-replica
// task wrapper that each srun step runs. SlurmLauncher writes both into the
// attempt's directory. Internal to the launch module; constants only.
//
// Files of an attempt directory D, for replica k (all written by the
// launcher unless noted):
//   D/layout         one line per replica: "<component> <cpus> <mem/cpu MB>
//                    <gpus>[ <gres type>]"
//   D/components     the number of job components (1: not a het job)
//   D/r<k>.argv      argv, NUL-separated
//   D/r<k>.env       KEY=VALUE entries, NUL-separated, with host placeholders
//   D/r<k>.log       the replica's log path; D/r<k>.cwd its working directory
//   D/hosts, D/nodes written by the supervisor: line k is replica k's
//                    address (the node's NodeAddr) and node name
//   D/r<k>.exit.<n>  written when run n of replica k ended: "<code> <signal>"
//                    (bash's view: a status above 128 is taken as a signal)
//   D/r<k>.restart.<n> written by the launcher: start run n of replica k
//   D/stop           written by the launcher: the supervisor may end
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_

namespace hptune::launch::slurm_internal {

extern const char kSupervisorScript[];
extern const char kTaskScript[];

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_
