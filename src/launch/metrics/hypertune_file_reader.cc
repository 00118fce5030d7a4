// HypertuneFileReader (include/hptune/launch/metrics.h): the file that
// cloudml-hypertune rewrites on every report (docs/trainer.md, "Metrics").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "hptune/core/status.h"
#include "hptune/launch/metrics.h"
#include "nlohmann/json.hpp"
#include "src/launch/metrics/readable_file.h"

namespace hptune::launch {
namespace {

// cloudml-hypertune keeps 100 lines: a file up to this size is read whole
// on each call (it is rewritten in place); a larger one only grows.
constexpr uint64_t kWholeFileBytes = 4 << 20;
// Keys remembered beyond those of the current file; see Forget below.
constexpr size_t kMaxRemembered = 10000;
// Timestamps outside [0, 1e11) s (year 5138) are not a clock's.
constexpr double kMaxTimestampSeconds = 1e11;
// How much of the first line tells a rewritten file from an appended one,
// and of an offending line an event shows.
constexpr size_t kExcerptBytes = 256;

// What one line is.
struct Report {
  enum class Kind { kReport, kNotAReport, kNonFiniteObjective };
  Kind kind = Kind::kNotAReport;
  // Unset for a line without "timestamp": it takes the time it was read.
  std::optional<double> timestamp;
  Measurement measurement;
};

std::optional<double> ParseDouble(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value, std::chars_format::general);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// A finite number from a JSON number or a string holding one.
std::optional<double> FiniteNumber(const nlohmann::json& value) {
  std::optional<double> number;
  if (value.is_number()) {
    number = value.get<double>();
  } else if (value.is_string()) {
    number = ParseDouble(value.get_ref<const std::string&>());
  }
  if (number && !std::isfinite(*number)) return std::nullopt;
  return number;
}

// A string naming a number that is not finite: "nan", "inf", "-Infinity",
// "1e400" (JSON numbers are finite by the grammar).
bool NamesANonFiniteNumber(const nlohmann::json& value) {
  if (!value.is_string()) return false;
  std::string_view text = value.get_ref<const std::string&>();
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  double number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      number, std::chars_format::general);
  return end == text.data() + text.size() &&
         (error == std::errc::result_out_of_range || !std::isfinite(number));
}

Report ParseReport(std::string_view line, const std::string& metric) {
  Report report;
  nlohmann::json json = nlohmann::json::parse(line, /*cb=*/nullptr,
                                              /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return report;
  if (auto timestamp = json.find("timestamp"); timestamp != json.end()) {
    // A timestamp that is there must be a clock's: a wrong one is no report.
    if (!timestamp->is_number()) return report;
    const double seconds = timestamp->get<double>();
    if (!(seconds >= 0 && seconds < kMaxTimestampSeconds)) return report;
    report.timestamp = seconds;
    report.measurement.time = FromUnixMicros(std::llround(seconds * 1e6));
  }
  if (auto step = json.find("global_step"); step != json.end()) {
    std::optional<double> value = FiniteNumber(*step);
    // Doubles hold whole numbers exactly up to 2^53.
    if (!value || *value < 0 || *value > 9007199254740992.0 ||
        *value != std::floor(*value)) {
      return report;
    }
    report.measurement.step = static_cast<int64_t>(*value);
  }
  if (auto objective = json.find(metric);
      objective != json.end() && NamesANonFiniteNumber(*objective)) {
    report.kind = Report::Kind::kNonFiniteObjective;
    return report;
  }
  for (const auto& [key, value] : json.items()) {
    if (key.empty() || key == "timestamp" || key == "global_step" ||
        key == "trial" || key == "checkpoint_path") {
      continue;
    }
    if (std::optional<double> number = FiniteNumber(value)) {
      report.measurement.metrics[key] = *number;
    }
  }
  if (!report.measurement.metrics.empty()) report.kind = Report::Kind::kReport;
  return report;
}

}  // namespace

HypertuneFileReader::HypertuneFileReader(std::filesystem::path path,
                                         std::string metric, Env& env)
    : env_(env), path_(std::move(path)), metric_(std::move(metric)) {}

absl::StatusOr<MetricReads> HypertuneFileReader::ReadNew() {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          OpenMetricsFile(env_, path_));
  MetricReads reads;
  if (file == nullptr) return reads;

