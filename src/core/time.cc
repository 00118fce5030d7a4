#include "hptune/core/time.h"

#include <cstdio>
#include <ctime>

namespace hptune {

std::string FormatRfc3339(Timestamp t) {
  int64_t micros = ToUnixMicros(t);
  int64_t seconds = micros / 1'000'000;
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {  // Floor division for times before the epoch.
    fraction += 1'000'000;
    --seconds;
  }
  std::time_t tt = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<long long>(fraction));
  return buffer;
}

std::optional<std::chrono::microseconds> ParseDurationSeconds(
    std::string_view text) {
  if (text.size() < 2 || text.back() != 's') return std::nullopt;
  text.remove_suffix(1);
  const size_t point = text.find('.');
  std::string_view whole = text.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? "" : text.substr(point + 1);
  if (whole.empty() || whole.size() > 12) return std::nullopt;
  if (point != std::string_view::npos &&
      (fraction.empty() || fraction.size() > 9)) {
    return std::nullopt;
  }
  int64_t seconds = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  int64_t micros = 0;
  for (size_t i = 0; i < fraction.size(); ++i) {
    const char c = fraction[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (i < 6) micros = micros * 10 + (c - '0');
  }
  for (size_t i = fraction.size(); i < 6; ++i) micros *= 10;
  return std::chrono::microseconds(seconds * 1'000'000 + micros);
}

std::string FormatDurationSeconds(std::chrono::microseconds duration) {
  const int64_t micros = duration.count();
  std::string text = std::to_string(micros / 1'000'000);
  if (int64_t fraction = micros % 1'000'000; fraction != 0) {
    char digits[8];
    std::snprintf(digits, sizeof(digits), "%06lld",
                  static_cast<long long>(fraction < 0 ? -fraction : fraction));
    std::string trimmed = digits;
    trimmed.erase(trimmed.find_last_not_of('0') + 1);
    text += "." + trimmed;
  }
  return text + "s";
}

}  // namespace hptune
