#include "algorithms/multiobjective/pareto.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::algorithms {
namespace {

constexpr size_t kMaxObjectives = 8;

// The hypervolume of `points` over their first `k` objectives, every point
// already better than `reference` in each of them.
double SliceVolume(std::vector<const std::vector<double>*> points,
                   const std::vector<double>& reference, size_t k) {
  if (points.empty()) return 0;
  const size_t last = k - 1;
  if (k == 1) {
    double best = reference[0];
    for (const auto* p : points) best = std::max(best, (*p)[0]);
    return best - reference[0];
  }
  // Best first along the last objective: the slab between the i-th and the
  // next value is covered by the first i + 1 points.
  std::sort(points.begin(), points.end(), [last](const auto* a, const auto* b) {
    return (*a)[last] > (*b)[last];
  });
  double volume = 0;
  double best_first = reference[0];  // For k == 2: over the first i + 1.
  for (size_t i = 0; i < points.size(); ++i) {
    best_first = std::max(best_first, (*points[i])[0]);
    const double top = (*points[i])[last];
    const double bottom =
        i + 1 < points.size() ? (*points[i + 1])[last] : reference[last];
    if (top == bottom) continue;  // Equal values share the next slab.
    if (k == 2) {
      volume += (best_first - reference[0]) * (top - bottom);
    } else {
      std::vector<const std::vector<double>*> reaching(
          points.begin(), points.begin() + static_cast<long>(i) + 1);
      volume +=
          SliceVolume(std::move(reaching), reference, k - 1) * (top - bottom);
    }
  }
  return volume;
}

}  // namespace

absl::StatusOr<double> Hypervolume(
    const std::vector<std::vector<double>>& points,
    const std::vector<double>& reference) {
  const size_t k = reference.size();
  if (k == 0 || k > kMaxObjectives) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reference: ", k, " objectives; expected 1 to ", kMaxObjectives));
  }
  for (double v : reference) {
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("reference: ", v, " is not finite"));
    }
  }
  std::vector<const std::vector<double>*> beyond;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::vector<double>& p = points[i];
    if (p.size() != k) {
      return absl::InvalidArgumentError(
          absl::StrCat("point ", i, " has ", p.size(),
                       " objectives; the reference has ", k));
    }
    bool better = true;
    for (size_t d = 0; d < k; ++d) {
      if (!std::isfinite(p[d])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "point ", i, ": objective ", d, " is ", p[d], ", not finite"));
      }
      better = better && p[d] > reference[d];
    }
    if (better) beyond.push_back(&p);
  }
  return SliceVolume(std::move(beyond), reference, k);
}

}  // namespace hptune::algorithms
