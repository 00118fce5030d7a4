#include "src/engine/space_exhaustion.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::engine {
namespace {

// How many distinct assignments the subtree of parameter `i` (-1: the whole
// space) has, counting in a conditional space only active parameters: a
// value of a parent contributes the product of the subtrees it activates.
// Saturates at `cap`; nullopt when infinite (a DOUBLE).
std::optional<int64_t> PointCount(const SearchSpace& space, int i,
                                  int64_t cap) {
  const auto times = [cap](int64_t a, int64_t b) {
    return b != 0 && a > cap / b ? cap : std::min(a * b, cap);
  };
  const std::vector<int> children = space.ChildIndices(i);
  const auto product_of =
      [&](const std::vector<int>& subtrees) -> std::optional<int64_t> {
    int64_t product = 1;
    for (int c : subtrees) {
      std::optional<int64_t> n = PointCount(space, c, cap);
      if (!n) return std::nullopt;
      product = times(product, *n);
    }
    return product;
  };
  if (i < 0) return product_of(children);
  const ParameterSpec& p = space.parameters()[i];
  std::optional<int64_t> cardinality = p.Cardinality();
  if (!cardinality) return std::nullopt;
  if (children.empty()) return std::min(*cardinality, cap);
  // The values some child's condition names; every other value counts 1.
  std::vector<ParameterValue> named;
  for (int c : children) {
    const ParentCondition& condition = *space.parameters()[c].condition;
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
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) {
      distinct.push_back(std::move(v));
    }
  }
  int64_t count = std::max<int64_t>(
      *cardinality - static_cast<int64_t>(distinct.size()), 0);
  for (const ParameterValue& v : distinct) {
    std::vector<int> activated;
    for (int c : children) {
      if (space.parameters()[c].condition->Matches(v)) activated.push_back(c);
    }
    std::optional<int64_t> n = product_of(activated);
    if (!n) return std::nullopt;
    count = std::min(count + *n, cap);
  }
  return std::min(count, cap);
}

}  // namespace

// Whether `trials` trials could cover the space: it is finite and has at
// most that many points. Reads the spec alone.
bool MayBeExhausted(const SearchSpace& space, int64_t trials) {
  std::optional<int64_t> size = PointCount(space, -1, trials + 1);
  return size && *size <= trials;
}

// Whether every point of a finite search space is among `tried` (designers
// never repeat a point, so nothing is left to suggest). Cheap unless the
// space is small enough to have been covered.
bool SpaceExhausted(const SearchSpace& space,
                    const std::vector<const ParameterAssignment*>& tried) {
  const auto limit = static_cast<int64_t>(tried.size());
  std::optional<int64_t> size = PointCount(space, -1, limit + 1);
  if (!size || *size > limit) return false;
  std::set<std::string> distinct;
  for (const ParameterAssignment* a : tried) {
    std::string key;
    for (const auto& [name, value] : *a) {
      absl::StrAppend(&key, name, "=", value.ToString(), "\n");
    }
    distinct.insert(std::move(key));
  }
  return static_cast<int64_t>(distinct.size()) >= *size;
}

}  // namespace hptune::engine
