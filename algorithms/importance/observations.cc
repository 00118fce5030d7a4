#include "algorithms/importance/observations.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/status/statusor.h"
#include "algorithms/importance/grid_density.h"

namespace hptune::algorithms {
namespace {

// Appends the grid points of `trial`'s values to seen.points; false (and
// nothing appended) when they do not fit the space: a parameter outside it,
// missing an active one, or with one its values leave inactive.
bool AppendPoints(const SearchSpace& space, const Trial& trial,
                  const std::vector<ParameterGrid>& grids, Observations& seen) {
  const auto& parameters = space.parameters();
  const size_t row = seen.points.size();
  const std::vector<bool> active = space.ActiveMask(trial.parameters);
  for (size_t d = 0; d < parameters.size(); ++d) {
    auto value = trial.parameters.find(parameters[d].name);
    bool feasible;
    if (!active[d]) {
      // An inactive parameter has no value; one that has is not ours.
      feasible = value == trial.parameters.end();
      seen.points.push_back(Observations::kInactive);
    } else {
      absl::StatusOr<int> point = value == trial.parameters.end()
                                      ? absl::InvalidArgumentError("missing")
                                      : grids[d].PointOf(value->second);
      feasible = point.ok();
      if (feasible) seen.points.push_back(*point);
    }
    if (!feasible) {
      seen.points.resize(row);
      return false;
    }
  }
  return true;
}

// Parameter d's weighted counts per grid point over a sample, in all of it
// and in its top set, with n_d and n_d_top: the copies where d is active.
struct Counts {
  std::vector<double> all, top;
  double n_d = 0, n_d_top = 0;
};

// The share of parameter d before normalising: D_d over the copies where d
// is active, times (n_d / n) (gamma'_d / gamma')^2 (1 for a parameter
// active in every copy).
double PedAnovaShare(const Counts& counts, double n, double n_top,
                     const ParameterGrid& grid, double prior_weight) {
  // Under 2 copies (or no top one) where d is active, nothing is known of it.
  if (counts.n_d < 2 || counts.n_d_top == 0) return 0;
  const auto density =
      grid.ordered() ? OrderedParzenDensity : CategoricalParzenDensity;
  const double divergence = PearsonDivergence(
      density(counts.top, prior_weight), density(counts.all, prior_weight));
  if (counts.n_d == n) return divergence;
  const double local_gamma = counts.n_d_top / counts.n_d, gamma = n_top / n;
  return (counts.n_d / n) * (local_gamma / gamma) * (local_gamma / gamma) *
         divergence;
}

}  // namespace

Observations Observe(const Problem& problem, const std::vector<Trial>& trials,
                     const std::vector<ParameterGrid>& grids) {
  Observations seen;
  seen.parameters = problem.search_space.parameters().size();
  seen.points.reserve(trials.size() * seen.parameters);
  seen.losses.reserve(trials.size());
  for (const Trial& trial : trials) {
    if (trial.state != TrialState::kSucceeded) continue;
    const std::optional<double> objective =
        trial.FinalObjective(problem.metric_tag());
    if (!objective || !std::isfinite(*objective)) continue;
    // The store checks assignments, so a misfit is a trial from elsewhere.
    if (!AppendPoints(problem.search_space, trial, grids, seen)) continue;
    seen.losses.push_back(problem.goal() == Goal::kMinimize ? *objective
                                                            : -*objective);
  }
  seen.by_loss.resize(seen.size());
  for (size_t i = 0; i < seen.size(); ++i) seen.by_loss[i] = i;
  std::stable_sort(
      seen.by_loss.begin(), seen.by_loss.end(),
      [&](size_t a, size_t b) { return seen.losses[a] < seen.losses[b]; });
  return seen;
}

std::vector<bool> TopTrials(const Observations& seen,
                            std::span<const double> weights, double quantile,
                            int min_top) {
  double n = 0;
  for (double w : weights) n += w;
  const double floor = std::min<double>(min_top, std::ceil(n / 2));
  const double k = std::min(n, std::max(std::ceil(quantile * n), floor));
  // The loss of the k-th best copy, walking the trials best first.
  double threshold = 0, copies = 0;
  for (size_t i : seen.by_loss) {
    copies += weights[i];
    threshold = seen.losses[i];
    if (copies >= k) break;
  }
  std::vector<bool> top(seen.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    top[i] = seen.losses[i] <= threshold;
  }
  return top;
}

std::vector<double> NormalisedShares(const Observations& seen,
                                     std::span<const double> weights,
                                     const std::vector<bool>& top,
                                     const std::vector<ParameterGrid>& grids,
                                     double prior_weight,
                                     std::vector<int64_t>* active_trials) {
  std::vector<Counts> counts(seen.parameters);
  for (size_t d = 0; d < seen.parameters; ++d) {
    counts[d].all.assign(grids[d].size(), 0.0);
    counts[d].top.assign(grids[d].size(), 0.0);
  }
  // One pass over the trials, each trial's points read together.
  double n = 0, n_top = 0;
  for (size_t i = 0; i < seen.size(); ++i) {
    const double w = weights[i];
    if (w == 0) continue;
    n += w;
    n_top += top[i] ? w : 0;
    for (size_t d = 0; d < seen.parameters; ++d) {
      const int point = seen.point(i, d);
      if (point == Observations::kInactive) continue;
      Counts& c = counts[d];
      c.n_d += w;
      c.all[point] += w;
      if (top[i]) {
        c.n_d_top += w;
        c.top[point] += w;
      }
    }
  }
  std::vector<double> shares(seen.parameters, 0.0);
  double total = 0;
  for (size_t d = 0; d < seen.parameters; ++d) {
    if (active_trials != nullptr) {
      (*active_trials)[d] = static_cast<int64_t>(counts[d].n_d);
    }
    // A parameter with one value cannot matter.
    if (grids[d].size() < 2) continue;
    shares[d] = PedAnovaShare(counts[d], n, n_top, grids[d], prior_weight);
    total += shares[d];
  }
  for (double& share : shares) share = total > 0 ? share / total : 0;
  return shares;
}

}  // namespace hptune::algorithms
