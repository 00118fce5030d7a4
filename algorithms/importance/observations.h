// The usable trials of a study as PED-ANOVA (ped_anova.h) reads them, each
// parameter's value as its grid point, and the computation of the
// normalised importances from them, shared by the point estimate and the
// bootstrap (bootstrap.h).
//
// Used by PedAnovaImportanceReport only. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_OBSERVATIONS_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_OBSERVATIONS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "algorithms/importance/parameter_grid.h"

namespace hptune::algorithms {

// The usable trials, as grid points and losses (lower is better).
struct Observations {
  size_t parameters = 0;
  // Trial i's point of parameter d at i * parameters + d; kInactive where d
  // is a conditional parameter that the trial's values leave inactive.
  std::vector<int> points;
  std::vector<double> losses;
  // The trials' indices, best (lowest loss) first.
  std::vector<size_t> by_loss;

  static constexpr int kInactive = -1;
  size_t size() const { return losses.size(); }
  int point(size_t trial, size_t d) const {
    return points[trial * parameters + d];
  }
};

// The trials of `trials` that PED-ANOVA uses (importance.h says which).
Observations Observe(const Problem& problem, const std::vector<Trial>& trials,
                     const std::vector<ParameterGrid>& grids);

// A sample of the trials: weights[i] copies of trial i (all 1 for the
// trials themselves; a bootstrap resample's counts, bootstrap.h), summing
// to n >= 1. Whether each trial is in the top set of the sample: loss at
// most that of the k-th best copy, k = max(ceil(quantile n), min(min_top,
// ceil(n / 2))), so ties at the cut-off all count. Meaningless where
// weights[i] is 0.
std::vector<bool> TopTrials(const Observations& seen,
                            std::span<const double> weights, double quantile,
                            int min_top);

// The importance of each parameter (ped_anova.h) in the sample `weights`
// (above, n >= 2), normalised to sum to 1 (all 0 when every share is 0),
// with `top` from TopTrials. `active_trials`, when not null, gets each
// parameter's n_d.
std::vector<double> NormalisedShares(const Observations& seen,
                                     std::span<const double> weights,
                                     const std::vector<bool>& top,
                                     const std::vector<ParameterGrid>& grids,
                                     double prior_weight,
                                     std::vector<int64_t>* active_trials);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_OBSERVATIONS_H_
