// Which points of a long series a plot gets, so a 100,000-trial study's
// plots stay fast in a browser while showing what matters. Used by the
// dashboard's history, points and curves answers. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_THINNING_H_
#define HPTUNE_SRC_DASHBOARD_THINNING_H_

#include <cstddef>
#include <vector>

namespace hptune::dashboard {

// The points a plot of trials gets unless its request asks for more
// (max_points): enough to show a study's shape at a plot's width, few
// enough that a browser on a busy 2-core machine draws a tab in well under
// half a second (benchmarks/RESULTS.md, the dashboard at 100,000 trials).
inline constexpr size_t kPlotPoints = 3000;

// Indices into a history (values in trial order, `best[i]` the best so far
// at i), increasing, at most about `max_points`: every index where the best
// changed, the smallest and largest value, and an even spread of the rest.
// All of them when there are at most `max_points`.
std::vector<size_t> ThinHistory(const std::vector<double>& values,
                                const std::vector<double>& best,
                                size_t max_points);

// Indices of at most `max_points` of `values`: the best tenth of the budget's
// worth first (largest when `maximize`), then an even spread of the rest.
// Increasing. All of them when there are at most `max_points`.
std::vector<size_t> SampleBestAndSpread(const std::vector<double>& values,
                                        bool maximize, size_t max_points);

// At most `max_points` indices of 0..n-1, evenly spread, keeping the first
// and the last.
std::vector<size_t> EvenlySpread(size_t n, size_t max_points);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_THINNING_H_
