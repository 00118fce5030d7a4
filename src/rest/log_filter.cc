#include "src/rest/log_filter.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::rest {
namespace {

// The value quoted after the first `key` in `filter` (`key` ends with the
// opening quote); `rest` gets what follows the closing quote.
std::optional<std::string> QuotedAfter(std::string_view filter,
                                       std::string_view key,
                                       std::string_view* rest = nullptr) {
  const size_t at = filter.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t start = at + key.size();
  const size_t end = filter.find('"', start);
  if (end == std::string_view::npos) return std::nullopt;
  if (rest != nullptr) *rest = filter.substr(end + 1);
  return std::string(filter.substr(start, end - start));
}

// ((timestamp="T" AND insertId>"I") ...: T and I, when the filter has it.
std::optional<std::pair<std::string, std::string>> AfterInsertId(
    std::string_view filter) {
  std::string_view rest;
  std::optional<std::string> time = QuotedAfter(filter, "(timestamp=\"", &rest);
  if (!time || !rest.starts_with(" AND insertId>\"")) return std::nullopt;
  std::optional<std::string> id = QuotedAfter(rest, " AND insertId>\"", &rest);
  if (!id || !rest.starts_with(")")) return std::nullopt;
  return std::make_pair(*time, *id);
}

absl::StatusOr<absl::Time> ParseTimestamp(const std::string& text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &time, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter: timestamp \"", text, "\" is not RFC 3339"));
  }
  return time;
}

}  // namespace

bool LogFilter::Admits(absl::Time time, std::string_view insert_id) const {
  if (time >= before || time < from) return false;
  return time > from || !after_insert_id || insert_id > *after_insert_id;
}

absl::StatusOr<LogFilter> ParseLogFilter(std::string_view filter) {
  LogFilter parsed;
  std::optional<std::string> job =
      QuotedAfter(filter, "resource.labels.job_id=\"");
  if (!job || job->empty()) {
    return absl::InvalidArgumentError(
        "filter: hptune serves the logs of one job: give "
        "resource.labels.job_id=\"ID\"");
  }
  parsed.job_id = *job;
  parsed.task_name =
      QuotedAfter(filter, "resource.labels.task_name=\"").value_or("");
  if (std::optional<std::string> from = QuotedAfter(filter, "timestamp>=\"")) {
    auto time = ParseTimestamp(*from);
    if (!time.ok()) return time.status();
    parsed.from = *time;
  } else if (auto after = AfterInsertId(filter)) {
    auto time = ParseTimestamp(after->first);
    if (!time.ok()) return time.status();
    parsed.from = *time;
    parsed.after_insert_id = after->second;
  }
  if (std::optional<std::string> before = QuotedAfter(filter, "timestamp<\"")) {
    auto time = ParseTimestamp(*before);
    if (!time.ok()) return time.status();
    parsed.before = *time;
  }
  return parsed;
}

std::string LogTimestamp(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E9SZ", time, absl::UTCTimeZone());
}

}  // namespace hptune::rest
