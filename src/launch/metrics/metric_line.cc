// ParseMetricLine (include/hptune/launch/metrics.h): Katib-style stdout
// metric lines.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "hptune/launch/metrics.h"
#include "src/launch/metrics/rfc3339.h"

namespace hptune::launch {
namespace {

bool IsSeparator(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f' || c == ',';
}

// [A-Za-z_][A-Za-z0-9_./-]*
bool IsMetricName(std::string_view name) {
  if (name.empty()) return false;
  auto letter = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  if (!letter(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '/' &&
        c != '-') {
      return false;
    }
  }
  return true;
}

// The whole of `text` as a finite decimal number ("0.94", "-1e-3", "+2").
std::optional<double> ParseFiniteNumber(std::string_view text) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty() || text[0] == '+') return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value, std::chars_format::general);
  if (error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// A step value: a whole number in [0, 2^53] (doubles are exact up to there).
std::optional<int64_t> AsStep(double value) {
  if (value < 0 || value > 9007199254740992.0 || value != std::floor(value)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

// Calls fn with each token of `line`: split at whitespace and commas.
template <typename Fn>
void ForEachToken(std::string_view line, Fn fn) {
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && IsSeparator(line[pos])) ++pos;
    size_t end = pos;
    while (end < line.size() && !IsSeparator(line[end])) ++end;
    if (end == pos) break;
    fn(line.substr(pos, end - pos));
    pos = end;
  }
}

// Calls fn(name, value) with each token `name=value` whose name is a metric
// name; the value is not checked.
template <typename Fn>
void ForEachPair(std::string_view line, Fn fn) {
  ForEachToken(line, [&](std::string_view token) {
    const size_t equals = token.find('=');
    if (equals == std::string_view::npos) return;
    std::string_view name = token.substr(0, equals);
    if (IsMetricName(name)) fn(name, token.substr(equals + 1));
  });
}

}  // namespace

std::optional<Measurement> ParseMetricLine(std::string_view line,
                                           std::string_view metric,
                                           int64_t default_step) {
  Measurement m;
  bool first_token = true;
  ForEachToken(line, [&](std::string_view token) {
    if (!first_token) return;
    first_token = false;
    if (std::optional<Timestamp> time = ParseRfc3339(token)) m.time = *time;
  });
  ForEachPair(line, [&](std::string_view name, std::string_view value) {
    if (std::optional<double> number = ParseFiniteNumber(value)) {
      m.metrics[std::string(name)] = *number;
    }
  });
  if (!m.metrics.contains(std::string(metric))) return std::nullopt;
  m.step = default_step;
  for (const char* key : {"global_step", "step", "epoch"}) {
    auto it = m.metrics.find(key);
    if (it == m.metrics.end()) continue;
    if (std::optional<int64_t> step = AsStep(it->second)) {
      m.step = *step;
      break;
    }
  }
  return m;
}

std::optional<std::string_view> NonFiniteMetricValue(std::string_view line,
                                                     std::string_view metric) {
  std::optional<std::string_view> found;
  bool finite = false;
  ForEachPair(line, [&](std::string_view name, std::string_view value) {
    if (name != metric) return;
    if (ParseFiniteNumber(value)) {
      finite = true;
      return;
    }
    std::string_view digits = value;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      digits.remove_prefix(1);
    }
    double parsed = 0;
    auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), parsed,
                        std::chars_format::general);
    const bool names_a_number =
        end == digits.data() + digits.size() &&
        (error == std::errc::result_out_of_range || !std::isfinite(parsed));
    if (names_a_number && !found) found = value;
  });
  // As in ParseMetricLine, a finite pair of the name is the line's value.
  if (finite) return std::nullopt;
  return found;
}

}  // namespace hptune::launch
