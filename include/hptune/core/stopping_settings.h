// StoppingSettings: the settings block of a study's early-stopping rule, a
// small map from a setting's name ("maxStepCount") to a typed value, kept in
// the order it was written.
//
// Core knows no rule and no setting: the config reader fills the block from
// `earlyStoppingSettings:` (or `convexStopping:`, the convex rule's own
// block, which Vertex's convexAutomatedStoppingSpec becomes) without knowing
// its names, and the rule's factory (hptune/algorithms/stopping_registry.h)
// decodes and checks it. Used by StudySpec, config reading and writing, wire
// conversion, the stopping rules and their registry. A value type, not
// thread-safe: copy it to share it.
#ifndef HPTUNE_CORE_STOPPING_SETTINGS_H_
#define HPTUNE_CORE_STOPPING_SETTINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hptune {

// A setting's value as written: an integral number (or an int64 in proto3
// JSON's decimal string) is an int64_t, another number a double.
using StoppingSettingValue = std::variant<int64_t, double, bool, std::string>;

// The config keys of a settings block: the convex rule's own (its settings
// as Vertex names them), and the block of whichever rule the study names.
inline constexpr char kConvexStoppingField[] = "convexStopping";
inline constexpr char kStoppingSettingsField[] = "earlyStoppingSettings";
// The rule kConvexStoppingField's block is for.
inline constexpr char kConvexStoppingRule[] = "convex";

struct StoppingSettings {
  // The rule the block was written for: kConvexStoppingRule for
  // convexStopping; empty for earlyStoppingSettings, the study's own rule's.
  std::string rule;
  // Names are unique; in the order written.
  std::vector<std::pair<std::string, StoppingSettingValue>> values;

  bool empty() const { return values.empty(); }
  // The value of `name`, or nullptr.
  const StoppingSettingValue* Find(std::string_view name) const {
    for (const auto& [key, value] : values) {
      if (key == name) return &value;
    }
    return nullptr;
  }
  // Sets `name`: in its place when it is there, else last.
  void Set(std::string name, StoppingSettingValue value) {
    for (auto& [key, old] : values) {
      if (key == name) {
        old = std::move(value);
        return;
      }
    }
    values.emplace_back(std::move(name), std::move(value));
  }
  // The config key the block is written under.
  std::string_view Field() const {
    return rule == kConvexStoppingRule ? kConvexStoppingField
                                       : kStoppingSettingsField;
  }
  bool operator==(const StoppingSettings&) const = default;
};

}  // namespace hptune

#endif  // HPTUNE_CORE_STOPPING_SETTINGS_H_
