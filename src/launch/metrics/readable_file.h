// The metric readers' access to files: opening a metrics file or log
// through Env (hptune/env/env.h), and ReadCompleteLines over it, for the
// readers, which poll files that other processes write.
//
// A missing file is not an error (the program has not written it yet); any
// other failure is, with the path and the system's reason. Not thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_
#define HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/metrics.h"

namespace hptune::launch {

// The file at `path` as Env::OpenForReading opens it, named "metrics
// file" in errors; nullptr when it does not exist.
absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenMetricsFile(
    Env& env, const std::filesystem::path& path);

inline constexpr size_t kMaxLineBytes = 64 * 1024;

// Reads the complete lines of `file` from `cursor` up to the size the file
// had when it was opened, 64 KiB at a time, holding at most one line:
// calls `on_line(offset, line)` for each, without its newline and a
// trailing '\r', or with nullopt for a line longer than kMaxLineBytes.
// Bounded memory, whatever the file's size. A last line without its newline
// waits for the next call.
[[nodiscard]] absl::Status ReadCompleteLines(
    RandomAccessFile& file, LineCursor& cursor,
    const std::function<void(uint64_t offset,
                             std::optional<std::string_view> line)>& on_line);

// The first 256 bytes of a line a reader could not use, as its event shows
// the line.
std::string LineExcerpt(std::string_view line);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_METRICS_READABLE_FILE_H_
