// Starting one replica as a child process in a process group of its own, and
// the process-group operations a TrialRun needs to stop and collect it.
//
// A process group holds the replica and whatever it starts (data loaders,
// torchrun's workers), so signalling the group reaches them all. Processes
// that leave the group (setsid, setpgid) escape it; a replica started in a
// cgroup (trial_cgroup.h) does not. The working directory, the marker's
// absolute path, the clock of waits and the process table (process_table.h)
// go through the Env a caller hands in; starting, signalling and collecting
// processes are the kernel's. Internal to the launch module; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_REPLICA_PROCESS_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_REPLICA_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "src/env/scoped_fd.h"

namespace hptune::launch {

// "worker 1": how messages name a replica.
std::string DescribeReplica(const ReplicaLaunch& replica);

// Starts `replica` with posix_spawnp (argv[0] looked up on this process's
// PATH; no shell) in a new process group whose id is the returned pid.
// stdin is /dev/null; stdout and stderr are appended to log_path (parent
// directories created); no other descriptor is inherited; every signal has
// its default action and none is blocked; the environment is this process's
// with replica.env overriding it. With a `cgroup_fd` (trial_cgroup.h) the
// process starts in that cgroup. The caller owns the child
// (child_processes.h): it calls Disown(pid) once it has collected it.
// The working directory is looked at through `env`. Errors name the replica
// and what failed:
//   master 0: cannot start "/no/such": No such file or directory
absl::StatusOr<pid_t> SpawnReplica(Env& env, const ReplicaLaunch& replica,
                                   int cgroup_fd = -1);

// A pidfd for `pid` (pidfd_open(2), Linux 5.3+), readable once the process
// has ended, owned by the result; none (errno set) when it cannot be
// opened. Close-on-exec, as every pidfd is.
ScopedFd OpenPidfd(pid_t pid);

// Every replica process carries HPTUNE_REPLICA=<its marker> in its
// environment, and so does everything it starts that keeps the environment.
// The marker is the replica's absolute log path: unique per runs directory,
// job, trial and replica, and the same when a restarted server rebuilds the
// trial's launch. It is how a later hptune process finds replicas that an
// earlier one left running when it was killed (LocalLauncher::Reattach).
// A relative log path is made absolute against `env`'s working directory.
inline constexpr char kReplicaMarkerVariable[] = "HPTUNE_REPLICA";
std::string ReplicaMarker(Env& env, const ReplicaLaunch& replica);

// Live processes of this user but this one whose environment holds
// HPTUNE_REPLICA=`marker`, found in `env`'s /proc (process_table.h). Not
// our children: their parent was the process that died.
std::vector<pid_t> FindMarkedProcesses(Env& env, const std::string& marker);

// Stops every process found by FindMarkedProcesses(marker): SIGTERM to each
// one's process group, up to `grace` for them to end, then SIGKILL. Each
// process is held by a pidfd whose environment is checked again after it is
// opened, so a reused pid is never signalled. The waits run on `env`'s
// monotonic clock. Returns how many processes were found.
int StopMarkedProcesses(Env& env, const std::string& marker,
                        std::chrono::milliseconds grace);
// The same for every marker that starts with `prefix`, e.g. a job's runs
// directory "<runs_dir>/<job>/": all replicas of that job.
int StopMarkedProcessesUnder(Env& env, const std::string& prefix,
                             std::chrono::milliseconds grace);

// Whether any process of group `pgid` is still alive, by `env`'s /proc.
// Zombies do not count: they have ended and only wait for their parent
// (init, for orphans) to collect them.
bool GroupHasLiveProcess(Env& env, pid_t pgid);

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

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_REPLICA_PROCESS_H_
