// Telling a trainer's permanent failures (a missing module, a syntax error,
// a wrong flag, a command that cannot run) from the ones a restart may cure,
// from how a replica ended and the last lines of its log. Used by
// TrialExecution; pure functions apart from LogTail's read through Env,
// thread-safe.
#ifndef HPTUNE_SRC_RUNNER_FAILURE_CAUSE_H_
#define HPTUNE_SRC_RUNNER_FAILURE_CAUSE_H_

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::runner::internal {

// How many log lines a failure quotes.
inline constexpr int kLogTailLines = 20;

// The last `max_lines` lines of `log`, read through `env` from at most its
// last 16 KiB (a trainer's log may be gigabytes), each cut to 300
// characters. Empty when the log cannot be read, or is a link or has other
// links (Env::OpenForReading): a trainer cannot have a failure quote a file
// only this process may read.
std::vector<std::string> LogTail(Env& env, const std::filesystem::path& log,
                                 int max_lines = kLogTailLines);

// The last line of `tail` that is not blank, or "".
std::string LastLogLine(const std::vector<std::string>& tail);

// Why `exit` is an error no restart cures: the line that says so (e.g.
// "ModuleNotFoundError: No module named 'trainer'"), or nullopt. Permanent:
// exit 126 or 127 (a shell could not execute or find the command); and, for
// a trainer that has reported nothing in this attempt, a log that ends in a
// Python SyntaxError, IndentationError, ImportError or ModuleNotFoundError,
// `python -m` or `python FILE` finding nothing to run, or an argparse usage
// error (exit 2 after a "usage:" line).
std::optional<std::string> PermanentCause(const launch::ReplicaExit& exit,
                                          const std::vector<std::string>& tail,
                                          bool reported);

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_FAILURE_CAUSE_H_
