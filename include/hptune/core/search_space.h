// The search space of a study: typed, scaled parameters and their values.
//
// Used by config parsing, designers, the engine and the store. Mirrors AI
// Platform's ParameterSpec (DOUBLE, INTEGER, DISCRETE, CATEGORICAL with
// linear, log and reverse-log scales) and Vertex AI's
// conditionalParameterSpecs: a space may be a tree, where a child parameter
// exists only while its parent takes one of the values that activate it.
// The tree is kept flat: every parameter lists its parent (if any), parents
// come before their children, and the order is the depth-first order of the
// nested config (also the order of trainer flags). Value types;
// thread-compatible.
#ifndef HPTUNE_CORE_SEARCH_SPACE_H_
#define HPTUNE_CORE_SEARCH_SPACE_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace hptune {

enum class ParameterType { kDouble, kInteger, kDiscrete, kCategorical };
enum class ScaleType { kNone, kLinear, kLog, kReverseLog };

// "DOUBLE", "INTEGER", "DISCRETE", "CATEGORICAL".
std::string_view ToString(ParameterType type);
std::optional<ParameterType> ParseParameterType(std::string_view text);
// Which of a parameter's type-specific fields (the config keys "minValue",
// "maxValue", "discreteValues", "categoricalValues", "scaleType") `type`
// takes, and which of them it requires: what a config file's reader and a
// request's reader both check.
bool ParameterTypeTakesField(ParameterType type, std::string_view key);
std::vector<std::string_view> ParameterTypeRequiredFields(ParameterType type);
// "NONE", "UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE".
std::string_view ToString(ScaleType scale);
std::optional<ScaleType> ParseScaleType(std::string_view text);

class ParameterValue;

// Where a conditional parameter hangs: its parent and the parent values that
// make it active (Vertex AI's ConditionalParameterSpec). The list that
// matches the parent's type is the one used: parentDiscreteValues for
// DISCRETE, parentIntValues for INTEGER, parentCategoricalValues for
// CATEGORICAL (a DOUBLE cannot be a parent).
struct ParentCondition {
  std::string parent;
  std::vector<double> discrete_values;
  std::vector<int64_t> int_values;
  std::vector<std::string> categorical_values;

  // Whether the parent's value `value` is one of the activating values.
  bool Matches(const ParameterValue& value) const;

  bool operator==(const ParentCondition&) const = default;
};

struct ParameterSpec {
  std::string name;
  ParameterType type = ParameterType::kDouble;
  double min_value = 0;                         // DOUBLE and INTEGER only.
  double max_value = 0;                         // DOUBLE and INTEGER only.
  std::vector<double> discrete_values;          // DISCRETE only, increasing.
  std::vector<std::string> categorical_values;  // CATEGORICAL only.
  ScaleType scale = ScaleType::kNone;           // Never set on CATEGORICAL.
  // Set on a child of a conditional tree; nullopt on a root parameter.
  std::optional<ParentCondition> condition;
  // 0: a parameter of the study's config. N > 0: a root parameter that
  // joined the space when trial N first suggested it (define-by-run,
  // Store::AddTrialParameter). A trial may lack such a parameter: it is
  // then inactive there, as an unmatched child is.
  int64_t first_trial = 0;

  // Number of distinct feasible values; nullopt for DOUBLE (continuous).
  std::optional<int64_t> Cardinality() const;

  bool operator==(const ParameterSpec&) const = default;
};

// One parameter's value: a double (DOUBLE, DISCRETE), an integer (INTEGER) or
// a string (CATEGORICAL).
class ParameterValue {
 public:
  ParameterValue() : value_(0.0) {}
  static ParameterValue Double(double v) {
    return ParameterValue(std::in_place_type<double>, v);
  }
  static ParameterValue Integer(int64_t v) {
    return ParameterValue(std::in_place_type<int64_t>, v);
  }
  static ParameterValue Categorical(std::string v) {
    return ParameterValue(std::in_place_type<std::string>, std::move(v));
  }

  bool is_double() const { return std::holds_alternative<double>(value_); }
  bool is_integer() const { return std::holds_alternative<int64_t>(value_); }
  bool is_string() const { return std::holds_alternative<std::string>(value_); }

  // The numeric value (an integer converted to double). CHECKs it is numeric.
  double AsDouble() const;
  int64_t AsInteger() const;            // CHECKs is_integer().
  const std::string& AsString() const;  // CHECKs is_string().

  // The form a trainer receives in `--name=value`: integers as integers,
  // doubles in the shortest form that reads back to the same double,
  // categorical values as they are.
  std::string ToString() const;

  bool operator==(const ParameterValue&) const = default;

 private:
  // Builds the alternative in place: g++ 12 flags a moved-from variant as
  // maybe-uninitialized under the sanitizers.
  template <typename T, typename V>
  ParameterValue(std::in_place_type_t<T> type, V&& v)
      : value_(type, std::forward<V>(v)) {}
  std::variant<double, int64_t, std::string> value_;
};

// Parameter name -> value, one entry per active parameter of the space.
using ParameterAssignment = std::map<std::string, ParameterValue>;

class SearchSpace {
 public:
  SearchSpace() = default;
  explicit SearchSpace(std::vector<ParameterSpec> parameters)
      : parameters_(std::move(parameters)) {}

  // In the order the user declared them (also the order of trainer flags).
  const std::vector<ParameterSpec>& parameters() const { return parameters_; }
  const ParameterSpec* Find(std::string_view name) const;
  // The index of `name` in parameters(), or -1.
  int IndexOf(std::string_view name) const;
  bool empty() const { return parameters_.empty(); }

  // Whether any parameter has a parent.
  bool IsConditional() const;
  // The index of parameter `i`'s parent, or -1 for a root parameter (or a
  // parent missing from the space: ValidateStudySpec refuses that).
  int ParentIndex(int i) const;
  // The indices of the parameters whose parent is `i` (-1: the roots), in
  // order.
  std::vector<int> ChildIndices(int i) const;
  // Which parameters `assignment` activates, one flag per parameter: a root
  // is active, except one that joined later (first_trial > 0), which is
  // active when `assignment` has it; a child is active when its parent is
  // active, has a value in `assignment` and that value matches the child's
  // condition.
  std::vector<bool> ActiveMask(const ParameterAssignment& assignment) const;

  // How many distinct points (assignments) the subtree of parameter `i`
  // (-1: the whole space) has, counting in a conditional space only the
  // parameters a point activates: a value of a parent contributes the
  // product of the subtrees it activates, every other value 1. The one
  // count of a space's points: the grid designer enumerates this many, and
  // the engine completes a study that has tried them all. Saturates at
  // `cap`; nullopt when the subtree has a DOUBLE parameter (no end of
  // points).
  std::optional<int64_t> PointCount(
      int i = -1, int64_t cap = std::numeric_limits<int64_t>::max()) const;

  // Where parameter `i` is written in the nested config, under `params`
  // (e.g. "params[0].conditionalParameterSpecs[1].parameterSpec").
  std::string ConfigPath(int i, std::string_view params) const;

  // OK when `assignment` has exactly this space's active parameters (see
  // ActiveMask), each with a value of the right kind that is feasible (in
  // range, one of the discrete or categorical values). The error names the
  // parameter and the value, and for an inactive one its parent's value.
  [[nodiscard]] absl::Status CheckAssignment(
      const ParameterAssignment& assignment) const;

  bool operator==(const SearchSpace&) const = default;

 private:
  std::vector<ParameterSpec> parameters_;
};

}  // namespace hptune

#endif  // HPTUNE_CORE_SEARCH_SPACE_H_
