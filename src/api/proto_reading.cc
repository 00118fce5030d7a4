#include "src/api/proto_reading.h"

#include <google/protobuf/descriptor.h>

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

// The fields `message` sets, as its canonical JSON has them: each field and
// list item, under `path`. A map is one field (its keys are the user's).
void CollectSetFields(const google::protobuf::Message& message,
                      const std::string& path, std::set<std::string>& out) {
  using google::protobuf::FieldDescriptor;
  out.insert(path);
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string field_path = JoinPath(path, field->json_name());
    const bool nested = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
                        !field->is_map();
    out.insert(field_path);
    if (!field->is_repeated()) {
      if (nested) {
        CollectSetFields(reflection.GetMessage(message, field), field_path,
                         out);
      }
      continue;
    }
    if (field->is_map()) continue;
    for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
      const std::string item = IndexPath(field_path, i);
      if (nested) {
        CollectSetFields(reflection.GetRepeatedMessage(message, field, i), item,
                         out);
      } else {
        out.insert(item);
      }
    }
  }
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

void ProtoErrors::Add(std::string field, std::string message) {
  std::string place = field;
  errors_.push_back(
      {.error = {std::move(field), std::move(message)}, .place = place});
}

void ProtoErrors::AddMissing(std::string field, std::string message) {
  std::string place = field;
  errors_.push_back({.error = {std::move(field), std::move(message)},
                     .place = place,
                     .missing = true});
}

void ProtoErrors::AddAt(std::string anchor, std::string field,
                        std::string message) {
  errors_.push_back({.error = {std::move(field), std::move(message)},
                     .place = std::move(anchor)});
}

void ProtoErrors::PlaceRulesIn(const google::protobuf::Message& message,
                               const std::string& path) {
  root_ = path;
  CollectSetFields(message, path, set_fields_);
}

std::string ProtoErrors::PlaceOfRule(std::string field) const {
  // A field outside the message (the job ID) is told at itself.
  if (set_fields_.empty() || !field_text::IsUnderAny(field, {root_})) {
    return field;
  }
  while (!field.empty()) {
    if (set_fields_.contains(field)) return field;
    const size_t cut = field.find_last_of(".[");
    if (cut == std::string::npos) break;
    field.resize(cut);
  }
  return root_;
}

void ProtoErrors::AddRules(std::vector<FieldError> rules) {
  for (FieldError& error : rules) {
    if (field_text::IsUnderAny(error.field, reported_)) continue;
    const bool told = std::any_of(
        errors_.begin(), errors_.end(),
        [&error](const Entry& entry) { return entry.error == error; });
    if (told) continue;
    std::string place = PlaceOfRule(error.field);
    errors_.push_back({.error = std::move(error), .place = std::move(place)});
  }
}

absl::Status ProtoErrors::ToStatus() const {
  std::vector<std::pair<std::vector<PathStep>, const FieldError*>> keyed;
  for (const Entry& entry : errors_) {
    std::vector<PathStep> key = Steps(entry.place);
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
