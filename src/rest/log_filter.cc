#include "src/rest/log_filter.h"

#include <regex>

#include "absl/strings/str_cat.h"

namespace hptune::rest {
namespace {

std::optional<std::string> Find(std::string_view filter,
                                const std::regex& pattern, int group = 1) {
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(filter.begin(), filter.end(), match, pattern)) {
    return std::nullopt;
  }
  return match[group].str();
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
  static const std::regex kJob(R"re(resource\.labels\.job_id="([^"]*)")re");
  static const std::regex kTask(R"re(resource\.labels\.task_name="([^"]*)")re");
  static const std::regex kFrom(R"re(timestamp>="([^"]*)")re");
  static const std::regex kAfterId(
      R"re(\(timestamp="([^"]*)" AND insertId>"([^"]*)"\))re");
  static const std::regex kBefore(R"re(timestamp<"([^"]*)")re");
  LogFilter parsed;
  std::optional<std::string> job = Find(filter, kJob);
  if (!job || job->empty()) {
    return absl::InvalidArgumentError(
        "filter: hptune serves the logs of one job: give "
        "resource.labels.job_id=\"ID\"");
  }
  parsed.job_id = *job;
  parsed.task_name = Find(filter, kTask).value_or("");
  if (std::optional<std::string> from = Find(filter, kFrom)) {
    auto time = ParseTimestamp(*from);
    if (!time.ok()) return time.status();
    parsed.from = *time;
  } else if (std::optional<std::string> at = Find(filter, kAfterId)) {
    auto time = ParseTimestamp(*at);
    if (!time.ok()) return time.status();
    parsed.from = *time;
    parsed.after_insert_id = Find(filter, kAfterId, 2);
  }
  if (std::optional<std::string> before = Find(filter, kBefore)) {
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
