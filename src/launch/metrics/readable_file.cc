#include "src/launch/metrics/readable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hptune::launch {

absl::StatusOr<std::optional<ReadableFile>> ReadableFile::Open(
    const std::filesystem::path& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    return absl::ErrnoToStatus(
        errno,
        absl::StrCat("cannot open metrics file \"", path.string(), "\""));
  }
  // Owns fd from here on, so every return below closes it.
  ReadableFile file(fd, 0, path.string());
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    return absl::ErrnoToStatus(
        errno,
        absl::StrCat("cannot stat metrics file \"", path.string(), "\""));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "metrics file \"", path.string(), "\" is not a regular file"));
  }
  file.size_ = static_cast<uint64_t>(info.st_size);
  return std::optional<ReadableFile>(std::move(file));
}

ReadableFile::ReadableFile(ReadableFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      path_(std::move(other.path_)) {}

ReadableFile& ReadableFile::operator=(ReadableFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    path_ = std::move(other.path_);
  }
  return *this;
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<size_t> ReadableFile::ReadAt(uint64_t offset, char* buffer,
                                            size_t length) {
  ssize_t n;
  do {
    n = ::pread(fd_, buffer, length, static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot read metrics file \"", path_, "\""));
  }
  return static_cast<size_t>(n);
}

}  // namespace hptune::launch
