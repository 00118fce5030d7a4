// The multi-objective and constrained problems of the quality suite, each
// with its search space, its objectives (all minimised), its constraints,
// a reference point and the hypervolume of its true Pareto front, so that a
// run's hypervolume regret (the front's hypervolume minus the achieved one)
// can be reported.
//
// Used by the quality harness and its tests (library hptune_test_functions).
// Pure functions and immutable data; thread-safe.
#ifndef HPTUNE_BENCHMARKS_QUALITY_MULTIOBJECTIVE_PROBLEMS_H_
#define HPTUNE_BENCHMARKS_QUALITY_MULTIOBJECTIVE_PROBLEMS_H_

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "hptune/core/search_space.h"

namespace hptune::quality {

struct MultiObjectiveProblem {
  // As the harness names it: "branin_currin", "zdt1", "zdt2", "dtlz2",
  // "constrained_branin".
  std::string name;
  SearchSpace space;  // DOUBLE parameters x1, x2, ..., linear scale.
  int objectives = 0;
  // Every objective is minimised.
  std::function<std::vector<double>(std::span<const double>)> evaluate;
  // Each constraint value must be <= 0 for a point to be feasible; empty
  // for an unconstrained problem.
  std::function<std::vector<double>(std::span<const double>)> constraints;
  // Hypervolume is measured against this point (in the objectives' own,
  // minimised, terms): worse than every Pareto-optimal point.
  std::vector<double> reference;
  // The hypervolume of the true Pareto front (for one objective: the
  // reference minus the constrained optimum).
  double optimal_hypervolume = 0;
};

// Branin-Currin on [0, 1]^2 (Belakaria et al., NeurIPS 2019; BoTorch's
// BraninCurrin): f1 = Branin(15 x1 - 5, 15 x2) (test_functions.h),
//   f2 = (1 - exp(-1 / (2 x2))) (2300 x1^3 + 1900 x1^2 + 2092 x1 + 60)
//        / (100 x1^3 + 500 x1^2 + 4 x1 + 20)
// (at x2 = 0 the first factor is its limit, 1). Reference (18, 6); front
// hypervolume 59.36011874867746, BoTorch's _max_hv, which it found with
// NSGA-II (a slight underestimate at most: no exact front is known).
std::vector<double> BraninCurrin(std::span<const double> x);

// ZDT1 and ZDT2 (Zitzler, Deb and Thiele, Evolutionary Computation 8(2),
// 2000) at n = 6 on [0, 1]^6: f1 = x1, g = 1 + 9 / (n - 1) sum_{i>=2} x_i,
//   ZDT1: f2 = g (1 - sqrt(f1 / g)),  ZDT2: f2 = g (1 - (f1 / g)^2).
// The front is g = 1: f2 = 1 - sqrt(f1) or 1 - f1^2. Reference (11, 11):
// hypervolume 120 + 2/3 and 120 + 1/3.
std::vector<double> Zdt1(std::span<const double> x);
std::vector<double> Zdt2(std::span<const double> x);

// DTLZ2 (Deb, Thiele, Laumanns and Zitzler, 2002) with 3 objectives at
// n = 6 on [0, 1]^6: g = sum_{i=3..6} (x_i - 1/2)^2,
//   f1 = (1 + g) cos(pi x1 / 2) cos(pi x2 / 2),
//   f2 = (1 + g) cos(pi x1 / 2) sin(pi x2 / 2),
//   f3 = (1 + g) sin(pi x1 / 2).
// The front is the positive octant of the unit sphere. Reference (1.1, 1.1,
// 1.1): hypervolume 1.1^3 - pi / 6.
std::vector<double> Dtlz2(std::span<const double> x);

// Branin on x1 in [-5, 10], x2 in [0, 15] subject to the disc
// (x1 - 2.5)^2 + (x2 - 7.5)^2 <= 50 (as BoTorch's ConstrainedBranin,
// after Gardner et al., ICML 2014). One of Branin's three minimisers,
// (pi, 2.275), lies inside it, so the constrained optimum is still
// 5 / (4 pi); the other two lie outside, as traps. Reference 310 (above
// Branin's maximum over the box, 308.13 at (-5, 0)).
double DiscConstraint(std::span<const double> x);

// The problems above, in that order.
const std::vector<MultiObjectiveProblem>& MultiObjectiveSuite();

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_MULTIOBJECTIVE_PROBLEMS_H_
