// Env: the operating system as hptune's job runner sees it -- the time,
// waiting for something to happen, and files -- behind one interface, after
// leveldb's Env, so the runner can be driven on a simulated clock.
//
// JobRunner takes an Env; DefaultEnv() is the real one. Processes are the
// Launcher's (hptune/launch/launcher.h): a trial's replicas are started and
// watched through it, and a TrialRun hands the runner the descriptors that
// become readable when a replica exits (TrialRun::ExitFds), which is what
// the runner waits on. Tests use FakeEnv (tests/testing/fake_env.h): its
// clock moves only when the runner waits or sleeps.
//
// Thread-safety: DefaultEnv() is thread-safe; an Env implementation must be
// safe to call from the threads of every runner that shares it.
#ifndef HPTUNE_ENV_ENV_H_
#define HPTUNE_ENV_ENV_H_

#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/time.h"
#include "hptune/env/clock.h"

namespace hptune {

class Env {
 public:
  virtual ~Env() = default;

  // The clock the runner reads: job and trial times, scheduling limits.
  virtual Clock& clock() = 0;
  Timestamp Now() { return clock().Now(); }

  // Blocks for `duration`.
  virtual void SleepFor(std::chrono::microseconds duration) = 0;
  // Blocks until one of `fds` is readable (a pidfd: its process ended) or
  // `timeout` passed, whichever is first. Spurious early returns are
  // allowed: the caller looks at what changed.
  virtual void WaitForReadable(std::span<const int> fds,
                               std::chrono::microseconds timeout) = 0;

  // Writes `contents` to `path` so that a reader sees the old file or the
  // new one, never a mix: a temporary file in the same directory, fsync,
  // rename. The file gets `mode` (0600 by default).
  [[nodiscard]] virtual absl::Status WriteFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600) = 0;
  // The whole file; NotFound when it does not exist.
  virtual absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) = 0;
};

// The real machine: the system clock, poll(2), POSIX files.
Env& DefaultEnv();

// Creates `dir` and its missing parents, each new one with mode 0700, so
// that what hptune keeps there (logs, metric files, token, state) is
// private to the user who runs it; directories that exist keep their mode.
// An error names the directory and the reason.
[[nodiscard]] absl::Status CreatePrivateDirectories(
    const std::filesystem::path& dir);

// Creates `dir` as CreatePrivateDirectories does, then checks that no other
// user can change what is in it, which hptune trusts (logs it appends to,
// metric files, cgroup records): `dir` is owned by this process's user and
// not writable by group or others, and each directory above it is owned by
// that user or root and writable by no one else, unless sticky (/tmp).
// FailedPrecondition naming the directory, its owner and mode, and the fix.
[[nodiscard]] absl::Status CheckPrivateDirectory(
    const std::filesystem::path& dir);

// Up to `max_bytes` of the file at `path` from `offset` (less at its end),
// and its size: a replica log read while its replica writes it. The file is
// opened without following a link and refused when it has other hard links,
// since its directory may belong to the job's user, who could point the
// name at a file only this process may read. NotFound when absent;
// FailedPrecondition naming the file when it is not one to read.
struct FileChunk {
  std::string data;
  int64_t size = 0;  // The whole file's.
};
absl::StatusOr<FileChunk> ReadFileChunk(const std::filesystem::path& path,
                                        int64_t offset, int64_t max_bytes);

// The file exec would run for `program`, searched as execvp does: a name
// with a slash is returned as it is; otherwise the first executable regular
// file of that name in a directory of this process's PATH ("/bin:/usr/bin"
// when unset), an empty entry being the working directory unless
// `search_working_dir` is false. NotFound, or PermissionDenied when only
// files that are not executable have the name.
absl::StatusOr<std::string> FindOnPath(const std::string& program,
                                       bool search_working_dir = true);

// Whether exec could run `program` (searched as FindOnPath does) with the
// working directory `working_dir` (this process's when empty), checked
// before anything starts: OK, or an error that says what to fix.
// NotFound: no such program, or its #! interpreter is missing ("the
// interpreter \"/usr/bin/python9\" of its #! line does not exist");
// PermissionDenied: not a regular file, not executable (with the chmod to
// run), or neither a binary nor a script with a #! line.
[[nodiscard]] absl::Status CheckExecutable(
    const std::string& program, const std::filesystem::path& working_dir = {});

}  // namespace hptune

#endif  // HPTUNE_ENV_ENV_H_
