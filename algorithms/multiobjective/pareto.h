// Pareto dominance and hypervolume: what several objectives are judged by.
//
// Used by the multi-objective designers, ListOptimalTrials and the quality
// harness's hypervolume regret. Pure functions; thread-safe.
//
// Every objective is maximised here; a caller negates the ones it
// minimises. Point a dominates point b when a >= b in every objective and
// a > b in at least one. The Pareto front of a set is its points that no
// other point dominates; equal points do not dominate each other, so
// duplicates on the front all stay.
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

namespace hptune::algorithms {

// True when a dominates b (above). a and b have the same size.
bool Dominates(const std::vector<double>& a, const std::vector<double>& b);

// The indices of the points on the Pareto front, in increasing order.
// Points with a NaN are never on it. InvalidArgument, naming the point,
// when the points do not all have the same, non-zero number of objectives.
absl::StatusOr<std::vector<size_t>> ParetoFront(
    const std::vector<std::vector<double>>& points);

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
