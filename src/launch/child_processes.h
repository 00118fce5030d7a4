// Which children of this process their starters wait for, and the collector
// of the rest: orphans the kernel re-parents to a child subreaper.
//
// `hptune serve` and `hptune run` are child subreapers, so a process a
// replica leaves behind, also one in a session of its own (setsid), becomes
// their child when its parent ends, and stays a zombie, holding its pid,
// until they collect it. The collector (StartOrphanCollector) collects
// every ended child that no starter owns. A starter owns its child from
// before the start (ChildStart) until it has collected it (Disown), so the
// collector never takes an exit status a launcher waits for. Every child
// the launch module starts goes through ChildStart. The collector finds
// orphans in the process table (process_table.h) and times its waits
// through the Env it is started with.
//
// Internal to the launch module. Thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_CHILD_PROCESSES_H_
#define HPTUNE_SRC_LAUNCH_CHILD_PROCESSES_H_

#include <sys/types.h>

#include "hptune/env/env.h"

namespace hptune::launch {

// Held around starting a child, until Own names it: meanwhile the
// collector collects nothing, since it could not tell the new child from an
// orphan.
class ChildStart {
 public:
  ChildStart();
  ~ChildStart();
  ChildStart(const ChildStart&) = delete;
  ChildStart& operator=(const ChildStart&) = delete;

  // The starter waits for `pid` (waitpid(pid) or its group); ignored when
  // not positive (the start failed).
  void Own(pid_t pid);
};

// The starter collected `pid`, or leaves it to the collector from now on.
void Disown(pid_t pid);

// Starts the collector's thread, once per process; later calls do nothing.
// It sleeps in waitid until a child ends. The thread never ends, so
// `process_env` must live as long as the process (the machine's Env).
void StartOrphanCollector(Env& process_env);

// Collects now every ended child that no starter owns, found in `env`'s
// process table; how many.
int CollectOrphans(Env& env);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_CHILD_PROCESSES_H_
