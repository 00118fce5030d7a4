#include "hptune/core/measurement.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace hptune {

std::optional<double> Measurement::Get(const std::string& metric) const {
  // The stopping rules call this for every point of every curve they judge,
  // and a measurement carries one or a few metrics: comparing for equality
  // (lengths first) beats the map's ordered three-way compares.
  if (metrics.size() <= 4) {
    for (const auto& [name, value] : metrics) {
      if (name == metric) return value;
    }
    return std::nullopt;
  }
  auto it = metrics.find(metric);
  if (it == metrics.end()) return std::nullopt;
  return it->second;
}

absl::Status ValidateMeasurement(const Measurement& m) {
  if (m.step < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("measurement step must be >= 0, got ", m.step));
  }
  for (const auto& [name, value] : m.metrics) {
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "measurement at step ", m.step, " has a metric with an empty name"));
    }
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric \"", name, "\" at step ", m.step,
                       " must be a finite number, got ", value));
    }
  }
  return absl::OkStatus();
}

}  // namespace hptune
