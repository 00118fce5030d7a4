#include "src/core/config/stopping_block.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "hptune/core/stopping_settings.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

// A rule setting's value, kept as written for the rule's factory to decode:
// an integral number, or a decimal string (proto3 JSON's int64), is an int64.
std::optional<StoppingSettingValue> ReadSettingValue(const ConfigNode& node,
                                                     const std::string& path,
                                                     ErrorSink& sink) {
  using Kind = ConfigNode::Kind;
  if (node.kind == Kind::kBool) return node.boolean;
  if (node.kind == Kind::kNumber) {
    if (!std::isfinite(node.number)) {
      ReadNumber(node, path, sink);  // Reports it.
      return std::nullopt;
    }
    const double whole = std::floor(node.number);
    if (whole == node.number && std::abs(whole) < 9.2e18) {
      return static_cast<int64_t>(whole);
    }
    return node.number;
  }
  if (node.kind == Kind::kString) {
    int64_t parsed = 0;
    const std::string& text = node.text;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (!text.empty() && ec == std::errc() && end == text.data() + text.size())
      return parsed;
    return text;
  }
  sink.Add(
      node, path,
      "expected a number, true or false, or a string, got " + Describe(node));
  return std::nullopt;
}

}  // namespace

void ReadStoppingSettings(MapReader& reader, std::string_view key,
                          std::string_view rule, StudySpec& spec) {
  const ConfigNode* node = reader.Find(key);
  const std::string path = reader.PathOf(key);
  if (node == nullptr || !ExpectMap(*node, path, reader.sink())) return;
  if (!spec.stopping_settings.empty()) {
    reader.Error(key, "give " + std::string(kConvexStoppingField) + " or " +
                          kStoppingSettingsField + ", not both");
    return;
  }
  StoppingSettings settings{.rule = std::string(rule)};
  for (const ConfigField& field : node->fields) {
    const std::string field_path = JoinPath(path, field.key);
    if (settings.Find(field.key) != nullptr) {
      reader.sink().Add(field.value, field_path, "duplicate field");
      continue;
    }
    std::optional<StoppingSettingValue> value =
        ReadSettingValue(field.value, field_path, reader.sink());
    if (value) settings.Set(field.key, *std::move(value));
  }
  if (!settings.empty()) spec.stopping_settings = std::move(settings);
}

}  // namespace hptune::config_internal
