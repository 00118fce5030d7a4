// The bash scripts of the Slurm backend (slurm_launcher.h has the design):
// the placement both batch scripts source (place.sh); the supervisor, the
// batch script of a trial attempt that is a batch job of its own; the
// holder, the batch script of an allocation that trials reuse; and the
// per-replica task wrapper that each srun step runs. SlurmLauncher writes
// them into the attempt's (or allocation's) directory. Internal to the
// launch module; constants only.
//
// Files of an attempt directory D, for replica k (all written by the
// launcher unless noted):
//   D/layout         one line per replica: "<component> <cpus> <mem/cpu MB>
//                    <gpus>[ <gres type>]"
//   D/components     the number of job components (1: not a het job)
//   D/r<k>.argv      argv, NUL-separated
//   D/r<k>.env       KEY=VALUE entries, NUL-separated, with host placeholders
//   D/r<k>.log       the replica's log path; D/r<k>.cwd its working directory
//   D/place.sh, D/job.sh (supervisor) or D/hold.sh (holder), D/task.sh
//   D/hosts, D/nodes written by place.sh: line k is replica k's
//                    address (the node's NodeAddr) and node name
//   D/r<k>.exit.<n>  written when run n of replica k ended: "<code> <signal>"
//                    (bash's view: a status above 128 is taken as a signal)
//   D/r<k>.restart.<n> written by the launcher: start run n of replica k
//   D/stop           written by the launcher: the supervisor may end
// An attempt in a reused allocation (per-lane) has the r<k>.* files, task.sh,
// and hosts copied from its allocation's directory A (which has layout,
// components, place.sh, hold.sh, hosts and nodes), plus:
//   D/allocation     "<Slurm job ID> <A>"
//   D/r<k>.srun      the output of replica k's srun processes
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_

namespace hptune::launch::slurm_internal {

extern const char kPlacementScript[];
extern const char kSupervisorScript[];
extern const char kHolderScript[];
extern const char kTaskScript[];

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_SCRIPTS_H_
