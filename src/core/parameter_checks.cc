#include "src/core/parameter_checks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "src/core/config/text.h"

namespace hptune::validation_internal {
namespace {

using config_internal::FormatNumber;
using config_internal::IndexPath;
using config_internal::JoinPath;
using config_internal::Quote;

constexpr size_t kMaxDiscreteValues = 1000;
constexpr size_t kMaxCategoricalValues = 1000;
// A name becomes a --flag and a column; a value travels in every trial.
constexpr size_t kMaxParameterNameLength = 128;
constexpr size_t kMaxCategoricalValueLength = 256;
// INTEGER values travel as doubles; beyond 2^53 not every integer is one.
constexpr double kMaxExactInteger = 9007199254740992.0;

// Trainers get `--<name>=<value>`, so a name must read as one flag.
void CheckParameterName(const std::string& path, const std::string& name,
                        Checker& check) {
  const std::string field = JoinPath(path, "parameterName");
  if (name.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (name.size() > kMaxParameterNameLength) {
    check.Error(field, "must be at most " +
                           std::to_string(kMaxParameterNameLength) +
                           " characters, got " + std::to_string(name.size()));
    return;
  }
  for (char c : name) {
    if (!IsAsciiLetter(c) && !IsAsciiDigit(c) && c != '_' && c != '-' &&
        c != '.') {
      check.Error(field,
                  "must contain only letters, digits, '_', '-' and '.' (it "
                  "becomes a --flag), got " +
                      Quote(name));
      return;
    }
  }
  if (name[0] == '-') {
    check.Error(field, "must not start with '-' (it becomes a --flag), got " +
                           Quote(name));
  }
}

// The bounds of a DOUBLE or INTEGER parameter.
void CheckRange(const std::string& path, const ParameterSpec& p,
                Checker& check) {
  bool ok = true;
  for (auto [field, value] : {std::pair{"minValue", p.min_value},
                              std::pair{"maxValue", p.max_value}}) {
    if (!std::isfinite(value)) {
      check.Error(JoinPath(path, field),
                  "must be finite, got " + FormatNumber(value));
      ok = false;
    } else if (p.type == ParameterType::kInteger) {
      if (value != std::floor(value)) {
        check.Error(
            JoinPath(path, field),
            "must be an integer for type INTEGER, got " + FormatNumber(value));
        ok = false;
      } else if (std::fabs(value) > kMaxExactInteger) {
        check.Error(JoinPath(path, field),
                    "must be between -2^53 and 2^53 for type INTEGER, got " +
                        FormatNumber(value));
        ok = false;
      }
    }
  }
  if (!ok) return;
  if (p.min_value >= p.max_value) {
    check.Error(JoinPath(path, "minValue"),
                "must be less than maxValue " + FormatNumber(p.max_value) +
                    ", got " + FormatNumber(p.min_value));
    return;
  }
  if ((p.scale == ScaleType::kLog || p.scale == ScaleType::kReverseLog) &&
      p.min_value <= 0) {
    check.Error(JoinPath(path, "scaleType"), std::string(ToString(p.scale)) +
                                                 " needs minValue > 0, got " +
                                                 FormatNumber(p.min_value));
  }
}

void CheckDiscrete(const std::string& path, const ParameterSpec& p,
                   Checker& check) {
  const std::string field = JoinPath(path, "discreteValues");
  const std::vector<double>& values = p.discrete_values;
  if (values.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (values.size() > kMaxDiscreteValues) {
    check.Error(field, "must have at most " +
                           std::to_string(kMaxDiscreteValues) +
                           " values, got " + std::to_string(values.size()));
  }
  bool ok = true;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      check.Error(IndexPath(field, i),
                  "must be finite, got " + FormatNumber(values[i]));
      ok = false;
    } else if (i > 0 && std::isfinite(values[i - 1]) &&
               values[i] <= values[i - 1]) {
      check.Error(IndexPath(field, i),
                  "must be greater than " + FormatNumber(values[i - 1]) +
                      " (discreteValues must be strictly increasing), got " +
                      FormatNumber(values[i]));
      ok = false;
    }
  }
  if (ok && (p.scale == ScaleType::kLog || p.scale == ScaleType::kReverseLog) &&
      values.front() <= 0) {
    check.Error(JoinPath(path, "scaleType"),
                std::string(ToString(p.scale)) +
                    " needs discreteValues > 0, got " +
                    FormatNumber(values.front()));
  }
}

void CheckCategorical(const std::string& path, const ParameterSpec& p,
                      Checker& check) {
  const std::string field = JoinPath(path, "categoricalValues");
  if (p.categorical_values.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (p.categorical_values.size() > kMaxCategoricalValues) {
    check.Error(field, "must have at most " +
                           std::to_string(kMaxCategoricalValues) +
                           " values, got " +
                           std::to_string(p.categorical_values.size()));
    return;
  }
  std::map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < p.categorical_values.size(); ++i) {
    const std::string& value = p.categorical_values[i];
    if (value.empty()) {
      check.Error(IndexPath(field, i), "must not be empty");
      continue;
    }
    if (value.size() > kMaxCategoricalValueLength) {
      check.Error(IndexPath(field, i),
                  "must be at most " +
                      std::to_string(kMaxCategoricalValueLength) +
                      " characters, got " + std::to_string(value.size()));
      continue;
    }
    auto [it, inserted] = first_index.emplace(value, i);
    if (!inserted) {
      check.Error(IndexPath(field, i), "duplicate value " + Quote(value) +
                                           " (also at index " +
                                           std::to_string(it->second) + ")");
    }
  }
}

// Fields of another type (ParameterTypeTakesField): a typed caller can set
// them; config parsing reports them where they are written and never copies
// them into the spec. The stored form writes only the fields a type takes.
void CheckForeignFields(const std::string& path, const ParameterSpec& p,
                        Checker& check) {
  const std::string not_allowed =
      "not allowed with type " + std::string(ToString(p.type)) + ", got ";
  const auto refuse = [&](std::string_view key, bool set,
                          const std::string& got) {
    if (set && !ParameterTypeTakesField(p.type, key)) {
      check.Error(JoinPath(path, key), not_allowed + got);
    }
  };
  refuse("minValue", p.min_value != 0, FormatNumber(p.min_value));
  refuse("maxValue", p.max_value != 0, FormatNumber(p.max_value));
  refuse("discreteValues", !p.discrete_values.empty(),
         std::to_string(p.discrete_values.size()) + " values");
  refuse("categoricalValues", !p.categorical_values.empty(),
         std::to_string(p.categorical_values.size()) + " values");
  refuse("scaleType", p.scale != ScaleType::kNone,
         std::string(ToString(p.scale)));
}

// Parameter `i` (-1: the roots) and then each child's subtree, in list
// order: the order in which the nested form is read back.
void AppendSubtree(const SearchSpace& space, int i, std::vector<int>& order) {
  if (i >= 0) order.push_back(i);
  for (int child : space.ChildIndices(i)) AppendSubtree(space, child, order);
}

// The path of the conditionalParameterSpecs entry that holds the child at
// `child_path` (which ends in ".parameterSpec").
std::string EntryPath(const std::string& child_path) {
  constexpr std::string_view kSuffix = ".parameterSpec";
  if (child_path.ends_with(kSuffix)) {
    return child_path.substr(0, child_path.size() - kSuffix.size());
  }
  return child_path;
}

// Each value once, and each one of the parent's.
template <typename T, typename Describe>
void CheckParentValues(const std::string& field, const std::vector<T>& values,
                       const std::vector<T>& domain,
                       const ParameterSpec& parent,
                       std::string_view domain_field, Describe describe,
                       Checker& check) {
  if (values.empty()) {
    check.Error(field, "required: the parent " + Quote(parent.name) + " is " +
                           std::string(ToString(parent.type)) +
                           " (at least one of its values)");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string value_field = IndexPath(JoinPath(field, "values"), i);
    if (std::find(values.begin(), values.begin() + i, values[i]) !=
        values.begin() + i) {
      check.Error(value_field, "duplicate value " + describe(values[i]));
    } else if (!domain.empty() && std::find(domain.begin(), domain.end(),
                                            values[i]) == domain.end()) {
      check.Error(value_field, "not one of the " + std::string(domain_field) +
                                   " of the parent " + Quote(parent.name) +
                                   ", got " + describe(values[i]));
    }
  }
}

}  // namespace

void CheckParameter(const std::string& path, const ParameterSpec& p,
                    Algorithm algorithm, Checker& check) {
  CheckParameterName(path, p.name, check);
  switch (p.type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      CheckRange(path, p, check);
      break;
    case ParameterType::kDiscrete:
      CheckDiscrete(path, p, check);
      break;
    case ParameterType::kCategorical:
      CheckCategorical(path, p, check);
      break;
  }
  CheckForeignFields(path, p, check);
  if (p.first_trial < 0 || (p.first_trial > 0 && p.condition)) {
    check.Error(JoinPath(path, "firstTrial"),
                "must be 0, or the number of the trial whose suggestion added "
                "a root parameter, got " +
                    std::to_string(p.first_trial) +
                    (p.condition ? " on a conditional parameter" : ""));
  }
  if (p.first_trial > 0 && algorithm == Algorithm::kGridSearch) {
    check.Error(JoinPath(path, "firstTrial"),
                "algorithm GRID_SEARCH enumerates the space its config "
                "declares; a parameter cannot join it later");
  }
  if (algorithm == Algorithm::kGridSearch && p.type == ParameterType::kDouble) {
    check.Error(JoinPath(path, "type"),
                "algorithm GRID_SEARCH needs INTEGER, DISCRETE or CATEGORICAL "
                "parameters, got DOUBLE for " +
                    Quote(p.name));
  }
}

void CheckCondition(const SearchSpace& space, int i,
                    const std::string& child_path, Checker& check) {
  const ParameterSpec& child = space.parameters()[i];
  const ParentCondition& condition = *child.condition;
  const std::string entry = EntryPath(child_path);
  const int parent_index = space.IndexOf(condition.parent);
  if (parent_index < 0) {
    check.Error(JoinPath(entry, "parent"),
                "no parameter is named " + Quote(condition.parent));
    return;
  }
  if (parent_index >= i) {
    check.Error(JoinPath(entry, "parent"),
                "the parent " + Quote(condition.parent) +
                    " must come before its child " + Quote(child.name) +
                    " (no cycles)");
    return;
  }
  const ParameterSpec& parent = space.parameters()[parent_index];
  const std::string discrete = JoinPath(entry, "parentDiscreteValues");
  const std::string ints = JoinPath(entry, "parentIntValues");
  const std::string categories = JoinPath(entry, "parentCategoricalValues");
  const std::string parent_type(ToString(parent.type));
  const auto refuse = [&](const std::string& field, bool given) {
    if (given) {
      check.Error(field, "not allowed: the parent " + Quote(parent.name) +
                             " is " + parent_type);
    }
  };
  switch (parent.type) {
    case ParameterType::kDouble:
      check.Error(entry, "the parent " + Quote(parent.name) +
                             " is DOUBLE, whose values cannot be listed; "
                             "make it DISCRETE, INTEGER or CATEGORICAL");
      return;
    case ParameterType::kDiscrete:
      refuse(ints, !condition.int_values.empty());
      refuse(categories, !condition.categorical_values.empty());
      CheckParentValues(
          discrete, condition.discrete_values, parent.discrete_values, parent,
          "discreteValues",
          [](double v) { return ParameterValue::Double(v).ToString(); }, check);
      return;
    case ParameterType::kInteger: {
      refuse(discrete, !condition.discrete_values.empty());
      refuse(categories, !condition.categorical_values.empty());
      CheckParentValues(
          ints, condition.int_values, std::vector<int64_t>{}, parent,
          "integers", [](int64_t v) { return std::to_string(v); }, check);
      for (size_t k = 0; k < condition.int_values.size(); ++k) {
        const auto v = static_cast<double>(condition.int_values[k]);
        if (v < parent.min_value || v > parent.max_value) {
          check.Error(IndexPath(JoinPath(ints, "values"), k),
                      "must be in [" +
                          ParameterValue::Double(parent.min_value).ToString() +
                          ", " +
                          ParameterValue::Double(parent.max_value).ToString() +
                          "], the range of the parent " + Quote(parent.name) +
                          ", got " + std::to_string(condition.int_values[k]));
        }
      }
      return;
    }
    case ParameterType::kCategorical:
      refuse(discrete, !condition.discrete_values.empty());
      refuse(ints, !condition.int_values.empty());
      CheckParentValues(categories, condition.categorical_values,
                        parent.categorical_values, parent, "categoricalValues",
                        Quote, check);
      return;
  }
}

void CheckTreeOrder(const SearchSpace& space, std::string_view prefix,
                    Checker& check) {
  const std::vector<ParameterSpec>& params = space.parameters();
  std::vector<int> order;
  AppendSubtree(space, -1, order);
  for (size_t k = 0; k < order.size() && k < params.size(); ++k) {
    const auto m = static_cast<size_t>(order[k]);
    if (m == k || !params[m].condition) continue;
    const std::string& parent = params[m].condition->parent;
    check.Error(JoinPath(prefix, space.ConfigPath(order[k], "params")),
                "the child " + Quote(params[m].name) +
                    " must be listed right after its parent " + Quote(parent) +
                    " and that parent's earlier children, before " +
                    Quote(params[k].name) + " (index " + std::to_string(k) +
                    "), as its nested form reads back; it is at index " +
                    std::to_string(m));
    return;
  }
}

}  // namespace hptune::validation_internal
