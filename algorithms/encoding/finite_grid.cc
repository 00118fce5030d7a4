#include "algorithms/encoding/finite_grid.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/check.h"

namespace hptune::algorithms {
namespace {

// The indices in `parent`'s domain of the values that `condition` lists
// (values outside the domain, which validation refuses, are left out).
std::vector<int64_t> ValueIndices(const ParameterSpec& parent,
                                  const ParentCondition& condition) {
  std::vector<int64_t> indices;
  switch (parent.type) {
    case ParameterType::kInteger:
      for (int64_t v : condition.int_values) {
        const auto lo = static_cast<int64_t>(parent.min_value);
        if (v >= lo && v <= static_cast<int64_t>(parent.max_value)) {
          indices.push_back(v - lo);
        }
      }
      break;
    case ParameterType::kDiscrete:
      for (double v : condition.discrete_values) {
        auto it = std::find(parent.discrete_values.begin(),
                            parent.discrete_values.end(), v);
        if (it != parent.discrete_values.end()) {
          indices.push_back(it - parent.discrete_values.begin());
        }
      }
      break;
    case ParameterType::kCategorical:
      for (const std::string& v : condition.categorical_values) {
        auto it = std::find(parent.categorical_values.begin(),
                            parent.categorical_values.end(), v);
        if (it != parent.categorical_values.end()) {
          indices.push_back(it - parent.categorical_values.begin());
        }
      }
      break;
    case ParameterType::kDouble:
      break;
  }
  return indices;
}

}  // namespace

absl::StatusOr<FiniteGrid> FiniteGrid::Create(const SearchSpace& space) {
  const auto& params = space.parameters();
  const int n = static_cast<int>(params.size());
  std::vector<Node> nodes(n);
  for (int i = 0; i < n; ++i) {
    if (params[i].type == ParameterType::kDouble) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", params[i].name,
                       "\" is DOUBLE: a continuous range has no grid"));
    }
    nodes[i].values = *params[i].Cardinality();
    std::map<int64_t, std::vector<int>> activated;  // value index -> children
    for (int child : space.ChildIndices(i)) {
      for (int64_t v : ValueIndices(params[i], *params[child].condition)) {
        activated[v].push_back(child);
      }
    }
    for (auto& [value_index, children] : activated) {
      nodes[i].branches.push_back({value_index, std::move(children), 1});
    }
  }
  // The counts are the space's (SearchSpace::PointCount), saturated at the
  // largest int64: a grid that reaches it cannot be enumerated. Below it, no
  // subtree's count and no branch's product of them overflows either (every
  // one is at most the size).
  constexpr int64_t kMaxPoints = std::numeric_limits<int64_t>::max();
  const int64_t size = *space.PointCount(-1, kMaxPoints);
  if (size == kMaxPoints) {
    std::vector<std::string> counts;
    for (int i = 0; i < n; ++i) {
      counts.push_back(absl::StrCat("\"", params[i].name,
                                    "\": ", nodes[i].values, " values"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the grid has more than ", std::numeric_limits<int64_t>::max(),
        " points and cannot be enumerated (", absl::StrJoin(counts, ", "),
        "); use fewer values or RANDOM_SEARCH"));
  }
  for (int i = 0; i < n; ++i) nodes[i].count = *space.PointCount(i, kMaxPoints);
  for (Node& node : nodes) {
    for (Branch& branch : node.branches) {
      for (int c : branch.children) branch.points *= nodes[c].count;
    }
  }
  std::vector<int> roots = space.ChildIndices(-1);
  return FiniteGrid(space, std::move(nodes), std::move(roots), size);
}

ParameterAssignment FiniteGrid::At(int64_t index) const {
  HPTUNE_CHECK(index >= 0 && index < size_,
               absl::StrCat("FiniteGrid::At(", index, ") of ", size_));
  ParameterAssignment point;
  FillGroup(roots_, index, point);
  return point;
}

void FiniteGrid::FillGroup(const std::vector<int>& group, int64_t index,
                           ParameterAssignment& point) const {
  // Odometer: the last parameter of the group is the least significant
  // digit.
  for (size_t g = group.size(); g-- > 0;) {
    const int i = group[g];
    FillNode(i, index % nodes_[i].count, point);
    index /= nodes_[i].count;
  }
}

void FiniteGrid::FillNode(int i, int64_t k, ParameterAssignment& point) const {
  // Values that activate no child own one point each; the gaps between
  // branches are runs of them.
  int64_t next = 0;
  for (const Branch& branch : nodes_[i].branches) {
    const int64_t gap = branch.value_index - next;
    if (k < gap) return Emplace(i, next + k, point);
    k -= gap;
    if (k < branch.points) {
      Emplace(i, branch.value_index, point);
      return FillGroup(branch.children, k, point);
    }
    k -= branch.points;
    next = branch.value_index + 1;
  }
  Emplace(i, next + k, point);
}

void FiniteGrid::Emplace(int i, int64_t value_index,
                         ParameterAssignment& point) const {
  const ParameterSpec& spec = space_.parameters()[i];
  switch (spec.type) {
    case ParameterType::kInteger:
      point.emplace(spec.name,
                    ParameterValue::Integer(
                        static_cast<int64_t>(spec.min_value) + value_index));
      break;
    case ParameterType::kDiscrete:
      point.emplace(spec.name,
                    ParameterValue::Double(spec.discrete_values[value_index]));
      break;
    case ParameterType::kCategorical:
      point.emplace(spec.name, ParameterValue::Categorical(
                                   spec.categorical_values[value_index]));
      break;
    case ParameterType::kDouble:
      break;  // Create() rejects DOUBLE.
  }
}

}  // namespace hptune::algorithms
