// Hypervolume: how good a set of results of several objectives is.
// Dominance and the Pareto front are core's (hptune/core/pareto.h).
//
// Used by the multi-objective GP designer and the quality harness's
// hypervolume regret. Pure functions; thread-safe.
//
// Every objective is maximised here; a caller negates the ones it
// minimises.
//
// The hypervolume of a set with respect to a reference point r is the
// Lebesgue measure of the union of the boxes [r, p] over the points p that
// are better than r in every objective (Zitzler and Thiele, 1998). It is
// computed exactly by slicing along the last objective ("HSO": While,
// Hingston, Barone and Huband, "A faster algorithm for calculating
// hypervolume", IEEE TEVC 10(1), 2006): sort by the last objective,
// and sum, over the slabs between consecutive distinct values, the slab's
// height times the (k-1)-dimensional hypervolume of the points that reach
// it. O(n log n) for 2 objectives, O(n^(k-1) log n) for k; meant for k <= 4
// and fronts of a few hundred points.
#ifndef HPTUNE_ALGORITHMS_MULTIOBJECTIVE_PARETO_H_
#define HPTUNE_ALGORITHMS_MULTIOBJECTIVE_PARETO_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/pareto.h"

namespace hptune::algorithms {

using ::hptune::Dominates;
using ::hptune::ParetoFront;

// The hypervolume of `points` with respect to `reference` (above); points
// not better than the reference in every objective add nothing.
// InvalidArgument, naming the point or the reference, for a size that
// differs from the reference's, a reference of 0 or more than 8
// objectives, or a value that is not finite.
absl::StatusOr<double> Hypervolume(
    const std::vector<std::vector<double>>& points,
    const std::vector<double>& reference);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_MULTIOBJECTIVE_PARETO_H_
