// A measurement: metric values a trial reported at a training step.
//
// Produced by trainers (hypertune file, stdout lines, gRPC) and embedders
// (TuningEngine::AddMeasurement); consumed by designers and stopping policies.
// Value type; thread-compatible.
#ifndef HPTUNE_CORE_MEASUREMENT_H_
#define HPTUNE_CORE_MEASUREMENT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "hptune/core/time.h"

namespace hptune {

struct Measurement {
  int64_t step = 0;  // Training step (hypertune's global_step), >= 0.
  Timestamp time{};  // When it was reported.
  std::map<std::string, double> metrics;
  // The attempt of its trial that reported it (1, 2, ...: a re-run is a new
  // attempt); 0 when no runner ran the trial (an ask/tell client's report).
  int attempt = 0;

  // The value of `metric`, if this measurement has it.
  std::optional<double> Get(const std::string& metric) const;

  bool operator==(const Measurement&) const = default;
};

// Rejects what must never reach a designer: a negative step, an empty metric
// name, NaN or infinite values. The message names the metric and the value.
[[nodiscard]] absl::Status ValidateMeasurement(const Measurement& m);

}  // namespace hptune

#endif  // HPTUNE_CORE_MEASUREMENT_H_
