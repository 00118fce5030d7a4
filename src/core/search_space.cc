#include "hptune/core/search_space.h"

#include <array>
#include <charconv>
#include <cmath>
#include <iostream>
#include <set>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"

namespace hptune {
namespace {

struct TypeName {
  ParameterType type;
  std::string_view name;
};
constexpr std::array<TypeName, 4> kTypeNames = {{
    {ParameterType::kDouble, "DOUBLE"},
    {ParameterType::kInteger, "INTEGER"},
    {ParameterType::kDiscrete, "DISCRETE"},
    {ParameterType::kCategorical, "CATEGORICAL"},
}};

struct ScaleName {
  ScaleType scale;
  std::string_view name;
};
constexpr std::array<ScaleName, 4> kScaleNames = {{
    {ScaleType::kNone, "NONE"},
    {ScaleType::kLinear, "UNIT_LINEAR_SCALE"},
    {ScaleType::kLog, "UNIT_LOG_SCALE"},
    {ScaleType::kReverseLog, "UNIT_REVERSE_LOG_SCALE"},
}};

}  // namespace

std::string_view ToString(ParameterType type) {
  for (const auto& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return "UNKNOWN";
}

std::optional<ParameterType> ParseParameterType(std::string_view text) {
  for (const auto& t : kTypeNames) {
    if (t.name == text) return t.type;
  }
  return std::nullopt;
}

std::string_view ToString(ScaleType scale) {
  for (const auto& s : kScaleNames) {
    if (s.scale == scale) return s.name;
  }
  return "UNKNOWN";
}

std::optional<ScaleType> ParseScaleType(std::string_view text) {
  for (const auto& s : kScaleNames) {
    if (s.name == text) return s.scale;
  }
  return std::nullopt;
}

std::optional<int64_t> ParameterSpec::Cardinality() const {
  switch (type) {
    case ParameterType::kDouble:
      return std::nullopt;
    case ParameterType::kInteger:
      return static_cast<int64_t>(max_value) - static_cast<int64_t>(min_value) +
             1;
    case ParameterType::kDiscrete:
      return static_cast<int64_t>(discrete_values.size());
    case ParameterType::kCategorical:
      return static_cast<int64_t>(categorical_values.size());
  }
  return std::nullopt;
}

double ParameterValue::AsDouble() const {
  if (const auto* d = std::get_if<double>(&value_)) return *d;
  if (const auto* i = std::get_if<int64_t>(&value_)) {
    return static_cast<double>(*i);
  }
  HPTUNE_UNREACHABLE("ParameterValue::AsDouble on a categorical value");
}

int64_t ParameterValue::AsInteger() const {
  if (const auto* i = std::get_if<int64_t>(&value_)) return *i;
  HPTUNE_UNREACHABLE("ParameterValue::AsInteger on a non-integer value");
}

const std::string& ParameterValue::AsString() const {
  if (const auto* s = std::get_if<std::string>(&value_)) return *s;
  HPTUNE_UNREACHABLE("ParameterValue::AsString on a numeric value");
}

std::string ParameterValue::ToString() const {
  if (const auto* s = std::get_if<std::string>(&value_)) return *s;
  if (const auto* i = std::get_if<int64_t>(&value_)) return std::to_string(*i);
  // Shortest text that parses back to the same double: full precision
  // without printing noise digits.
  std::array<char, 64> buffer;
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                              std::get<double>(value_));
  return std::string(buffer.data(), result.ptr);
}

const ParameterSpec* SearchSpace::Find(std::string_view name) const {
  for (const auto& p : parameters_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

namespace {

absl::Status CheckValue(const ParameterSpec& spec, const ParameterValue& v) {
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "parameter \"", spec.name, "\": ", what, ", got ", v.ToString()));
  };
  switch (spec.type) {
    case ParameterType::kDouble: {
      if (!v.is_double()) return error("DOUBLE needs a floating-point value");
      double x = v.AsDouble();
      if (!std::isfinite(x) || x < spec.min_value || x > spec.max_value) {
        return error(absl::StrCat("value must be in [", spec.min_value, ", ",
                                  spec.max_value, "]"));
      }
      return absl::OkStatus();
    }
    case ParameterType::kInteger: {
      if (!v.is_integer()) return error("INTEGER needs an integer value");
      auto x = static_cast<double>(v.AsInteger());
      if (x < spec.min_value || x > spec.max_value) {
        return error(absl::StrCat("value must be in [", spec.min_value, ", ",
                                  spec.max_value, "]"));
      }
      return absl::OkStatus();
    }
    case ParameterType::kDiscrete: {
      if (!v.is_double()) return error("DISCRETE needs a numeric value");
      for (double d : spec.discrete_values) {
        if (d == v.AsDouble()) return absl::OkStatus();
      }
      return error("value is not one of its discreteValues");
    }
    case ParameterType::kCategorical: {
      if (!v.is_string()) return error("CATEGORICAL needs a string value");
      for (const auto& c : spec.categorical_values) {
        if (c == v.AsString()) return absl::OkStatus();
      }
      return error("value is not one of its categoricalValues");
    }
  }
  return absl::InternalError("unknown parameter type");
}

}  // namespace

absl::Status SearchSpace::CheckAssignment(
    const ParameterAssignment& assignment) const {
  for (const auto& spec : parameters_) {
    auto it = assignment.find(spec.name);
    if (it == assignment.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name, "\" has no value"));
    }
    if (auto status = CheckValue(spec, it->second); !status.ok()) {
      return status;
    }
  }
  for (const auto& [name, value] : assignment) {
    if (Find(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter \"", name, "\" is not in the search space, got ",
          value.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace hptune
