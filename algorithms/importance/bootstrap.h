// Bootstrap intervals on PED-ANOVA importances (ped_anova.h): how much each
// importance moves when the study's trials are drawn again.
//
// The method (Efron and Tibshirani, "An Introduction to the Bootstrap",
// 1993, ch. 13, the percentile interval). Draw B samples of the n usable
// trials with replacement; in each, choose the top set again (TopTrials)
// and compute every parameter's normalised importance as for the estimate.
// A parameter's interval is the 5th to 95th percentile of its B values
// (linear interpolation between order statistics: Hyndman and Fan's type
// 7), widened to hold the estimate itself where it falls outside: the
// resampled top sets repeat trials, which biases a small importance up, and
// an interval that leaves out the number shown beside it would mislead.
// The draws come from SplitMix64 (common/splitmix64.h) seeded with
// ImportanceOptions::bootstrap_seed, NextBelow(n) per index, so the same
// trials always give the same intervals, on every platform.
//
// A resample is kept as counts (trial i drawn w_i times), which the top
// set and the densities weigh by: one pass over the trials per resample,
// O(B (n P + P G^2)) in all for P parameters on grids of G points.
//
// Used by PedAnovaImportanceReport only. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_BOOTSTRAP_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_BOOTSTRAP_H_

#include <span>
#include <utility>
#include <vector>

#include "hptune/algorithms/importance.h"
#include "algorithms/importance/observations.h"
#include "algorithms/importance/parameter_grid.h"

namespace hptune::algorithms {

// How many resamples a study of n usable trials gets: options.
// bootstrap_resamples, but no more than 2,000,000 trial draws in all (n B)
// and no fewer than 25 for that: 200 up to 10,000 trials, 25 from 80,000,
// whose intervals are narrow anyway. Keeps the dashboard's answer for a
// large study near the point estimate's cost (benchmarks/RESULTS.md).
int ResampleCount(size_t n, const ImportanceOptions& options);

// Percentile p in [0, 1] of `values` (not empty), type 7: the order
// statistics x_(1) <= ... <= x_(m) interpolated at h = (m - 1) p.
double Percentile(std::vector<double> values, double p);

// The interval [lower, upper] of each parameter (in the order of
// seen.parameters) around `estimates`, from ResampleCount(seen.size(),
// options) resamples of `seen` (at least 2 observations). With 0 resamples
// each interval is the estimate alone.
std::vector<std::pair<double, double>> BootstrapIntervals(
    const Observations& seen, const std::vector<ParameterGrid>& grids,
    std::span<const double> estimates, const ImportanceOptions& options);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_BOOTSTRAP_H_
