#include "src/store/runner_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::store {

absl::StatusOr<RunnerLock> RunnerLock::Acquire(const std::string& db_path,
                                               Holder holder) {
  const std::string path = db_path + ".serve-lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create lock file \"", path, "\": ", strerror(errno)));
  }
  RunnerLock lock(fd);
  const bool server = holder == Holder::kServer;
  if (flock(fd, (server ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) return lock;
  if (!server) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", db_path, "\" is served by hptune serve (lock file \"",
        path,
        "\"): submit the job to the server with `hptune jobs submit`, or run "
        "it on another --db"));
  }
  // Shared would succeed only if the holders are runs.
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
    return absl::UnavailableError(absl::StrCat(
        "database \"", db_path, "\" is in use by hptune run (lock file \"",
        path, "\"); serve it once those runs end, or serve another --db"));
  }
  return absl::UnavailableError(
      absl::StrCat("database \"", db_path,
                   "\" is already served by another hptune serve (lock file \"",
                   path, "\")"));
}

RunnerLock::RunnerLock(RunnerLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

RunnerLock& RunnerLock::operator=(RunnerLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

RunnerLock::~RunnerLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace hptune::store
