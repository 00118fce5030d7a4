// Starting a child process inside a given cgroup v2 from its first
// instruction on, so it cannot fork anything outside the cgroup before it is
// moved there. Internal to the local launcher; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_SPAWN_IN_CGROUP_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_SPAWN_IN_CGROUP_H_

#include <sys/types.h>

#include <span>

#include "hptune/env/users.h"

namespace hptune::launch {

// fork(2), with the child started in the cgroup whose directory `cgroup_fd`
// is open on (clone3 with CLONE_INTO_CGROUP, Linux 5.7+). Returns the
// child's pid in the parent, 0 in the child, -1 with errno set when it
// fails. As after fork() in a threaded process, the child may make only
// async-signal-safe calls until it execs or _exits.
pid_t CloneIntoCgroup(int cgroup_fd);

// What a child started by SpawnInCgroup runs, all prepared by the parent
// (the child may not allocate).
struct ChildExec {
  const char* program;  // A path: PATH was searched by the caller.
  char* const* argv;    // Null-terminated.
  char* const* envp;    // Null-terminated.
  int log_fd;           // Becomes stdout and stderr.
  const char* working_dir = nullptr;  // Unchanged when null.
  // Whom the child becomes before it execs (groups, gid, uid; needs root).
  // Unchanged when null.
  const UserCredentials* user = nullptr;
  // cgroup.procs files, open for writing, that the child moves itself into
  // first (v1_replica_cgroups.h); one it cannot enter is skipped.
  std::span<const int> enter_cgroups;
};

// Starts `exec` in the cgroup of `cgroup_fd` (this process's when -1), as
// posix_spawn would with the
// options SpawnReplica uses, and as cheaply (on x86-64 the child shares this
// process's memory until it execs, like vfork): a process group of its own,
// stdin /dev/null, stdout and stderr on log_fd, no other descriptor, every
// signal at its default action and none blocked. Returns the child's pid once
// it has exec'd, or -1 with errno set to what failed (in this process or in the
// child, e.g. ENOENT or EACCES from execve); a child that failed is
// collected.
pid_t SpawnInCgroup(const ChildExec& exec, int cgroup_fd);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_SPAWN_IN_CGROUP_H_
