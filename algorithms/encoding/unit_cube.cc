#include "algorithms/encoding/unit_cube.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

// Every integer with magnitude up to 2^53 is an exact double.
constexpr double kMaxExactInteger = 9007199254740992.0;

// A continuous range under a scale; the unit of every numeric encoding.
struct ScaledRange {
  double lo;
  double hi;
  ScaleType scale;
};

bool IsLogScale(ScaleType scale) {
  return scale == ScaleType::kLog || scale == ScaleType::kReverseLog;
}

// x in [lo, hi] -> u in [0, 1] (formulas in the header). The ends map
// exactly, so bounds survive a round trip even where log/exp round.
double ToUnit(const ScaledRange& r, double x) {
  if (r.hi == r.lo) return 0.5;  // A single DISCRETE value: the centre.
  if (x <= r.lo) return 0.0;
  if (x >= r.hi) return 1.0;
  double u;
  switch (r.scale) {
    case ScaleType::kLog:
      u = (std::log(x) - std::log(r.lo)) / (std::log(r.hi) - std::log(r.lo));
      break;
    case ScaleType::kReverseLog:
      u = 1.0 - (std::log(r.hi + r.lo - x) - std::log(r.lo)) /
                    (std::log(r.hi) - std::log(r.lo));
      break;
    case ScaleType::kNone:
    case ScaleType::kLinear:
    default:
      u = (x - r.lo) / (r.hi - r.lo);
      break;
  }
  return std::clamp(u, 0.0, 1.0);
}

// u in [0, 1] -> x in [lo, hi], the inverse of ToUnit. Monotone: each
// formula is, and the clamps and exact ends keep it so under rounding.
double FromUnit(const ScaledRange& r, double u) {
  if (!(u > 0.0)) return r.lo;  // Also NaN.
  if (u >= 1.0) return r.hi;
  double x;
  switch (r.scale) {
    case ScaleType::kLog:
      x = std::exp(std::log(r.lo) + u * (std::log(r.hi) - std::log(r.lo)));
      break;
    case ScaleType::kReverseLog:
      x = r.hi + r.lo -
          std::exp(std::log(r.lo) +
                   (1.0 - u) * (std::log(r.hi) - std::log(r.lo)));
      break;
    case ScaleType::kNone:
    case ScaleType::kLinear:
    default:
      x = r.lo + u * (r.hi - r.lo);
      break;
  }
  return std::clamp(x, r.lo, r.hi);
}

ScaledRange DoubleRange(const ParameterSpec& spec) {
  return {spec.min_value, spec.max_value, spec.scale};
}

// Integer k owns [k - 1/2, k + 1/2): see the header.
ScaledRange IntegerRange(const ParameterSpec& spec) {
  return {spec.min_value - 0.5, spec.max_value + 0.5, spec.scale};
}

ScaledRange DiscreteRange(const ParameterSpec& spec) {
  return {spec.discrete_values.front(), spec.discrete_values.back(),
          spec.scale};
}

// u clamped to [0, 1] -> an index in [0, n): [i / n, (i + 1) / n) -> i.
size_t IndexFromUnit(double u, size_t n) {
  if (!(u > 0.0)) return 0;
  auto i = static_cast<size_t>(std::floor(u * static_cast<double>(n)));
  return std::min(i, n - 1);
}

// The DISCRETE value whose image is nearest to u; on a tie the smaller.
// Binary search, because the GP's acquisition optimiser decodes many points.
double NearestDiscrete(const ParameterSpec& spec, double u) {
  const auto& values = spec.discrete_values;
  const ScaledRange range = DiscreteRange(spec);
  size_t lo = 0;
  size_t hi = values.size();  // First index whose image is >= u.
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ToUnit(range, values[mid]) < u) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == values.size()) return values.back();
  if (lo == 0) return values.front();
  double above = ToUnit(range, values[lo]) - u;
  double below = u - ToUnit(range, values[lo - 1]);
  return below <= above ? values[lo - 1] : values[lo];
}

