#include "src/launch/metrics/readable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::launch {

absl::StatusOr<std::optional<ReadableFile>> ReadableFile::Open(
    const std::filesystem::path& path) {
  int fd;
  do {
    // A trainer's link to a file it may not read is not followed.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
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
  // A hard link made by a trainer to a file it may not read is not read.
  if (info.st_nlink > 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("metrics file \"", path.string(), "\" has other links"));
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

absl::Status ReadCompleteLines(
    ReadableFile& file, LineCursor& cursor,
    const std::function<void(uint64_t offset,
                             std::optional<std::string_view> line)>& on_line) {
  constexpr size_t kChunkBytes = 64 * 1024;
  // The current line's bytes so far (at most kMaxLineBytes + 1 of them);
  // cursor.offset stays at the line's start unless it is over-long.
  std::string line;
  uint64_t line_start = cursor.offset;
  bool overlong = cursor.in_overlong_line;
  std::vector<char> chunk(kChunkBytes);
  uint64_t pos = cursor.offset;
  // Stops at the size seen on opening, so a program writing fast cannot
  // keep this call reading.
  while (pos < file.size()) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(chunk.size(), file.size() - pos));
    HPTUNE_ASSIGN_OR_RETURN(size_t n, file.ReadAt(pos, chunk.data(), want));
    if (n == 0) break;  // Truncated since it was opened.
    std::string_view data(chunk.data(), n);
    while (!data.empty()) {
      const size_t newline = data.find('\n');
      std::string_view piece = data.substr(0, newline);
      if (!overlong) {
        line.append(piece.substr(0, kMaxLineBytes + 1 - line.size()));
        if (line.size() > kMaxLineBytes) {
          overlong = true;
          line.clear();
        }
      }
      if (newline == std::string_view::npos) {
        pos += data.size();
        if (overlong) cursor.offset = pos;
        break;
      }
      pos += newline + 1;
      data.remove_prefix(newline + 1);
      cursor.offset = pos;
      if (overlong) {
        on_line(line_start, std::nullopt);
      } else {
        std::string_view text = line;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        on_line(line_start, text);
      }
      line.clear();
      overlong = false;
      line_start = pos;
    }
  }
  cursor.in_overlong_line = overlong;
  return absl::OkStatus();
}

}  // namespace hptune::launch
