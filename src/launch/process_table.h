// ProcessTable: what the launchers read of the kernel's process table, the
// one home of every walk of /proc: the processes listed, each one's state,
// parent, process group and start time (/proc/PID/stat), and its environment
// (/proc/PID/environ). Its users: a replica's process group checked for a
// live member (replica_process.h), the processes a killed server's replicas
// left, found by the marker in their environment, and this process's zombie
// children, which the orphan collector takes (child_processes.h).
//
// /proc is files, so the table reads them through the Env it is handed: a
// test hands it a directory laid out as /proc. A process that ends while
// the table is walked is skipped, as is one whose files cannot be read
// (another user's environment). Internal to the launch module; thread-safe
// as its Env is.
#ifndef HPTUNE_SRC_LAUNCH_PROCESS_TABLE_H_
#define HPTUNE_SRC_LAUNCH_PROCESS_TABLE_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::launch {

// The fields of /proc/PID/stat the launchers use.
struct ProcessStat {
  char state = 0;  // R, S, D, ...; Z a zombie, X dead.
  pid_t parent = 0;
  pid_t group = 0;
  // Clock ticks after boot at which it started: with the pid, which
  // process it is (a pid may be reused, never with the same start time).
  uint64_t start_time = 0;

  // It has ended, and at most waits to be collected.
  bool Ended() const { return state == 'Z' || state == 'X'; }
};

// The text of /proc/PID/stat, "PID (COMM) S PPID PGRP ... STARTTIME ...",
// parsed; COMM may hold spaces and parentheses, so the fields start after
// the last ')'. Nothing when the state, parent or group is missing; a
// start time of 0 when it is.
std::optional<ProcessStat> ParseProcessStat(std::string_view text);

// How an environment entry ("NAME=value") is looked for.
enum class EntryMatch {
  kWhole,   // An entry equal to it.
  kPrefix,  // An entry that starts with it.
};

// Whether the text of /proc/PID/environ (entries ended by '\0') holds
// `entry`.
bool EnvironmentHolds(std::string_view environ_text, std::string_view entry,
                      EntryMatch match);

class ProcessTable {
 public:
  // Reads the table under `root`, the machine's at /proc, through `env`,
  // which must outlive it.
  explicit ProcessTable(Env& env, std::filesystem::path root = "/proc");

  // The processes listed, by ascending pid; some may be gone by the time
  // they are read. The system's reason when the table cannot be listed.
  absl::StatusOr<std::vector<pid_t>> Pids() const;
  // Nothing when it has gone (or the table cannot be read).
  std::optional<ProcessStat> StatOf(pid_t pid) const;
  // False when its environment cannot be read: it has gone, it is a
  // zombie, or it is another user's.
  bool EnvironmentHas(pid_t pid, std::string_view entry,
                      EntryMatch match) const;

  // Whether a process of group `group` has not ended. When the table
  // cannot be listed: true (a caller that waits for the group to end must
  // not stop waiting on a guess).
  bool GroupHasLiveProcess(pid_t group) const;
  // The processes but `except` that have not ended and whose environment
  // holds `entry`.
  std::vector<pid_t> LiveProcessesWith(std::string_view entry, EntryMatch match,
                                       pid_t except) const;
  // The zombies whose parent is `parent`.
  std::vector<pid_t> ZombieChildrenOf(pid_t parent) const;

 private:
  std::filesystem::path FileOf(pid_t pid, const char* name) const;

  Env& env_;
  std::filesystem::path root_;
};

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_PROCESS_TABLE_H_
