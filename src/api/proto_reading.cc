#include "src/api/proto_reading.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <variant>

namespace hptune::api::proto_internal {
namespace {

// Sorts after every key and index.
struct End {
  auto operator<=>(const End&) const = default;
};
// One step of a field path: a key or a list index.
using PathStep = std::variant<std::string, size_t, End>;

std::vector<PathStep> Steps(const std::string& path) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      const size_t end = path.find(']', i);
      size_t index = 0;
      std::from_chars(path.data() + i + 1, path.data() + end, index);
      steps.emplace_back(index);
      i = end == std::string::npos ? path.size() : end + 1;
    } else {
      const size_t end = path.find_first_of(".[", i);
      steps.emplace_back(path.substr(i, end - i));
      i = end == std::string::npos ? path.size() : end;
    }
  }
  return steps;
}

}  // namespace

std::string DescribeNumber(double value) {
  if (std::isnan(value)) return Quote("NaN");
  if (std::isinf(value)) return Quote(value > 0 ? "Infinity" : "-Infinity");
  if (value == 0) return "0";
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, ptr);
}

std::string UnknownEnum(int value) {
  const std::string text = std::to_string(value);
  return "must be a string, got " + text + " (quote it: " + Quote(text) + ")";
}

std::string MustBeOneOf(const std::vector<std::string>& allowed,
                        std::string_view got) {
  std::string out = "must be one of ";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += ", ";
    out += allowed[i];
  }
  return out + ", got " + Quote(got);
}

void ProtoErrors::Add(std::string field, std::string message) {
  errors_.push_back({.error = {std::move(field), std::move(message)}});
}

void ProtoErrors::AddMissing(std::string field, std::string message) {
  errors_.push_back(
      {.error = {std::move(field), std::move(message)}, .missing = true});
}

void ProtoErrors::AddRules(std::vector<FieldError> rules) {
  for (FieldError& error : rules) {
    if (!field_text::IsUnderAny(error.field, reported_))
      Add(error.field, error.message);
  }
}

absl::Status ProtoErrors::ToStatus() const {
  std::vector<std::pair<std::vector<PathStep>, const FieldError*>> keyed;
  for (const Entry& entry : errors_) {
    std::vector<PathStep> key = Steps(entry.error.field);
    if (entry.missing && !key.empty()) key.back() = End{};
    keyed.emplace_back(std::move(key), &entry.error);
  }
  std::stable_sort(
      keyed.begin(), keyed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<FieldError> sorted;
  for (const auto& [key, error] : keyed) sorted.push_back(*error);
  return FieldErrorsToStatus(sorted);
}

}  // namespace hptune::api::proto_internal
