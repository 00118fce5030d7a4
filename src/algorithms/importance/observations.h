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
#include "src/algorithms/importance/parameter_grid.h"

namespace hptune::algorithms {

// The usable trials, as grid points and losses (lower is better).
struct Observations {
  size_t parameters = 0;
  // Trial i's point of parameter d at i * parameters + d; kInactive where d
  // is a conditional parameter that the trial's values leave inactive.
  std::vector<int> points;
  std::vector<double> losses;

  static constexpr int kInactive = -1;
  size_t size() const { return losses.size(); }
  int point(size_t trial, size_t d) const {
    return points[trial * parameters + d];
  }
};

// The trials of `trials` that PED-ANOVA uses (importance.h says which).
Observations Observe(const StudySpec& spec, const std::vector<Trial>& trials,
                     const std::vector<ParameterGrid>& grids);

// Whether each trial is in the top set: loss at most the k-th smallest,
// k = max(ceil(quantile n), min(min_top, ceil(n / 2))), so ties at the
// cut-off all count. n = losses.size() >= 1.
std::vector<bool> TopTrials(std::span<const double> losses, double quantile,
                            int min_top);

// The importance of each parameter (ped_anova.h), normalised to sum to 1
// (all 0 when every share is 0), of the trials `rows` of `seen` (indices,
// repeats allowed, at least 2) with `top` saying which of the rows are in
// the top set. `active_trials`, when not null, gets each parameter's n_d.
std::vector<double> NormalisedShares(const Observations& seen,
                                     std::span<const size_t> rows,
                                     const std::vector<bool>& top,
                                     const std::vector<ParameterGrid>& grids,
                                     double prior_weight,
                                     std::vector<int64_t>* active_trials);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_OBSERVATIONS_H_
