// HypertuneFileReader (include/hptune/launch/metrics.h): the file that
// cloudml-hypertune rewrites on every report (docs/trainer.md, "Metrics").
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

// cloudml-hypertune keeps 100 lines; reading more than this means the file
// is not its (or a line is absurdly long), and only its end matters.
constexpr uint64_t kMaxBytesRead = 4 << 20;
// Keys remembered beyond those of the current file; see Forget below.
constexpr size_t kMaxRemembered = 10000;
// Timestamps outside [0, 1e11) s (year 5138) are not a clock's.
constexpr double kMaxTimestampSeconds = 1e11;

// A report parsed from one line.
struct Report {
  double timestamp = 0;
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

std::optional<Report> ParseReport(std::string_view line) {
  nlohmann::json json = nlohmann::json::parse(line, /*cb=*/nullptr,
                                              /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  auto timestamp = json.find("timestamp");
  if (timestamp == json.end() || !timestamp->is_number()) return std::nullopt;
  Report report;
  report.timestamp = timestamp->get<double>();
  if (!(report.timestamp >= 0 && report.timestamp < kMaxTimestampSeconds)) {
    return std::nullopt;
  }
  report.measurement.time =
      FromUnixMicros(std::llround(report.timestamp * 1e6));
  if (auto step = json.find("global_step"); step != json.end()) {
    std::optional<double> value = FiniteNumber(*step);
    // Doubles hold whole numbers exactly up to 2^53.
    if (!value || *value < 0 || *value > 9007199254740992.0 ||
        *value != std::floor(*value)) {
      return std::nullopt;
    }
    report.measurement.step = static_cast<int64_t>(*value);
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
  if (report.measurement.metrics.empty()) return std::nullopt;
  return report;
}

}  // namespace

HypertuneFileReader::HypertuneFileReader(std::filesystem::path path)
    : path_(std::move(path)) {}

absl::StatusOr<std::vector<Measurement>> HypertuneFileReader::ReadNew() {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<ReadableFile> file,
                          ReadableFile::Open(path_));
  if (!file) return std::vector<Measurement>();
  const uint64_t start =
      file->size() > kMaxBytesRead ? file->size() - kMaxBytesRead : 0;
  std::string text(file->size() - start, '\0');
  size_t length = 0;
  while (length < text.size()) {
    HPTUNE_ASSIGN_OR_RETURN(size_t n,
                            file->ReadAt(start + length, text.data() + length,
                                         text.size() - length));
    if (n == 0) break;  // Truncated since it was opened.
    length += n;
  }
  text.resize(length);

  std::vector<Measurement> fresh;
  std::optional<double> oldest;  // The earliest timestamp in the file.
  std::string_view rest = text;
  // Reading from the middle, the first line is a fragment.
  if (start > 0) {
    size_t newline = rest.find('\n');
    rest.remove_prefix(newline == std::string_view::npos ? rest.size()
                                                         : newline + 1);
  }
  // Only lines with their newline: the text after the last one is torn.
  for (size_t newline; (newline = rest.find('\n')) != std::string_view::npos;
       rest.remove_prefix(newline + 1)) {
    std::optional<Report> report = ParseReport(rest.substr(0, newline));
    if (!report) continue;
    if (!oldest || report->timestamp < *oldest) oldest = report->timestamp;
    if (seen_.emplace(report->timestamp, report->measurement.step).second) {
      fresh.push_back(std::move(report->measurement));
    }
  }
  // Forget: keys older than every line now in the file cannot come back
  // (cloudml-hypertune only drops its oldest lines), so past a bound they
  // go, oldest first. A file being rewritten in place is written from its
  // first (oldest) line, so even a partial read sees that line.
  while (oldest && seen_.size() > kMaxRemembered &&
         seen_.begin()->first < *oldest) {
    seen_.erase(seen_.begin());
  }
  return fresh;
}

}  // namespace hptune::launch
