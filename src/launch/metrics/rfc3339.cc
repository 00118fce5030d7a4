#include "src/launch/metrics/rfc3339.h"

#include <chrono>
#include <cstddef>

namespace hptune::launch {
namespace {

// Reads exactly `count` decimal digits at `pos`, advancing it.
std::optional<int> Digits(std::string_view text, size_t& pos, size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += count;
  return value;
}

bool Expect(std::string_view text, size_t& pos, char a, char b = '\0') {
  if (pos >= text.size()) return false;
  char c = text[pos];
  if (c != a && (b == '\0' || c != b)) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<Timestamp> ParseRfc3339(std::string_view text) {
  using std::chrono::hours;
  using std::chrono::microseconds;
  using std::chrono::minutes;
  using std::chrono::seconds;
  size_t pos = 0;
  std::optional<int> year = Digits(text, pos, 4);
  if (!year || !Expect(text, pos, '-')) return std::nullopt;
  std::optional<int> month = Digits(text, pos, 2);
  if (!month || !Expect(text, pos, '-')) return std::nullopt;
  std::optional<int> day = Digits(text, pos, 2);
  if (!day || !Expect(text, pos, 'T', 't')) return std::nullopt;
  std::optional<int> hour = Digits(text, pos, 2);
  if (!hour || !Expect(text, pos, ':')) return std::nullopt;
  std::optional<int> minute = Digits(text, pos, 2);
  if (!minute || !Expect(text, pos, ':')) return std::nullopt;
  std::optional<int> second = Digits(text, pos, 2);
  if (!second) return std::nullopt;
  const std::chrono::year_month_day date{
      std::chrono::year(*year),
      std::chrono::month(static_cast<unsigned>(*month)),
      std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  int64_t micros = 0;
  if (Expect(text, pos, '.')) {
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (size_t i = digits; i < 6; ++i) micros *= 10;
  }
  minutes offset{0};
  if (!Expect(text, pos, 'Z', 'z')) {
    if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) {
      return std::nullopt;
    }
    const bool negative = text[pos++] == '-';
    std::optional<int> offset_hours = Digits(text, pos, 2);
    if (!offset_hours || !Expect(text, pos, ':')) return std::nullopt;
    std::optional<int> offset_minutes = Digits(text, pos, 2);
    if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) {
      return std::nullopt;
    }
    offset = hours(*offset_hours) + minutes(*offset_minutes);
    if (negative) offset = -offset;
  }
  if (pos != text.size()) return std::nullopt;
  // Local time minus the offset is UTC.
  return Timestamp(std::chrono::sys_days(date)) + hours(*hour) +
         minutes(*minute) + seconds(*second) + microseconds(micros) - offset;
}

}  // namespace hptune::launch