absl::Status ValidateSpec(const ParameterSpec& spec) {
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter \"", spec.name, "\": ", what));
  };
  const bool log =
      IsLogScale(spec.scale) && spec.type != ParameterType::kCategorical;
  switch (spec.type) {
    case ParameterType::kDouble:
      if (!std::isfinite(spec.min_value) || !std::isfinite(spec.max_value) ||
          !(spec.min_value < spec.max_value)) {
        return error(
            absl::StrCat("DOUBLE needs finite minValue < maxValue, "
                         "got [",
                         spec.min_value, ", ", spec.max_value, "]"));
      }
      break;
    case ParameterType::kInteger:
      for (double bound : {spec.min_value, spec.max_value}) {
        if (!std::isfinite(bound) || std::floor(bound) != bound ||
            std::fabs(bound) > kMaxExactInteger) {
          return error(absl::StrCat(
              "INTEGER bounds must be integers within +-2^53, got ", bound));
        }
      }
      if (spec.min_value > spec.max_value) {
        return error(absl::StrCat("INTEGER needs minValue <= maxValue, got [",
                                  spec.min_value, ", ", spec.max_value, "]"));
      }
      break;
    case ParameterType::kDiscrete: {
      const auto& values = spec.discrete_values;
      if (values.empty()) return error("DISCRETE needs at least one value");
      for (size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
          return error(
              absl::StrCat("discreteValues must be finite, got ", values[i]));
        }
        if (i > 0 && !(values[i - 1] < values[i])) {
          return error(
              absl::StrCat("discreteValues must be strictly increasing, got ",
                           values[i - 1], " before ", values[i]));
        }
      }
      break;
    }
    case ParameterType::kCategorical: {
      const auto& values = spec.categorical_values;
      if (values.empty()) return error("CATEGORICAL needs at least one value");
      std::set<std::string> seen;
      for (const auto& v : values) {
        if (!seen.insert(v).second) {
          return error(absl::StrCat("categorical value \"", v,
                                    "\" appears more than once"));
        }
      }
      break;
    }
  }
  if (log) {
    double min = spec.type == ParameterType::kDiscrete
                     ? spec.discrete_values.front()
                     : spec.min_value;
    if (!(min > 0)) {
      return error(absl::StrCat(std::string(ToString(spec.scale)),
                                " needs a strictly positive range, got "
                                "minimum ",
                                min));
    }
  }
  return absl::OkStatus();
}

absl::Status NotFeasible(const ParameterSpec& spec, const ParameterValue& value,
                         const char* why) {
  return absl::InvalidArgumentError(absl::StrCat("parameter \"", spec.name,
                                                 "\": cannot encode ",
                                                 value.ToString(), ": ", why));
}

}  // namespace

absl::Status ValidateForEncoding(const SearchSpace& space) {
  std::set<std::string> names;
  for (const auto& spec : space.parameters()) {
    if (!names.insert(spec.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name, "\" appears more than once"));
    }
    HPTUNE_RETURN_IF_ERROR(ValidateSpec(spec));
    // Decoding walks the parameters in order, so a parent must come first.
    if (spec.condition) {
      const std::string& parent = spec.condition->parent;
      const ParameterSpec* parent_spec = space.Find(parent);
      if (parent_spec == nullptr || !names.contains(parent) ||
          parent == spec.name) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter \"", spec.name, "\" needs its parent \"",
                         parent, "\" before it"));
      }
      if (parent_spec->type == ParameterType::kDouble) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter \"", spec.name, "\": its parent \"", parent,
                         "\" is DOUBLE, which cannot be a parent"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> Encode(const ParameterSpec& spec,
                              const ParameterValue& value) {
  switch (spec.type) {
    case ParameterType::kDouble: {
      if (value.is_string()) return NotFeasible(spec, value, "not a number");
      double x = value.AsDouble();
      if (!(x >= spec.min_value && x <= spec.max_value)) {
        return NotFeasible(spec, value, "outside [minValue, maxValue]");
      }
      return ToUnit(DoubleRange(spec), x);
    }
    case ParameterType::kInteger: {
      if (!value.is_integer()) {
        return NotFeasible(spec, value, "INTEGER needs an integer value");
      }
      auto x = static_cast<double>(value.AsInteger());
      if (!(x >= spec.min_value && x <= spec.max_value)) {
        return NotFeasible(spec, value, "outside [minValue, maxValue]");
      }
      return ToUnit(IntegerRange(spec), x);
    }
    case ParameterType::kDiscrete: {
      if (value.is_string()) return NotFeasible(spec, value, "not a number");
      double x = value.AsDouble();
      if (!std::binary_search(spec.discrete_values.begin(),
                              spec.discrete_values.end(), x)) {
        return NotFeasible(spec, value, "not one of its discreteValues");
      }
      return ToUnit(DiscreteRange(spec), x);
    }
    case ParameterType::kCategorical: {
      if (!value.is_string()) {
        return NotFeasible(spec, value, "CATEGORICAL needs a string value");
      }
      const auto& values = spec.categorical_values;
      auto it = std::find(values.begin(), values.end(), value.AsString());
      if (it == values.end()) {
        return NotFeasible(spec, value, "not one of its categoricalValues");
      }
      return (static_cast<double>(it - values.begin()) + 0.5) /
             static_cast<double>(values.size());
    }
  }
  return absl::InternalError("unknown parameter type");
}

