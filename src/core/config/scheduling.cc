#include "src/core/config/scheduling.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hptune/core/time.h"

namespace hptune::config_internal {
namespace {

// google.protobuf.Duration's range; the API carries the limits as Durations.
constexpr int64_t kMaxDurationSeconds = 315'576'000'000;

const FieldSet& SchedulingFields() {
  static const FieldSet* const kFields =
      new FieldSet{.accepted = {"maxRunningTime", "maxWaitTime", "priority"},
                   .unsupported = {},
                   .hints = {{"timeout", "maxRunningTime"}}};
  return *kFields;
}

std::optional<std::chrono::microseconds> ReadDuration(MapReader& reader,
                                                      std::string_view key) {
  const ConfigNode* node = reader.Find(key);
  if (node == nullptr) return std::nullopt;
  constexpr char kForm[] =
      "must be a duration in seconds ending in s, as AI Platform writes it "
      "(e.g. \"7200s\" or \"1.5s\"), got ";
  if (node->kind != ConfigNode::Kind::kString) {
    reader.Error(key, kForm + Describe(*node));
    return std::nullopt;
  }
  std::optional<std::chrono::microseconds> duration =
      ParseDurationSeconds(node->text);
  if (!duration) {
    reader.Error(key, kForm + Describe(*node));
    return std::nullopt;
  }
  if (*duration < std::chrono::seconds(1)) {
    reader.Error(key, "must be at least 1s, got " + Describe(*node));
    return std::nullopt;
  }
  if (*duration > std::chrono::seconds(kMaxDurationSeconds)) {
    reader.Error(key, "must be at most " + std::to_string(kMaxDurationSeconds) +
                          "s, got " + Describe(*node));
    return std::nullopt;
  }
  return duration;
}

}  // namespace

void ReadScheduling(MapReader& training_input, SchedulingSpec* scheduling) {
  const ConfigNode* node = training_input.Find("scheduling");
  if (node == nullptr) return;
  const std::string path = training_input.PathOf("scheduling");
  if (!ExpectMap(*node, path, training_input.sink())) return;
  MapReader reader(*node, path, SchedulingFields(), training_input.sink());
  scheduling->max_running_time = ReadDuration(reader, "maxRunningTime");
  scheduling->max_wait_time = ReadDuration(reader, "maxWaitTime");
  // 0 is AI Platform's default, so a config that spells it out still runs.
  if (auto priority = reader.Integer("priority", 0, 1000)) {
    if (*priority != 0) {
      reader.Error("priority",
                   "is not supported: hptune starts jobs in the order they "
                   "come (0, the default, is accepted); on Slurm give the "
                   "cluster's priority in slurm.options (e.g. --qos or "
                   "--nice), got " +
                       std::to_string(*priority));
    }
  }
}

}  // namespace hptune::config_internal
