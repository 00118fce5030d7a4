// The POSIX side of Env's descriptors and appended files
// (include/hptune/env/env.h): poll(2), read(2) and write(2) on what hptune
// opened itself, and the files it appends to.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/env/posix_files.h"
#include "src/env/scoped_fd.h"

namespace hptune::internal {
namespace {

// poll(2)'s timeout: milliseconds, rounded up so a short wait still waits;
// -1 for none.
int PollMilliseconds(std::optional<std::chrono::steady_clock::time_point> end) {
  if (!end) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(
      *end - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(left.count(), 0));
}

class PosixAppendFile : public AppendFile {
 public:
  PosixAppendFile(std::filesystem::path path, ScopedFd fd)
      : path_(std::move(path)), fd_(std::move(fd)) {}

  absl::Status Append(std::string_view data) override {
    absl::Status written = WritePosix(fd_.get(), data);
    if (written.ok()) return written;
    return absl::Status(written.code(),
                        absl::StrCat("cannot append to \"", path_.string(),
                                     "\": ", written.message()));
  }

 private:
  const std::filesystem::path path_;
  const ScopedFd fd_;
};

}  // namespace

absl::StatusOr<std::vector<int>> PollPosixReadable(
    std::span<const int> fds,
    std::optional<std::chrono::microseconds> timeout) {
  std::vector<pollfd> polled;
  polled.reserve(fds.size());
  for (int fd : fds) polled.push_back({.fd = fd, .events = POLLIN});
  std::optional<std::chrono::steady_clock::time_point> end;
  if (timeout) end = std::chrono::steady_clock::now() + *timeout;
  int ready;
  while ((ready = ::poll(polled.data(), polled.size(), PollMilliseconds(end))) <
         0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "poll");
  }
  std::vector<int> readable;
  for (const pollfd& p : polled) {
    if (p.revents != 0) readable.push_back(p.fd);
  }
  return readable;
}

absl::StatusOr<size_t> ReadPosixSome(int fd, std::span<char> buffer) {
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "read");
  }
}

absl::Status WritePosix(int fd, std::string_view data) {
  while (true) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n == static_cast<ssize_t>(data.size())) return absl::OkStatus();
    if (n >= 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("write: ", n, " of ", data.size(), " bytes written"));
    }
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "write");
  }
}

absl::StatusOr<std::unique_ptr<AppendFile>> OpenPosixForAppending(
    const std::filesystem::path& path, int mode) {
  ScopedFd fd(::open(path.c_str(),
                     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                     static_cast<mode_t>(mode)));
  if (!fd.valid()) {
    const int err = errno;
    return absl::ErrnoToStatus(
        err, absl::StrCat("cannot open \"", path.string(), "\""));
  }
  return std::make_unique<PosixAppendFile>(path, std::move(fd));
}

}  // namespace hptune::internal