ParameterValue Decode(const ParameterSpec& spec, double u) {
  switch (spec.type) {
    case ParameterType::kDouble:
      return ParameterValue::Double(FromUnit(DoubleRange(spec), u));
    case ParameterType::kInteger: {
      double x = std::floor(FromUnit(IntegerRange(spec), u) + 0.5);
      x = std::clamp(x, spec.min_value, spec.max_value);
      return ParameterValue::Integer(static_cast<int64_t>(x));
    }
    case ParameterType::kDiscrete:
      return ParameterValue::Double(NearestDiscrete(spec, u));
    case ParameterType::kCategorical:
      return ParameterValue::Categorical(spec.categorical_values[IndexFromUnit(
          u, spec.categorical_values.size())]);
  }
  HPTUNE_UNREACHABLE("Decode: unknown parameter type");
}

ParameterValue ValueFromUniform(const ParameterSpec& spec, double u) {
  if (spec.type == ParameterType::kDiscrete) {
    return ParameterValue::Double(
        spec.discrete_values[IndexFromUnit(u, spec.discrete_values.size())]);
  }
  return Decode(spec, u);
}

namespace {

// Whether parameter `spec` is active given the values already assigned to
// the parameters before it (its parent comes first: ValidateForEncoding).
bool ActiveGiven(const ParameterSpec& spec,
                 const ParameterAssignment& assignment) {
  if (!spec.condition) return true;
  auto parent = assignment.find(spec.condition->parent);
  return parent != assignment.end() && spec.condition->Matches(parent->second);
}

// Decodes coordinate i of `u` with `decode` for every parameter that the
// values decoded before it activate.
template <typename DecodeOne>
ParameterAssignment DecodeTree(const SearchSpace& space,
                               std::span<const double> u,
                               DecodeOne decode_one) {
  ParameterAssignment assignment;
  for (size_t i = 0; i < u.size(); ++i) {
    const auto& spec = space.parameters()[i];
    if (ActiveGiven(spec, assignment)) {
      assignment.emplace(spec.name, decode_one(spec, u[i]));
    }
  }
  return assignment;
}

}  // namespace

absl::StatusOr<std::vector<double>> EncodeAssignment(
    const SearchSpace& space, const ParameterAssignment& assignment) {
  std::vector<double> u;
  u.reserve(space.parameters().size());
  ParameterAssignment seen;
  for (const auto& spec : space.parameters()) {
    auto it = assignment.find(spec.name);
    const bool joined_later = spec.first_trial > 0 && it == assignment.end();
    if (joined_later || !ActiveGiven(spec, seen)) {
      if (it != assignment.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter \"", spec.name, "\" is not active, got ",
                         it->second.ToString()));
      }
      u.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    if (it == assignment.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name, "\" has no value"));
    }
    HPTUNE_ASSIGN_OR_RETURN(double coordinate, Encode(spec, it->second));
    u.push_back(coordinate);
    seen.emplace(spec.name, it->second);
  }
  return u;
}

ParameterAssignment DecodeAssignment(const SearchSpace& space,
                                     std::span<const double> u) {
  HPTUNE_CHECK(u.size() == space.parameters().size(),
               "DecodeAssignment: one coordinate per parameter expected");
  return DecodeTree(space, u, &Decode);
}

ParameterAssignment AssignmentFromUniform(const SearchSpace& space,
                                          std::span<const double> u) {
  HPTUNE_CHECK(u.size() == space.parameters().size(),
               "AssignmentFromUniform: one coordinate per parameter expected");
  return DecodeTree(space, u, &ValueFromUniform);
}

}  // namespace hptune::algorithms
