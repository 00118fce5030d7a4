#include "algorithms/importance/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hptune/core/check.h"
#include "algorithms/common/splitmix64.h"

namespace hptune::algorithms {
namespace {

// The 5th to 95th percentile: a 90% interval.
constexpr double kLowerPercentile = 0.05;
constexpr double kUpperPercentile = 0.95;
constexpr double kMaxDraws = 2'000'000;
constexpr int kMinCappedResamples = 25;

}  // namespace

int ResampleCount(size_t n, const ImportanceOptions& options) {
  const double within_budget = std::floor(kMaxDraws / std::max<double>(n, 1));
  const double capped = std::max<double>(kMinCappedResamples, within_budget);
  return static_cast<int>(
      std::min<double>(options.bootstrap_resamples, capped));
}

double Percentile(std::vector<double> values, double p) {
  HPTUNE_CHECK(!values.empty(), "Percentile of no values");
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * p;
  const auto below = static_cast<size_t>(std::floor(h));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] +
         (h - static_cast<double>(below)) * (values[above] - values[below]);
}

std::vector<std::pair<double, double>> BootstrapIntervals(
    const Observations& seen, const std::vector<ParameterGrid>& grids,
    std::span<const double> estimates, const ImportanceOptions& options) {
  const size_t n = seen.size();
  HPTUNE_CHECK(n >= 2, "BootstrapIntervals needs 2 observations");
  const auto resamples = static_cast<size_t>(ResampleCount(n, options));
  // draws[d][b]: parameter d's importance in resample b.
  std::vector<std::vector<double>> draws(seen.parameters);
  for (auto& values : draws) values.reserve(resamples);
  SplitMix64 random(options.bootstrap_seed);
  // weights[i]: how many times resample b drew trial i.
  std::vector<double> weights(n);
  for (size_t b = 0; b < resamples; ++b) {
    std::fill(weights.begin(), weights.end(), 0.0);
    for (size_t i = 0; i < n; ++i) weights[random.NextBelow(n)] += 1;
    const std::vector<bool> top =
        TopTrials(seen, weights, options.top_quantile, options.min_top_trials);
    const std::vector<double> shares = NormalisedShares(
        seen, weights, top, grids, options.prior_weight, nullptr);
    for (size_t d = 0; d < seen.parameters; ++d) draws[d].push_back(shares[d]);
  }
  std::vector<std::pair<double, double>> intervals;
  for (size_t d = 0; d < seen.parameters; ++d) {
    const double estimate = estimates[d];
    if (resamples == 0) {
      intervals.emplace_back(estimate, estimate);
      continue;
    }
    intervals.emplace_back(
        std::min(estimate, Percentile(draws[d], kLowerPercentile)),
        std::max(estimate, Percentile(draws[d], kUpperPercentile)));
  }
  return intervals;
}

}  // namespace hptune::algorithms
