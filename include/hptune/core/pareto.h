// Pareto dominance: which results of several objectives are optimal.
//
// Used by OptimalTrials (study.h), the multi-objective designers and the
// quality harness. Pure functions; thread-safe.
//
// Every objective is maximised here; a caller negates the ones it
// minimises. Point a dominates point b when a >= b in every objective and
// a > b in at least one. The Pareto front of a set is its points that no
// other point dominates; equal points do not dominate each other, so
// duplicates on the front all stay.
#ifndef HPTUNE_CORE_PARETO_H_
#define HPTUNE_CORE_PARETO_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune {

// True when a dominates b (above). a and b have the same size.
bool Dominates(const std::vector<double>& a, const std::vector<double>& b);

// The indices of the points on the Pareto front, in increasing order.
// Points with a NaN are never on it. InvalidArgument, naming the point,
// when the points do not all have the same, non-zero number of objectives.
// O(n log n + n f k) for a front of f points.
absl::StatusOr<std::vector<size_t>> ParetoFront(
    const std::vector<std::vector<double>>& points);

}  // namespace hptune

#endif  // HPTUNE_CORE_PARETO_H_
