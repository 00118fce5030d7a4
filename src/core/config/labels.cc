#include "src/core/config/labels.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/config/text.h"

namespace hptune {
namespace {

// Google Cloud's limits on labels (cloud.google.com/resource-manager/docs/
// labels-overview#requirements).
constexpr size_t kMaxLabels = 64;
constexpr size_t kMaxLabelLength = 63;

bool IsLabelCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool IsLabelText(std::string_view text) {
  if (text.size() > kMaxLabelLength) return false;
  for (char c : text) {
    if (!IsLabelCharacter(c)) return false;
  }
  return true;
}

bool IsLabelKey(std::string_view key) {
  return !key.empty() && key[0] >= 'a' && key[0] <= 'z' && IsLabelText(key);
}

void CheckKey(const std::string& key, const std::string& field,
              std::vector<FieldError>* errors) {
  if (IsLabelKey(key)) return;
  errors->push_back({field, "key " + config_internal::Quote(key) +
                                " must be 1 to 63 characters, a lowercase "
                                "letter followed by lowercase letters, "
                                "digits, '_' and '-'"});
}

// The errors of one label, without the count limit.
void CheckLabel(const std::string& key, const std::string& value,
                const std::string& field, std::vector<FieldError>* errors) {
  using config_internal::Quote;
  CheckKey(key, field, errors);
  if (!IsLabelText(value)) {
    errors->push_back({field, "value " + Quote(value) + " of key " +
                                  Quote(key) +
                                  " must be at most 63 characters of lowercase "
                                  "letters, digits, '_' and '-'"});
  }
}

}  // namespace

std::vector<FieldError> ValidateJobLabels(const JobLabels& labels,
                                          std::string_view field) {
  std::vector<FieldError> errors;
  const std::string name(field);
  if (labels.size() > kMaxLabels) {
    errors.push_back({name, "at most " + std::to_string(kMaxLabels) +
                                " labels, got " +
                                std::to_string(labels.size())});
  }
  for (const auto& [key, value] : labels) CheckLabel(key, value, name, &errors);
  return errors;
}

std::vector<FieldError> ValidateJobLabelKeys(
    const std::vector<std::string>& keys, std::string_view field) {
  std::vector<FieldError> errors;
  for (const std::string& key : keys)
    CheckKey(key, std::string(field), &errors);
  return errors;
}

namespace config_internal {

void ReadLabels(MapReader& root, JobLabels* labels) {
  const ConfigNode* node = root.Find("labels");
  if (node == nullptr) return;
  const std::string path = root.PathOf("labels");
  ErrorSink& sink = root.sink();
  if (!ExpectMap(*node, path, sink)) return;
  for (const ConfigField& label : node->fields) {
    // A key past the limit is named by its start (CheckKey quotes it).
    const std::string field =
        path + "." +
        (label.key.size() > kMaxLabelLength
             ? label.key.substr(0, kMaxLabelLength) + "..."
             : label.key);
    std::optional<std::string> value = ReadString(label.value, field, sink);
    if (!value) continue;
    if (labels->contains(label.key)) {
      sink.Add(label.value, field, "duplicate label, got " + Quote(*value));
      continue;
    }
    std::vector<FieldError> errors;
    CheckLabel(label.key, *value, field, &errors);
    for (FieldError& error : errors) {
      sink.Add(label.value, std::move(error.field), std::move(error.message));
    }
    labels->emplace(label.key, *std::move(value));
  }
  if (labels->size() > kMaxLabels) {
    sink.Add(*node, path,
             "at most " + std::to_string(kMaxLabels) + " labels, got " +
                 std::to_string(labels->size()));
  }
}

}  // namespace config_internal
}  // namespace hptune
