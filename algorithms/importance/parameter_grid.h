// ParameterGrid: the grid of one parameter on which PED-ANOVA
// (ped_anova.h) estimates its densities, and the grid point each value of
// the parameter counts at. The rules per type are in ped_anova.h ("Grid").
//
// Used by PedAnovaImportance only. Immutable after Create; thread-safe.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_PARAMETER_GRID_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_PARAMETER_GRID_H_

#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

class ParameterGrid {
 public:
  // `spec` must have passed ValidateForEncoding; `max_points` >= 2 is the
  // grid size of a continuous parameter.
  ParameterGrid(const ParameterSpec& spec, int max_points);

  // Number of grid points (1 for a parameter with a single value).
  int size() const { return size_; }
  // False for CATEGORICAL: its points have no order.
  bool ordered() const { return spec_.type != ParameterType::kCategorical; }

  // The grid point of `value`, in [0, size()). InvalidArgument, naming the
  // parameter and the value, when it is not a feasible value.
  absl::StatusOr<int> PointOf(const ParameterValue& value) const;

 private:
  // How a value finds its point.
  enum class Rule {
    kValueIndex,    // INTEGER (linear) and DISCRETE: one point per value.
    kCategory,      // CATEGORICAL: one point per category.
    kNearestPoint,  // evenly spaced points over the scaled range.
  };

  ParameterSpec spec_;
  // For kNearestPoint: the parameter as a DOUBLE over [min, max] in its
  // scale, whose encoding puts min at 0 and max at 1 (an INTEGER's own
  // encoding spans [min - 1/2, max + 1/2]).
  ParameterSpec scaled_;
  Rule rule_ = Rule::kNearestPoint;
  int size_ = 1;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_PARAMETER_GRID_H_
