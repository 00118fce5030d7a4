// The exact star discrepancy of a 2-D point set, for the quasi-random tests.
//
// D*_N = sup over anchored boxes B = [0, x) x [0, y) of |#(points in B) / N -
// x y|. The supremum is approached at boxes whose corners take coordinates
// of the points (or 1), counting points on the boundary either in (closed
// box: count / N - x y) or out (open box: x y - count / N), so checking those
// (N + 1)^2 corners twice is exact (e.g. Niederreiter, "Random Number
// Generation and Quasi-Monte Carlo Methods", SIAM 1992, section 2.1).
// O(N^3): fine for the few hundred points a test uses.
#ifndef HPTUNE_TESTS_ALGORITHMS_STAR_DISCREPANCY_H_
#define HPTUNE_TESTS_ALGORITHMS_STAR_DISCREPANCY_H_

#include <algorithm>
#include <array>
#include <vector>

namespace hptune::algorithms::testing {

inline double StarDiscrepancy2d(const std::vector<std::array<double, 2>>& p) {
  const double n = static_cast<double>(p.size());
  std::vector<double> xs = {1.0}, ys = {1.0};
  for (const auto& point : p) {
    xs.push_back(point[0]);
    ys.push_back(point[1]);
  }
  double worst = 0;
  for (double x : xs) {
    for (double y : ys) {
      int closed = 0, open = 0;
      for (const auto& point : p) {
        closed += point[0] <= x && point[1] <= y;
        open += point[0] < x && point[1] < y;
      }
      worst = std::max({worst, closed / n - x * y, x * y - open / n});
    }
  }
  return worst;
}

}  // namespace hptune::algorithms::testing

#endif  // HPTUNE_TESTS_ALGORITHMS_STAR_DISCREPANCY_H_
