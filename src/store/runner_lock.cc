#include "src/store/runner_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::store {

absl::StatusOr<RunnerLock> RunnerLock::Acquire(const std::string& db_path,
                                               Holder holder) {
  const std::string path = db_path + ".serve-lock";
  const int fd =
      open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
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

namespace {

// The pid a JobLock's holder wrote, for a message; "?" when unreadable.
std::string HolderPid(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  return n > 0 ? std::string(buffer, n) : std::string("?");
}

// Whether `fd` is still the file at `path`: a releasing holder unlinks the
// file before it unlocks, so a lock taken on an unlinked file is stale.
bool StillLinked(int fd, const std::string& path) {
  struct stat opened, named;
  return fstat(fd, &opened) == 0 && stat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

absl::StatusOr<JobLock> JobLock::Acquire(const std::string& db_path,
                                         const std::string& job_id) {
  if (job_id.empty() || job_id.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ID \"", job_id, "\" cannot name a lock file"));
  }
  const std::string path = absl::StrCat(db_path, ".job-", job_id, ".lock");
  while (true) {
    const int fd =
        open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create lock file \"", path, "\": ", strerror(errno)));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const std::string pid = HolderPid(fd);
      close(fd);
      return absl::UnavailableError(absl::StrCat(
          "job ", job_id, " is being run by a live process (pid ", pid,
          ", lock file \"", path, "\"): wait for it, or cancel it there"));
    }
    if (!StillLinked(fd, path)) {  // Lost a race with a release: again.
      close(fd);
      continue;
    }
    // The pid is for messages only: the lock holds without it.
    const std::string pid = std::to_string(getpid());
    if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
    return JobLock(fd, path);
  }
}

JobLock::JobLock(JobLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

JobLock& JobLock::operator=(JobLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

JobLock::~JobLock() { Release(); }

void JobLock::Release() {
  if (fd_ < 0) return;
  unlink(path_.c_str());
  close(fd_);
  fd_ = -1;
}

}  // namespace hptune::store
