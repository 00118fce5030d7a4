// Test helpers: run a program (no shell) and capture its exit code, stdout
// and stderr, or start one in the background. Used by integration tests that
// drive the real binaries.
#ifndef HPTUNE_TESTS_TESTING_RUN_PROCESS_H_
#define HPTUNE_TESTS_TESTING_RUN_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hptune::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal.
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with `argv`, waits for it, and returns what it did.
ProcessResult RunProcess(const std::vector<std::string>& argv);
// The same with `env` put over this process's environment: "K=V" sets K,
// "K" alone removes it.
ProcessResult RunProcessWithEnv(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env);

// Starts argv[0] with `argv` without waiting for it, its stdout and stderr
// written to the files `out_path` and `err_path`. Throws when it cannot
// start.
pid_t StartProcess(const std::vector<std::string>& argv,
                   const std::string& out_path, const std::string& err_path);

// Waits up to `timeout` for a started process: its exit code (-1 when a
// signal killed it), or nullopt after SIGKILLing one still running.
std::optional<int> WaitForExit(pid_t pid, std::chrono::seconds timeout);

// Ends a started process that is still running when it goes out of scope:
// SIGTERM (so a runner cancels what it launched), then SIGKILL after
// `grace`. A test stopped by a failed assertion then leaves nothing behind
// to disturb the next one. A process the test already waited for is no
// longer its child and is left alone, even if its pid was reused.
class StopOnExit {
 public:
  explicit StopOnExit(pid_t pid,
                      std::chrono::seconds grace = std::chrono::seconds(30))
      : pid_(pid), grace_(grace) {}
  ~StopOnExit();
  StopOnExit(const StopOnExit&) = delete;
  StopOnExit& operator=(const StopOnExit&) = delete;

 private:
  pid_t pid_;
  std::chrono::seconds grace_;
};

// A fresh empty directory under the test temp dir.
std::string MakeTempDir();

// Live processes (zombies left out) whose command line mentions `text`, as
// "pid: cmdline": what a test started and expects gone, found by a unique
// string in its arguments (a test's temp dir).
std::vector<std::string> ProcessesMentioning(const std::string& text);

// The zombies whose parent is `parent` (/proc/<pid>/stat): children it
// has not collected.
std::vector<pid_t> ZombieChildrenOf(pid_t parent);

// SIGKILLs every process ProcessesMentioning(text) finds when it goes out
// of scope: a test's cleanup of what it started, however the test ends.
class KillProcessesMentioning {
 public:
  explicit KillProcessesMentioning(std::string text) : text_(std::move(text)) {}
  ~KillProcessesMentioning();
  KillProcessesMentioning(const KillProcessesMentioning&) = delete;
  KillProcessesMentioning& operator=(const KillProcessesMentioning&) = delete;

 private:
  std::string text_;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_RUN_PROCESS_H_
