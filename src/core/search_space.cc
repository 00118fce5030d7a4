#include "hptune/core/search_space.h"

#include <algorithm>
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

bool ParameterTypeTakesField(ParameterType type, std::string_view key) {
  switch (type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      return key == "minValue" || key == "maxValue" || key == "scaleType";
    case ParameterType::kDiscrete:
      return key == "discreteValues" || key == "scaleType";
    case ParameterType::kCategorical:
      return key == "categoricalValues";
  }
  return false;
}

std::vector<std::string_view> ParameterTypeRequiredFields(ParameterType type) {
  switch (type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      return {"minValue", "maxValue"};
    case ParameterType::kDiscrete:
      return {"discreteValues"};
    case ParameterType::kCategorical:
      return {"categoricalValues"};
  }
  return {};
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

bool ParentCondition::Matches(const ParameterValue& value) const {
  if (value.is_string()) {
    return std::find(categorical_values.begin(), categorical_values.end(),
                     value.AsString()) != categorical_values.end();
  }
  if (value.is_integer()) {
    return std::find(int_values.begin(), int_values.end(), value.AsInteger()) !=
           int_values.end();
  }
  return std::find(discrete_values.begin(), discrete_values.end(),
                   value.AsDouble()) != discrete_values.end();
}

const ParameterSpec* SearchSpace::Find(std::string_view name) const {
  const int i = IndexOf(name);
  return i < 0 ? nullptr : &parameters_[i];
}

int SearchSpace::IndexOf(std::string_view name) const {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool SearchSpace::IsConditional() const {
  return std::any_of(parameters_.begin(), parameters_.end(),
                     [](const ParameterSpec& p) { return p.condition; });
}

int SearchSpace::ParentIndex(int i) const {
  const auto& condition = parameters_[i].condition;
  return condition ? IndexOf(condition->parent) : -1;
}

std::vector<int> SearchSpace::ChildIndices(int i) const {
  std::vector<int> children;
  for (int j = 0; j < static_cast<int>(parameters_.size()); ++j) {
    if (j == i) continue;
    const bool root = !parameters_[j].condition;
    if (i < 0 ? root
              : !root &&
                    parameters_[j].condition->parent == parameters_[i].name) {
      children.push_back(j);
    }
  }
  return children;
}

std::vector<bool> SearchSpace::ActiveMask(
    const ParameterAssignment& assignment) const {
  std::vector<bool> active(parameters_.size(), false);
  // A parent may come after its child only in a space ValidateStudySpec
  // refuses; the passes until nothing changes keep the answer right anyway.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      if (active[i]) continue;
      const auto& condition = parameters_[i].condition;
      bool now = !condition && (parameters_[i].first_trial == 0 ||
                                assignment.contains(parameters_[i].name));
      if (condition) {
        const int parent = IndexOf(condition->parent);
        if (parent >= 0 && parent != static_cast<int>(i) && active[parent]) {
          auto it = assignment.find(condition->parent);
          now = it != assignment.end() && condition->Matches(it->second);
        }
      }
      if (now) active[i] = changed = true;
    }
  }
  return active;
}

std::string SearchSpace::ConfigPath(int i, std::string_view params) const {
  const int parent = ParentIndex(i);
  // A child whose parent is missing, or comes after it, is refused by
  // ValidateStudySpec; its flat index names it then.
  if (parent >= i || (parent < 0 && parameters_[i].condition)) {
    return absl::StrCat(std::string(params), "[", i, "]");
  }
  const std::vector<int> siblings = ChildIndices(parent);
  const auto position =
      std::find(siblings.begin(), siblings.end(), i) - siblings.begin();
  if (parent < 0) return absl::StrCat(std::string(params), "[", position, "]");
  return absl::StrCat(ConfigPath(parent, params), ".conditionalParameterSpecs[",
                      position, "].parameterSpec");
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

std::optional<int64_t> SearchSpace::PointCount(int i, int64_t cap) const {
  const auto times = [cap](int64_t a, int64_t b) {
    return b != 0 && a > cap / b ? cap : std::min(a * b, cap);
  };
  const std::vector<int> children = ChildIndices(i);
  const auto product_of =
      [&](const std::vector<int>& subtrees) -> std::optional<int64_t> {
    int64_t product = 1;
    for (int c : subtrees) {
      std::optional<int64_t> n = PointCount(c, cap);
      if (!n) return std::nullopt;
      product = times(product, *n);
    }
    return product;
  };
  if (i < 0) return product_of(children);
  const ParameterSpec& p = parameters_[i];
  std::optional<int64_t> cardinality = p.Cardinality();
  if (!cardinality) return std::nullopt;
  if (children.empty()) return std::min(*cardinality, cap);
  // The values some child's condition names; every other value counts 1.
  // A value outside the parent's domain (ValidateStudySpec refuses it) is
  // no point.
  std::vector<ParameterValue> named;
  for (int c : children) {
    const ParentCondition& condition = *parameters_[c].condition;
    for (const std::string& v : condition.categorical_values) {
      named.push_back(ParameterValue::Categorical(v));
    }
    for (int64_t v : condition.int_values) {
      named.push_back(ParameterValue::Integer(v));
    }
    for (double v : condition.discrete_values) {
      named.push_back(ParameterValue::Double(v));
    }
  }
  std::vector<ParameterValue> distinct;
  for (ParameterValue& v : named) {
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end() &&
        CheckValue(p, v).ok()) {
      distinct.push_back(std::move(v));
    }
  }
  int64_t count = std::max<int64_t>(
      *cardinality - static_cast<int64_t>(distinct.size()), 0);
  for (const ParameterValue& v : distinct) {
    std::vector<int> activated;
    for (int c : children) {
      if (parameters_[c].condition->Matches(v)) activated.push_back(c);
    }
    std::optional<int64_t> n = product_of(activated);
    if (!n) return std::nullopt;
    // count <= cap only once clamped: the sum saturates without overflow.
    count = *n > cap - count ? cap : count + *n;
  }
  return std::min(count, cap);
}

absl::Status SearchSpace::CheckAssignment(
    const ParameterAssignment& assignment) const {
  const std::vector<bool> active = ActiveMask(assignment);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const ParameterSpec& spec = parameters_[i];
    auto it = assignment.find(spec.name);
    if (!active[i]) {
      if (it == assignment.end()) continue;
      const std::string& parent = spec.condition->parent;
      auto parent_it = assignment.find(parent);
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name,
                       "\" is not active (its parent \"", parent, "\" ",
                       parent_it == assignment.end()
                           ? std::string("is not active")
                           : absl::StrCat("is ", parent_it->second.ToString()),
                       "), got ", it->second.ToString()));
    }
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
