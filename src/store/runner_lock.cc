#include "src/store/runner_lock.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::store {

absl::StatusOr<RunnerLock> RunnerLock::Acquire(Env& env,
                                               const std::string& db_path,
                                               Holder holder) {
  const std::string path = db_path + ".serve-lock";
  const bool server = holder == Holder::kServer;
  absl::StatusOr<std::unique_ptr<FileLock>> lock =
      env.LockFile(path, server ? LockMode::kExclusive : LockMode::kShared,
                   LockFileUse::kKept);
  if (lock.ok()) return RunnerLock(*std::move(lock));
  if (!absl::IsUnavailable(lock.status())) return lock.status();
  if (!server) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", db_path, "\" is served by hptune serve (lock file \"",
        path,
        "\"): submit the job to the server with `hptune jobs submit`, or run "
        "it on another --db"));
  }
  // Shared would succeed only if the holders are runs.
  if (env.LockFile(path, LockMode::kShared, LockFileUse::kKept).ok()) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", db_path, "\" is in use by hptune run (lock file \"",
        path, "\"); serve it once those runs end, or serve another --db"));
  }
  return absl::UnavailableError(absl::StrCat(
      "database \"", db_path,
      "\" is already served by another hptune serve (lock file \"", path,
      "\"): a SQLite file has one server; several servers share "
      "a postgresql:// store"));
}

absl::StatusOr<JobLock> JobLock::Acquire(Env& env, const std::string& db_path,
                                         const std::string& job_id) {
  if (job_id.empty() || job_id.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ID \"", job_id, "\" cannot name a lock file"));
  }
  const std::string path = absl::StrCat(db_path, ".job-", job_id, ".lock");
  absl::StatusOr<std::unique_ptr<FileLock>> lock =
      env.LockFile(path, LockMode::kExclusive, LockFileUse::kHolderPid);
  if (lock.ok()) return JobLock(*std::move(lock));
  if (!absl::IsUnavailable(lock.status())) return lock.status();
  // The pid the holder wrote, for the message; "?" when unreadable.
  absl::StatusOr<std::string> pid = env.ReadFileHead(path, 31);
  return absl::UnavailableError(
      absl::StrCat("job ", job_id, " is being run by a live process (pid ",
                   pid.ok() && !pid->empty() ? *pid : "?", ", lock file \"",
                   path, "\"): wait for it, or cancel it there"));
}

}  // namespace hptune::store
