#include "src/env/log_cap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/env/scoped_fd.h"

namespace hptune::internal {
namespace {

constexpr char kLinePrefix[] = "\n[hptune: ";
constexpr char kLineMiddle[] = " bytes of this log removed here: ";

absl::Status LogError(std::string_view what, const std::filesystem::path& path,
                      int err) {
  return absl::ErrnoToStatus(
      err, absl::StrCat(std::string(what), " log \"", path.string(), "\""));
}

// Where data resumes at or after `head`: the end of a hole punched before.
int64_t DataFrom(int fd, int64_t head, int64_t size) {
  const off_t data = ::lseek(fd, head, SEEK_DATA);
  if (data >= 0) return std::clamp<int64_t>(data, head, size);
  return errno == ENXIO ? size : head;  // Else holes cannot be told.
}

// Removes `range` (what lies between head and it too, a hole), by collapse
// where the file system can and by a punched hole where it cannot.
absl::Status Cut(int fd, const std::filesystem::path& path, LogCutRange range,
                 LogCut& cut) {
  const int64_t collapse = range.offset + range.length - cut.head;
  if (::fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, cut.head, collapse) == 0) {
    cut.offset = cut.head;
    cut.length = collapse;
    cut.collapsed = true;
    return absl::OkStatus();
  }
  const int collapse_error = errno;
  if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, range.offset,
                  range.length) != 0) {
    return LogError(
        absl::StrCat("cannot collapse (", std::strerror(collapse_error),
                     ") nor punch a hole in"),
        path, errno);
  }
  cut.offset = range.offset;
  cut.length = range.length;
  cut.collapsed = false;
  return absl::OkStatus();
}

}  // namespace

int64_t LogHead(int64_t max_bytes, int64_t block) {
  return std::max(block, max_bytes / 4 / block * block);
}

std::optional<LogCutRange> PlanLogCut(int64_t size, int64_t data_from,
                                      int64_t max_bytes, int64_t block) {
  const int64_t head = LogHead(max_bytes, block);
  if (head + (size - data_from) <= max_bytes) return std::nullopt;
  const int64_t length = (size - data_from - max_bytes / 2) / block * block;
  if (length <= 0) return std::nullopt;
  return LogCutRange{.offset = data_from, .length = length};
}

std::string LogCutLine(int64_t removed, int64_t max_bytes) {
  std::string line = absl::StrCat(kLinePrefix, removed, kLineMiddle,
                                  "--max-log-bytes ", max_bytes, "]");
  line.resize(kLogCutLineBytes - 1, ' ');
  line += '\n';
  return line;
}

std::optional<int64_t> ParseLogCutLine(std::string_view bytes) {
  const std::string_view prefix = kLinePrefix;
  if (!bytes.starts_with(prefix)) return std::nullopt;
  bytes.remove_prefix(prefix.size());
  const size_t end = bytes.find(kLineMiddle);
  int64_t removed = 0;
  if (end == std::string_view::npos ||
      !absl::SimpleAtoi(std::string(bytes.substr(0, end)), &removed) ||
      removed < 0) {
    return std::nullopt;
  }
  return removed;
}

absl::StatusOr<LogCut> CapPosixLog(const std::filesystem::path& path,
                                   int64_t max_bytes) {
  HPTUNE_ASSIGN_OR_RETURN(const int fd, OpenRegularFile(path, O_RDWR, "log"));
  const ScopedFd closer(fd);
  struct stat info;
  struct statfs fs;
  if (::fstat(fd, &info) != 0 || ::fstatfs(fd, &fs) != 0) {
    return LogError("cannot stat", path, errno);
  }
  const int64_t block = fs.f_bsize > 0 ? fs.f_bsize : 4096;
  if (max_bytes < 16 * block) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a log cap of ", max_bytes, " bytes is under 16 blocks (", block,
        " bytes each) of the file system of \"", path.string(), "\""));
  }
  LogCut cut{.head = LogHead(max_bytes, block)};
  const int64_t size = info.st_size;
  if (size <= max_bytes) return cut;  // The common case: one fstat.
  const int64_t data_from = DataFrom(fd, cut.head, size);
  const std::optional<LogCutRange> range =
      PlanLogCut(size, data_from, max_bytes, block);
  if (!range) return cut;
  // The count so far, from the line an earlier cut (maybe an earlier
  // runner's) left; a first cut also loses the bytes the line overwrites.
  std::string line(kLogCutLineBytes, '\0');
  const off_t line_at = cut.head - kLogCutLineBytes;
  const bool read = ::pread(fd, line.data(), line.size(), line_at) ==
                    static_cast<ssize_t>(line.size());
  const std::optional<int64_t> before =
      read ? ParseLogCutLine(line) : std::nullopt;
  HPTUNE_RETURN_IF_ERROR(Cut(fd, path, *range, cut));
  cut.removed_in_all =
      before.value_or(kLogCutLineBytes + data_from - cut.head) + range->length;
  line = LogCutLine(cut.removed_in_all, max_bytes);
  if (::pwrite(fd, line.data(), line.size(), line_at) !=
      static_cast<ssize_t>(line.size())) {
    return LogError("cannot write the cut's line in", path, errno);
  }
  return cut;
}

}  // namespace hptune::internal
