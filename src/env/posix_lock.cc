// Env::LockFile on the real machine: flock(2) on a file beside what it
// guards, which the kernel drops when the holder dies, however it dies.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/env/posix_files.h"
#include "src/env/scoped_fd.h"

namespace hptune::internal {
namespace {

class PosixFileLock : public FileLock {
 public:
  PosixFileLock(ScopedFd fd, std::filesystem::path remove_on_release)
      : fd_(std::move(fd)), remove_(std::move(remove_on_release)) {}
  // Unlinked before the lock drops: whoever locks the old file meanwhile
  // sees it unlinked (StillLinked) and tries again.
  ~PosixFileLock() override {
    if (!remove_.empty()) ::unlink(remove_.c_str());
  }

 private:
  ScopedFd fd_;
  std::filesystem::path remove_;
};

// Whether `fd` is still the file at `path`.
bool StillLinked(int fd, const std::filesystem::path& path) {
  struct stat opened, named;
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

// The pid is for messages only: the lock holds without it.
void WriteHolderPid(int fd) {
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
}

}  // namespace

absl::StatusOr<std::unique_ptr<FileLock>> LockPosixFile(
    const std::filesystem::path& path, LockMode mode, LockFileUse use) {
  const int operation =
      (mode == LockMode::kExclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  while (true) {
    ScopedFd fd(
        ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create lock file \"", path.string(),
                       "\": ", std::strerror(errno)));
    }
    if (::flock(fd.get(), operation) != 0) {
      return absl::UnavailableError(absl::StrCat(
          "lock file \"", path.string(), "\" is held by another holder"));
    }
    if (use == LockFileUse::kKept) {
      return std::make_unique<PosixFileLock>(std::move(fd),
                                             std::filesystem::path());
    }
    if (!StillLinked(fd.get(), path)) continue;  // Lost a race with a release.
    WriteHolderPid(fd.get());
    return std::make_unique<PosixFileLock>(std::move(fd), path);
  }
}

}  // namespace hptune::internal
