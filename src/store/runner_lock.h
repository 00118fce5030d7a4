// RunnerLock: which processes may run jobs on one database file. Used by
// SqliteStore::AcquireRunnerLease, the runner lease of the Store interface
// that `hptune serve`, `hptune run` and `hptune studies delete` ask for
// (hptune/store/store.h); nothing else builds one (but tests).
//
// A server resumes every unfinished job of its database, so nothing else
// may run jobs there: it holds the lock exclusively. Each `hptune run` runs
// its own job and may share the file with other runs: it holds the lock
// shared. Either refuses to start, with a message naming the file and what
// holds it, when the other kind is there. The lock is Env::LockFile's on
// "<db>.serve-lock" (an flock on the real machine, which the kernel drops
// when the process dies, however it dies). Move-only; released on
// destruction. Thread-compatible.
#ifndef HPTUNE_SRC_STORE_RUNNER_LOCK_H_
#define HPTUNE_SRC_STORE_RUNNER_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::store {

class RunnerLock {
 public:
  enum class Holder {
    kServer,  // `hptune serve`: exclusive.
    kRun,     // `hptune run`: shared with other runs.
  };

  // Unavailable when the lock is held by the other kind (or, for a server,
  // by another server); FailedPrecondition when the file cannot be created.
  // The lock is taken through `env`.
  static absl::StatusOr<RunnerLock> Acquire(Env& env,
                                            const std::string& db_path,
                                            Holder holder);

 private:
  explicit RunnerLock(std::unique_ptr<FileLock> lock)
      : lock_(std::move(lock)) {}
  std::unique_ptr<FileLock> lock_;
};

// JobLock: the live runner of one job of a database. `hptune run` holds it
// for the job it runs, so that a second `hptune run --job-id X` takes over
// X only when X's runner is dead (the kernel drops the lock with its
// holder, however it dies) and refuses while it lives. A server needs none:
// its exclusive RunnerLock keeps every run out of its database. The lock is
// Env::LockFile's on "<db>.job-<id>.lock" holding the holder's pid, removed
// on release (LockFileUse::kHolderPid). Move-only; released on destruction.
class JobLock {
 public:
  // Unavailable, naming the holder's pid, while a live process holds it;
  // FailedPrecondition when the file cannot be created. `job_id` is a
  // validated job ID (letters, digits, underscores).
  static absl::StatusOr<JobLock> Acquire(Env& env, const std::string& db_path,
                                         const std::string& job_id);

 private:
  explicit JobLock(std::unique_ptr<FileLock> lock) : lock_(std::move(lock)) {}
  std::unique_ptr<FileLock> lock_;
};

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_RUNNER_LOCK_H_
