// ReadableFile: a regular file opened for reading by offset, and
// ReadCompleteLines over it, for the metric readers, which poll files that
// other processes write.
//
// A missing file is not an error (the program has not written it yet); any
// other failure is, with the path and the system's reason. Not thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_
#define HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/launch/metrics.h"

namespace hptune::launch {

class ReadableFile {
 public:
  // nullopt when `path` does not exist; FailedPrecondition when it is not a
  // regular file; the errno's code (e.g. PermissionDenied) when it cannot be
  // opened. Messages name the path.
  static absl::StatusOr<std::optional<ReadableFile>> Open(
      const std::filesystem::path& path);

  ReadableFile(ReadableFile&& other) noexcept;
  ReadableFile& operator=(ReadableFile&& other) noexcept;
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;
  ~ReadableFile();

  // The size when it was opened.
  uint64_t size() const { return size_; }

  // Reads up to `length` bytes at `offset` into `buffer`; fewer at the end
  // of the file, 0 past it.
  absl::StatusOr<size_t> ReadAt(uint64_t offset, char* buffer, size_t length);

 private:
  ReadableFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}

  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

inline constexpr size_t kMaxLineBytes = 64 * 1024;

// Reads the complete lines of `file` from `cursor` up to the size the file
// had when it was opened, 64 KiB at a time, holding at most one line:
// calls `on_line(offset, line)` for each, without its newline and a
// trailing '\r', or with nullopt for a line longer than kMaxLineBytes.
// Bounded memory, whatever the file's size. A last line without its newline
// waits for the next call.
[[nodiscard]] absl::Status ReadCompleteLines(
    ReadableFile& file, LineCursor& cursor,
    const std::function<void(uint64_t offset,
                             std::optional<std::string_view> line)>& on_line);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_
