#include "algorithms/importance/parameter_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hptune/core/status.h"
#include "algorithms/encoding/unit_cube.h"

namespace hptune::algorithms {
namespace {

// ceil(log2(count)) + 1: Optuna's grid size for a log-scaled integer, one
// point per doubling, so small values do not get points no value can reach.
int LogIntegerPoints(uint64_t count) {
  int bits = 0;
  while (bits < 63 && (uint64_t{1} << bits) < count) ++bits;
  return bits + 1;
}

}  // namespace

ParameterGrid::ParameterGrid(const ParameterSpec& spec, int max_points)
    : spec_(spec), scaled_(spec) {
  switch (spec.type) {
    case ParameterType::kDouble:
      size_ = max_points;
      break;
    case ParameterType::kInteger: {
      const auto count =
          static_cast<uint64_t>(spec.max_value - spec.min_value) + 1;
      const bool log_scaled =
          spec.scale == ScaleType::kLog || spec.scale == ScaleType::kReverseLog;
      if (!log_scaled && count <= static_cast<uint64_t>(max_points)) {
        rule_ = Rule::kValueIndex;
        size_ = static_cast<int>(count);
        break;
      }
      size_ = log_scaled ? std::min(max_points, LogIntegerPoints(count))
                         : max_points;
      scaled_.type = ParameterType::kDouble;
      break;
    }
    case ParameterType::kDiscrete: {
      const auto count = static_cast<int64_t>(spec.discrete_values.size());
      if (count <= max_points) {
        rule_ = Rule::kValueIndex;
        size_ = static_cast<int>(count);
      } else {
        size_ = max_points;
      }
      break;
    }
    case ParameterType::kCategorical:
      rule_ = Rule::kCategory;
      size_ = static_cast<int>(spec.categorical_values.size());
      break;
  }
}

absl::StatusOr<int> ParameterGrid::PointOf(const ParameterValue& value) const {
  // Encode checks that the value is feasible and names it when not.
  HPTUNE_ASSIGN_OR_RETURN(double u, Encode(spec_, value));
  switch (rule_) {
    case Rule::kCategory:
      // Encode puts category i at the centre (i + 1/2) / n of its cell.
      return std::clamp(static_cast<int>(u * size_), 0, size_ - 1);
    case Rule::kValueIndex:
      if (spec_.type == ParameterType::kInteger) {
        return static_cast<int>(value.AsInteger() -
                                static_cast<int64_t>(spec_.min_value));
      } else {
        const auto& values = spec_.discrete_values;
        return static_cast<int>(
            std::lower_bound(values.begin(), values.end(), value.AsDouble()) -
            values.begin());
      }
    case Rule::kNearestPoint:
      break;
  }
  // A log-scaled INTEGER with one value: its DOUBLE twin has an empty range.
  if (size_ == 1) return 0;
  if (spec_.type == ParameterType::kInteger) {
    HPTUNE_ASSIGN_OR_RETURN(
        u, Encode(scaled_, ParameterValue::Double(value.AsDouble())));
  }
  // The nearest of the points k / (size - 1); a midpoint goes to the lower
  // one, as in Optuna.
  const double position = std::ceil(u * (size_ - 1) - 0.5);
  return std::clamp(static_cast<int>(position), 0, size_ - 1);
}

}  // namespace hptune::algorithms
