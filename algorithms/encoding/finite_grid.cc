#include "algorithms/encoding/finite_grid.h"

#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/check.h"

namespace hptune::algorithms {
namespace {

int64_t CardinalityOf(const ParameterSpec& spec) {
  switch (spec.type) {
    case ParameterType::kInteger:
      // Bounds are exact integers within +-2^53 (ValidateForEncoding), so
      // this cannot overflow.
      return static_cast<int64_t>(spec.max_value) -
             static_cast<int64_t>(spec.min_value) + 1;
    case ParameterType::kDiscrete:
      return static_cast<int64_t>(spec.discrete_values.size());
    case ParameterType::kCategorical:
      return static_cast<int64_t>(spec.categorical_values.size());
    case ParameterType::kDouble:
      break;
  }
  return 0;
}

}  // namespace

absl::StatusOr<FiniteGrid> FiniteGrid::Create(const SearchSpace& space) {
  std::vector<int64_t> radices;
  int64_t size = 1;
  bool overflow = false;
  for (const auto& spec : space.parameters()) {
    if (spec.type == ParameterType::kDouble) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name,
                       "\" is DOUBLE: a continuous range has no grid"));
    }
    int64_t n = CardinalityOf(spec);
    radices.push_back(n);
    if (!overflow && __builtin_mul_overflow(size, n, &size)) overflow = true;
  }
  if (overflow) {
    std::vector<std::string> counts;
    for (size_t i = 0; i < radices.size(); ++i) {
      counts.push_back(absl::StrCat("\"", space.parameters()[i].name,
                                    "\": ", radices[i], " values"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the grid has more than ", std::numeric_limits<int64_t>::max(),
        " points and cannot be enumerated (", absl::StrJoin(counts, ", "),
        "); use fewer values or RANDOM_SEARCH"));
  }
  return FiniteGrid(space, std::move(radices), size);
}

ParameterAssignment FiniteGrid::At(int64_t index) const {
  HPTUNE_CHECK(index >= 0 && index < size_,
               absl::StrCat("FiniteGrid::At(", index, ") of ", size_));
  ParameterAssignment point;
  // Odometer: the last parameter is the least significant digit.
  for (size_t i = radices_.size(); i-- > 0;) {
    const ParameterSpec& spec = space_.parameters()[i];
    int64_t digit = index % radices_[i];
    index /= radices_[i];
    switch (spec.type) {
      case ParameterType::kInteger:
        point.emplace(spec.name,
                      ParameterValue::Integer(
                          static_cast<int64_t>(spec.min_value) + digit));
        break;
      case ParameterType::kDiscrete:
        point.emplace(spec.name,
                      ParameterValue::Double(spec.discrete_values[digit]));
        break;
      case ParameterType::kCategorical:
        point.emplace(spec.name, ParameterValue::Categorical(
                                     spec.categorical_values[digit]));
        break;
      case ParameterType::kDouble:
        break;  // Create() rejects DOUBLE.
    }
  }
  return point;
}

}  // namespace hptune::algorithms
