// Readers of the metrics a training program reports while it runs.
//
// The job runner keeps readers of the master's reports (AI Platform reads
// the chief's) and calls ReadNew() as the trial runs; each new report
// becomes an intermediate measurement, stored as soon as it is seen. Two
// formats (docs/trainer.md, "Metrics"):
//  - the hypertune file at CLOUD_ML_HP_METRIC_FILE, rewritten whole by the
//    program on each report (cloudml-hypertune keeps the last 100 lines);
//  - Katib-style `name=value` lines on stdout, read from the replica's log.
// Both tolerate a half-written last line and a file that does not exist yet.
// Not thread-safe: a reader is used by one thread.
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
#include "hptune/env/env.h"

namespace hptune::launch {

// Where a reader is in a file it reads line by line across calls.
struct LineCursor {
  uint64_t offset = 0;  // Bytes consumed: up to the last complete line.
  // Inside a line longer than 64 KiB whose newline has not come yet: its
  // bytes are consumed as they come, so a huge unterminated line is neither
  // read again on every call nor its tail taken for a line.
  bool in_overlong_line = false;
};

// What one ReadNew() found.
struct MetricReads {
  // New reports, in file order (oldest first).
  std::vector<Measurement> measurements;
  // The first line (at most 256 bytes of it) whose value of the objective
  // metric is NaN, infinite or beyond a double's range: the trainer
  // diverged, and that value is no result. Not a measurement.
  std::optional<std::string> non_finite_objective;
  // Hypertune file only: new lines that are no report (not JSON, no valid
  // timestamp or global_step, longer than 64 KiB), and the last of them (at
  // most 256 bytes). Blank lines do not count.
  int64_t unreadable_lines = 0;
  std::string last_unreadable_line;
  // Hypertune file only: the first new report without a timestamp (at most
  // 256 bytes), which took the time it was read; "" when none.
  std::string first_untimed_report;
};

// Reads the hypertune file, returning only reports not returned before.
//
// A report is one line, a JSON object: "timestamp" (seconds since the epoch,
// a number) and "global_step" (a string or number holding a whole number
// >= 0; "0" or absent means 0) become Measurement.time (to the microsecond)
// and .step; every other key except "trial" and "checkpoint_path" is a
// metric whose value, a string like "0.987" (or a JSON number), is parsed as
// a double. A non-finite value of the objective `metric` ("nan", "inf",
// "1e400") makes the line MetricReads::non_finite_objective; other metric
// values that do not parse or are not finite are left out; a line with no
// metric left, an invalid timestamp or global_step, is not a report and is
// counted as unreadable. A line without "timestamp" is a report that takes
// the time it was read. A report is returned once, keyed by (timestamp,
// global_step): a rewritten file still holding old lines yields only the
// new ones, and a restarted program's new lines (new timestamps) are new;
// a report without a timestamp is keyed by its text, against the lines of
// the file when it was last read whole. Tolerated: a missing file (nothing
// yet), a last line without its newline (returned once complete), the file
// replaced by rename or truncated and rewritten in place (what is there is
// read). Every line is read, with bounded memory: a file of at most 4 MiB
// (cloudml-hypertune keeps 100 lines) is read whole on each call; a larger
// one, which only grows by appends, from where the last call stopped, unless
// its first line changed or it shrank (then from its start). The remembered
// keys are bounded.
class HypertuneFileReader {
 public:
  // Files are read through `env`.
  HypertuneFileReader(std::filesystem::path path, std::string metric, Env& env);
  // What appeared since the last call. An unreadable file (not a regular
  // file, no permission) is an error naming the path.
  absl::StatusOr<MetricReads> ReadNew();

 private:
  Env& env_;
  std::filesystem::path path_;
  std::string metric_;
  // Where the last call stopped, and the file's first line then (its first
  // 256 bytes): an appended file is read on from there.
  LineCursor cursor_;
  std::string first_line_;
  // Unreadable lines before this offset of the same file were counted.
  uint64_t counted_to_ = 0;
  // (timestamp, global_step) of every report already returned.
  std::set<std::pair<double, int64_t>> seen_;
  // The untimed reports of the file as last read whole, and of this read.
  std::set<std::string> untimed_seen_;
  std::set<std::string> untimed_now_;

  // Drops remembered keys that cannot come back (see the definition);
  // `oldest` is the earliest timestamp of this read.
  void ForgetOldKeys(std::optional<double> oldest, bool from_start);
  // Returns `measurement`, stamped now, unless its line was returned before.
  void TakeUntimed(std::string_view line, Measurement measurement,
                   MetricReads& reads);
};

// The value text of `metric` in a stdout line when the line has no finite
// value of it but names a number that is not finite ("nan", "inf",
// "-Infinity", "1e400"): the trainer diverged. nullopt otherwise.
std::optional<std::string_view> NonFiniteMetricValue(std::string_view line,
                                                     std::string_view metric);

// Parses one stdout line (without its newline) in Katib's format,
// `accuracy=0.9412 loss=0.17`, optionally preceded by an RFC 3339 timestamp
// (`2026-11-21T10:00:00.5+01:00 accuracy=0.9`). The exact rule:
//  - the line is split into tokens at whitespace and commas;
//  - a first token that is an RFC 3339 date-time is the measurement's time
//    (otherwise the time is left unset, Timestamp{}, for the caller to
//    stamp);
//  - a token `name=value` is a pair when name matches
//    [A-Za-z_][A-Za-z0-9_./-]* and all of value is a finite decimal number
//    (strtod syntax without hex; "nan", "inf" and out-of-range values do
//    not count); the last pair of a name wins;
//  - every other token is free text and ignored, so "Epoch 3: loss=0.2
//    accuracy=0.9" counts (as Katib's own regex finds pairs anywhere), while
//    "accuracy: 0.9", "accuracy = 0.9", "--accuracy=0.9" and
//    "accuracy=0.9;" carry no pair.
// Returns a measurement, with every pair as a metric, when `metric` is among
// the pairs (a `metric` outside the name pattern never matches). The step is
// the first of `global_step`, `step`, `epoch` whose value is a whole number
// >= 0, else `default_step`.
std::optional<Measurement> ParseMetricLine(std::string_view line,
                                           std::string_view metric,
                                           int64_t default_step);

// Tails a replica's log file for metric lines (ParseMetricLine).
//
// Only complete lines count: a last line without its newline waits for the
// next call. A trailing '\r' is dropped. Lines longer than 64 KiB are
// skipped without being held in memory. A missing file yields nothing yet; a
// file that shrinks (truncated or replaced) is read again from its start.
// A line whose `metric` value is not finite (NonFiniteMetricValue) is
// MetricReads::non_finite_objective. Log lines that carry no metric are the
// program's own output, not unreadable reports.
class StdoutMetricReader {
 public:
  // Files are read through `env`.
  StdoutMetricReader(std::filesystem::path log_path, std::string metric,
                     Env& env);
  // Measurements from complete lines appended since the last call, in file
  // order. A line without a step gets the ordinal of its line among all the
  // lines that carried the metric (1, 2, 3...). An unreadable file is an
  // error naming the path.
  absl::StatusOr<MetricReads> ReadNew();
  // The log was cut (Env::CapLog) since the last call: what was read stays
  // read, and reading goes on after the cut, from the next line's start.
  void SkipCut(const LogCut& cut);

 private:
  Env& env_;
  std::filesystem::path path_;
  std::string metric_;
  LineCursor cursor_;
  int64_t lines_with_metric_ = 0;
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_METRICS_H_
