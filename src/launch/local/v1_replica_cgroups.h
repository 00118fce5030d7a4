// Replicas moved out of this process's cgroup v1s, on a hybrid cgroup
// v1/v2 host, so that podman cannot move this process.
//
// `podman run --cgroups=split`, which the local launcher uses where
// replicas have cgroup v2s of their own (podman_argv.h), first moves every
// process of its caller's cgroup, in each cgroup v1 hierarchy where that is
// not the root, into a child cgroup named `runtime` (podman's
// MoveUnderCgroupSubtree). A replica starts in this process's v1 cgroups,
// so each container start would move this process, and everything beside
// it, one level down, until the path is too long and podman fails ("file
// name too long", after some 500 starts). So each replica's child first
// moves itself into `hptune-replicas`, a child of this process's cgroup in
// each such hierarchy, shared by every replica and every hptune process
// there: podman then moves replicas only, always to hptune-replicas/runtime.
// This is placement, not containment (the v2 cgroup's, trial_cgroup.h); no
// controller is set, and the cgroups stay for the next process.
//
// Internal to the local launcher. Thread-compatible.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_V1_REPLICA_CGROUPS_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_V1_REPLICA_CGROUPS_H_

#include <string>
#include <vector>

#include "hptune/env/env.h"

namespace hptune::launch {

// The name of the cgroup made in each v1 hierarchy.
inline constexpr char kV1ReplicaCgroup[] = "hptune-replicas";

// The hierarchies' directories: /sys/fs/cgroup/<controllers>/<path> for
// each line "N:<controllers>:<path>" of `proc_self_cgroup` (N not 0) whose
// path is not "/", as podman finds them.
std::vector<std::string> V1CgroupDirs(const std::string& proc_self_cgroup);

// The cgroup.procs of `hptune-replicas` in each of this process's v1
// hierarchies, made when missing and opened for writing: a replica's child
// writes "0" to each to move itself. Empty on a host without such
// hierarchies, and where one cannot be made or opened (replicas then start
// where this process is). The caller owns the descriptors; DetectCgroupSupport
// opens them once and keeps them for the life of the process
// (CgroupSupport::v1_replica_procs, trial_cgroup.h).
std::vector<int> OpenV1ReplicaCgroups(Env& env);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_V1_REPLICA_CGROUPS_H_
