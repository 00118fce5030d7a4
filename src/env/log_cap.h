// The cap on a replica's log (Env::CapLog, include/hptune/env/env.h): which
// middle range of a log past its cap goes, the line that says so, and the
// POSIX call that cuts it while the replica keeps appending. Used by
// PosixEnv and its tests.
//
// Thread-safe: pure functions, and CapPosixLog uses only its own
// descriptor. Two calls on one log at once are not: the job runner makes
// them, one trial at a time.
#ifndef HPTUNE_SRC_ENV_LOG_CAP_H_
#define HPTUNE_SRC_ENV_LOG_CAP_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::internal {

// The bytes kept before a cut: the first quarter of the cap, in whole
// blocks, at least one.
int64_t LogHead(int64_t max_bytes, int64_t block);

// The range to remove from a log of `size` bytes whose data after the head
// resumes at `data_from` (the head, or the end of a hole punched before),
// or nullopt while head + (size - data_from) <= max_bytes. It starts at
// data_from and leaves the last max_bytes / 2 bytes, plus less than a
// block, since its length is whole blocks:
//   length = floor((size - data_from - max_bytes / 2) / block) * block.
struct LogCutRange {
  int64_t offset = 0;
  int64_t length = 0;
};
std::optional<LogCutRange> PlanLogCut(int64_t size, int64_t data_from,
                                      int64_t max_bytes, int64_t block);

// "\n[hptune: N bytes of this log removed here: --max-log-bytes C]", spaces,
// "\n": kLogCutLineBytes in all, so that a later cut rewrites it in place.
std::string LogCutLine(int64_t removed, int64_t max_bytes);
// N of a LogCutLine, or nullopt when `bytes` is none.
std::optional<int64_t> ParseLogCutLine(std::string_view bytes);

// Env::CapLog on the real file system: the file is opened as
// OpenRegularFile opens it (no link, no FIFO, no other hard links), and
// the range goes with fallocate(FALLOC_FL_COLLAPSE_RANGE) (ext4, xfs), else
// FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (tmpfs). FailedPrecondition
// when max_bytes is under 16 blocks; NotFound when there is no file.
absl::StatusOr<LogCut> CapPosixLog(const std::filesystem::path& path,
                                   int64_t max_bytes);

}  // namespace hptune::internal

#endif  // HPTUNE_SRC_ENV_LOG_CAP_H_
