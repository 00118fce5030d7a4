// Starting one replica as a child process in a process group of its own, and
// the process-group operations a TrialRun needs to stop and collect it.
//
// A process group holds the replica and whatever it starts (data loaders,
// torchrun's workers), so signalling the group reaches them all. Processes
// that leave the group (setsid, setpgid) escape it; that needs cgroups, which
// the local launcher does not use. Internal to the launch module;
// thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_REPLICA_PROCESS_H_
#define HPTUNE_SRC_LAUNCH_REPLICA_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

// "worker 1": how messages name a replica.
std::string DescribeReplica(const ReplicaLaunch& replica);

// Starts `replica` with posix_spawnp (argv[0] looked up on this process's
// PATH; no shell) in a new process group whose id is the returned pid.
// stdin is /dev/null; stdout and stderr are appended to log_path (parent
// directories created); no other descriptor is inherited; every signal has
// its default action and none is blocked; the environment is this process's
// with replica.env overriding it. Errors name the replica and what failed:
//   master 0: cannot start "/no/such": No such file or directory
absl::StatusOr<pid_t> SpawnReplica(const ReplicaLaunch& replica);

// Whether any process of group `pgid` is still alive. Zombies do not count:
// they have ended and only wait for their parent (init, for orphans) to
// collect them.
bool GroupHasLiveProcess(pid_t pgid);

// Whether no process of group `pgid` exists, zombies included: its id can
// then be reused by an unrelated process, so it must not be signalled again.
bool GroupIsGone(pid_t pgid);

// Sends `signal` to every process of group `pgid` (errors ignored: the
// group may be gone already).
void SignalGroup(pid_t pgid, int signal);

// Collects, without blocking, every ended child of this process in group
// `pgid` (orphaned grandchildren are our children when this process is a
// child subreaper), returning (pid, wait status) pairs.
std::vector<std::pair<pid_t, int>> ReapGroup(pid_t pgid);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_REPLICA_PROCESS_H_
