// StdoutMetricReader (include/hptune/launch/metrics.h): tails a replica's
// log for Katib-style metric lines.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "hptune/core/status.h"
#include "hptune/launch/metrics.h"
#include "src/launch/metrics/readable_file.h"

namespace hptune::launch {
StdoutMetricReader::StdoutMetricReader(std::filesystem::path log_path,
                                       std::string metric, Env& env)
    : env_(env), path_(std::move(log_path)), metric_(std::move(metric)) {}

absl::StatusOr<MetricReads> StdoutMetricReader::ReadNew() {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          OpenMetricsFile(env_, path_));
  MetricReads reads;
  if (file == nullptr) return reads;
  if (file->size() < cursor_.offset) cursor_ = LineCursor{};
  HPTUNE_RETURN_IF_ERROR(ReadCompleteLines(
      *file, cursor_, [&](uint64_t, std::optional<std::string_view> line) {
        if (!line) return;
        if (NonFiniteMetricValue(*line, metric_)) {
          if (!reads.non_finite_objective) {
            reads.non_finite_objective = LineExcerpt(*line);
          }
          return;
        }
        if (std::optional<Measurement> m =
                ParseMetricLine(*line, metric_, lines_with_metric_ + 1)) {
          ++lines_with_metric_;
          reads.measurements.push_back(std::move(*m));
        }
      }));
  return reads;
}

void StdoutMetricReader::SkipCut(const LogCut& cut) {
  if (cut.length <= 0) return;
  const uint64_t line_start =
      static_cast<uint64_t>(cut.head - kLogCutLineBytes);
  const uint64_t end = static_cast<uint64_t>(cut.offset + cut.length);
  if (cursor_.offset >= end) {
    // What follows the range moved up by it; a punched one stays in place.
    if (cut.collapsed) cursor_.offset -= static_cast<uint64_t>(cut.length);
  } else if (cursor_.offset >= line_start) {
    // Inside what is gone: resume after it, where a line may be half cut.
    cursor_ = LineCursor{
        .offset = cut.collapsed ? static_cast<uint64_t>(cut.head) : end,
        .in_overlong_line = true};
  }
}

}  // namespace hptune::launch
