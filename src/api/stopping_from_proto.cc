// EarlyStoppingSettings::stopping_settings read from a StudySpec message
// (stopping_from_proto.h).
#include "src/api/stopping_from_proto.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "hptune/core/stopping_settings.h"

namespace hptune::api::proto_internal {
namespace {

// A rule setting's value as the config reader keeps it
// (src/core/config/stopping_block.cc): an integral number, or a decimal
// string, is an int64; the rule's factory decodes and checks it.
std::optional<StoppingSettingValue> ReadSettingValue(
    const google::protobuf::Value& value, const std::string& path,
    ProtoErrors& errors) {
  switch (value.kind_case()) {
    case google::protobuf::Value::kBoolValue:
      return value.bool_value();
    case google::protobuf::Value::kNumberValue: {
      const double x = value.number_value();
      if (!std::isfinite(x)) {
        errors.Add(path, "must be a number, got " + DescribeNumber(x));
        return std::nullopt;
      }
      const double whole = std::floor(x);
      if (whole == x && std::abs(whole) < 9.2e18) {
        return static_cast<int64_t>(whole);
      }
      return x;
    }
    case google::protobuf::Value::kStringValue: {
      const std::string& text = value.string_value();
      int64_t parsed = 0;
      auto [end, ec] =
          std::from_chars(text.data(), text.data() + text.size(), parsed);
      if (!text.empty() && ec == std::errc() &&
          end == text.data() + text.size()) {
        return parsed;
      }
      return text;
    }
    case google::protobuf::Value::kStructValue:
      errors.Add(path,
                 "expected a number, true or false, or a string, got a "
                 "mapping");
      return std::nullopt;
    case google::protobuf::Value::kListValue:
      errors.Add(path,
                 "expected a number, true or false, or a string, got a list");
      return std::nullopt;
    default:
      errors.Add(path,
                 "expected a number, true or false, or a string, got null "
                 "(an empty value)");
      return std::nullopt;
  }
}

// convexStopping (the convex rule's block, its fields in the message's
// order) or earlyStoppingSettings (the study's rule's, by name in sorted
// order, since a Struct's map has none), as the config reader fills
// EarlyStoppingSettings::stopping_settings.
}  // namespace

void ReadStoppingSettings(const v1::StudySpec& proto, const std::string& path,
                          ProtoErrors& errors, StudySpec& spec) {
  if (proto.has_convex_stopping()) {
    const v1::ConvexStoppingSettings& in = proto.convex_stopping();
    StoppingSettings convex{.rule = kConvexStoppingRule};
    if (in.has_max_step_count()) {
      convex.Set("maxStepCount", in.max_step_count());
    }
    if (in.has_min_step_count()) {
      convex.Set("minStepCount", in.min_step_count());
    }
    if (in.has_min_measurement_count()) {
      convex.Set("minMeasurementCount",
                 static_cast<int64_t>(in.min_measurement_count()));
    }
    spec.stopping_settings = std::move(convex);
  }
  if (!proto.has_early_stopping_settings()) return;
  const auto& fields = proto.early_stopping_settings().fields();
  if (fields.empty()) return;
  const std::string block = JoinPath(path, kStoppingSettingsField);
  if (!spec.stopping_settings.empty()) {
    errors.Add(block, std::string("give ") + kConvexStoppingField + " or " +
                          kStoppingSettingsField + ", not both");
    return;
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : fields) names.push_back(name);
  std::sort(names.begin(), names.end());
  StoppingSettings settings;
  for (const std::string& name : names) {
    if (auto value =
            ReadSettingValue(fields.at(name), JoinPath(block, name), errors)) {
      settings.Set(name, *std::move(value));
    }
  }
  if (!settings.empty()) spec.stopping_settings = std::move(settings);
}

}  // namespace hptune::api::proto_internal
