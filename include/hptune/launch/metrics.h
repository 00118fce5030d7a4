// Readers of the metrics a training program reports while it runs.
//
// The job runner keeps one reader per replica and calls ReadNew() as it polls
// the trial; each new report becomes an intermediate measurement, stored as
// soon as it is seen. Two formats (CONTRACTS.md section 3):
//  - the hypertune file at CLOUD_ML_HP_METRIC_FILE, rewritten whole by the
//    program on each report (cloudml-hypertune keeps the last 100 lines);
//  - Katib-style `name=value` lines on stdout, read from the replica's log.
// Both tolerate a half-written last line and a file that does not exist yet.
// Not thread-safe: one reader per replica, used by one thread.
#ifndef HPTUNE_LAUNCH_METRICS_H_
#define HPTUNE_LAUNCH_METRICS_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/measurement.h"

namespace hptune::launch {

// Reads the hypertune file, returning only reports not returned before.
class HypertuneFileReader {
 public:
  explicit HypertuneFileReader(std::filesystem::path path);
  // Reports that appeared since the last call, oldest first. A missing file,
  // a torn last line or a line that is not a hypertune report yields nothing
  // for that line; an unreadable file is an error.
  absl::StatusOr<std::vector<Measurement>> ReadNew();

 private:
  std::filesystem::path path_;
  // (timestamp, global_step) of every report already returned.
  std::set<std::pair<double, int64_t>> seen_;
};

// Parses one stdout line: optional RFC3339 timestamp, then `name=value`
// pairs separated by spaces or commas. Returns a measurement when `metric`
// is among them with a finite number; every numeric pair is kept. A
// `global_step=`, `step=` or `epoch=` pair gives the step, else
// `default_step`.
std::optional<Measurement> ParseMetricLine(std::string_view line,
                                           std::string_view metric,
                                           int64_t default_step);

// Tails a replica's log file for metric lines.
class StdoutMetricReader {
 public:
  StdoutMetricReader(std::filesystem::path log_path, std::string metric);
  // Measurements from complete lines appended since the last call. Lines
  // without a step are numbered 1, 2, 3... in the order they were seen.
  absl::StatusOr<std::vector<Measurement>> ReadNew();

 private:
  std::filesystem::path path_;
  std::string metric_;
  uintmax_t offset_ = 0;  // Bytes consumed: up to the last complete line.
  int64_t lines_with_metric_ = 0;
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_METRICS_H_
