#include "hptune/core/pareto.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hptune {
namespace {

bool HasNan(const std::vector<double>& point) {
  return std::any_of(point.begin(), point.end(),
                     [](double v) { return std::isnan(v); });
}

}  // namespace

bool Dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] >= b[i])) return false;
    if (a[i] > b[i]) better = true;
  }
  return better;
}

absl::StatusOr<std::vector<size_t>> ParetoFront(
    const std::vector<std::vector<double>>& points) {
  if (points.empty()) return std::vector<size_t>{};
  const size_t k = points[0].size();
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].size() != k || k == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "point ", i, " has ", points[i].size(),
          " objectives; expected the same non-zero number as point 0 (", k,
          ")"));
    }
  }
  // Lexicographically descending order: a point can be dominated only by
  // one before it, and a dominated point's dominator is itself dominated by
  // a front point (or is one), so checking the front found so far is
  // enough: O(n log n + n |front| k).
  std::vector<size_t> order;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!HasNan(points[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return points[a] > points[b]; });
  std::vector<size_t> front;
  for (size_t i : order) {
    const bool dominated =
        std::any_of(front.begin(), front.end(),
                    [&](size_t f) { return Dominates(points[f], points[i]); });
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end());
  return front;
}

}  // namespace hptune