  // An appended file is read on from the cursor; anything else from its
  // start. A first line that changed is another file (or cloudml-hypertune
  // dropped its oldest line): its unreadable lines are new too.
  std::string first(std::min<uint64_t>(first_line_.size(), file->size()), '\0');
  HPTUNE_ASSIGN_OR_RETURN(size_t got,
                          file->ReadAt(0, first.data(), first.size()));
  first.resize(got);
  const bool same_file = cursor_.offset > 0 && first == first_line_;
  if (!same_file || file->size() < cursor_.offset) counted_to_ = 0;
  if (!same_file || file->size() < cursor_.offset ||
      file->size() <= kWholeFileBytes) {
    cursor_ = LineCursor{};
  }

  const bool from_start = cursor_.offset == 0;
  // Lines read from the cursor are read once; only a file read whole again
  // shows an untimed line a second time.
  if (!from_start) untimed_seen_.clear();
  untimed_now_.clear();
  std::optional<double> oldest;  // The earliest timestamp read.
  HPTUNE_RETURN_IF_ERROR(ReadCompleteLines(
      *file, cursor_,
      [&](uint64_t offset, std::optional<std::string_view> line) {
        if (offset == 0 && line) {
          first_line_ = std::string(line->substr(0, kExcerptBytes));
          if (line->size() < kExcerptBytes) first_line_ += '\n';
        }
        const bool new_line = offset >= counted_to_;
        if (!line || line->find_first_not_of(" \t\r") == line->npos) {
          if (line || !new_line) return;
          ++reads.unreadable_lines;
          reads.last_unreadable_line = "(a line longer than 64 KiB)";
          return;
        }
        Report report = ParseReport(*line, metric_);
        switch (report.kind) {
          case Report::Kind::kNotAReport:
            if (new_line) {
              ++reads.unreadable_lines;
              reads.last_unreadable_line = LineExcerpt(*line);
            }
            return;
          case Report::Kind::kNonFiniteObjective:
            if (!reads.non_finite_objective) {
              reads.non_finite_objective = LineExcerpt(*line);
            }
            return;
          case Report::Kind::kReport:
            break;
        }
        if (!report.timestamp) {
          TakeUntimed(*line, std::move(report.measurement), reads);
          return;
        }
        if (!oldest || *report.timestamp < *oldest) oldest = report.timestamp;
        if (seen_.emplace(*report.timestamp, report.measurement.step).second) {
          reads.measurements.push_back(std::move(report.measurement));
        }
      }));
  counted_to_ = std::max(counted_to_, cursor_.offset);
  untimed_seen_ = std::move(untimed_now_);
  ForgetOldKeys(oldest, from_start);
  return reads;
}

void HypertuneFileReader::ForgetOldKeys(std::optional<double> oldest,
                                        bool from_start) {
  // Forget: keys older than every line now in the file cannot come back
  // (cloudml-hypertune only drops its oldest lines), so past a bound they
  // go, oldest first. A file being rewritten in place is written from its
  // first (oldest) line, so even a partial read sees that line. A file read
  // on from the cursor holds older lines that are not read again.
  while (oldest && from_start && seen_.size() > kMaxRemembered &&
         seen_.begin()->first < *oldest) {
    seen_.erase(seen_.begin());
  }
  while (!from_start && seen_.size() > kMaxRemembered) {
    seen_.erase(seen_.begin());
  }
}

void HypertuneFileReader::TakeUntimed(std::string_view line,
                                      Measurement measurement,
                                      MetricReads& reads) {
  std::string key(line);
  if (!untimed_now_.insert(key).second) return;  // Twice in this file.
  if (untimed_seen_.contains(key)) return;       // Returned before.
  measurement.time = env_.Now();
  if (reads.first_untimed_report.empty()) {
    reads.first_untimed_report = LineExcerpt(line);
  }
  reads.measurements.push_back(std::move(measurement));
}

}  // namespace hptune::launch
