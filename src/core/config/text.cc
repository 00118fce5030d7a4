// Text helpers for config and validation messages.
#include "src/core/config/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hptune::config_internal {
namespace {

std::string Normalize(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

// Optimal string alignment distance: Levenshtein plus adjacent swaps, the
// commonest typos.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string PositionField(int line, int column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, ptr);
}

std::optional<std::string> Suggest(std::string_view input,
                                   const std::vector<std::string>& candidates) {
  const std::string normalized = Normalize(input);
  // About one typo per three characters, between one and three: close
  // enough to be a slip, far enough not to suggest unrelated names.
  const size_t limit = std::clamp<size_t>(normalized.size() / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    if (candidate == input) continue;
    const size_t distance = EditDistance(normalized, Normalize(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view input,
                       const std::vector<std::string>& candidates) {
  std::optional<std::string> suggestion = Suggest(input, candidates);
  return suggestion ? " (did you mean " + *suggestion + "?)" : "";
}

std::string JoinWords(const std::vector<std::string>& words,
                      std::string_view last) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? std::string(last) : ", ";
    out += words[i];
  }
  return out;
}

}  // namespace hptune::config_internal
