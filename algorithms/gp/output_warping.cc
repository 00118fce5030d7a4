#include "algorithms/gp/output_warping.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hptune::algorithms::gp {
namespace {

// Log warping's c (Vizier's LogWarperComponent offset).
constexpr double kLogWarpOffset = 1.5;

// Step 2 of the header, in place.
void HalfRankWarp(std::vector<double>& y) {
  std::vector<double> sorted = y;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median =
      n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  std::vector<double> unique = sorted;
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  // M: distinct values below the median.
  const auto below = static_cast<size_t>(
      std::lower_bound(unique.begin(), unique.end(), median) - unique.begin());
  if (below == 0) return;
  const double denominator =
      static_cast<double>(below) + (unique[below] == median ? 0.5 : 0.0);
  double sum_squares = 0;
  for (size_t i = below; i < unique.size(); ++i) {
    sum_squares += (unique[i] - median) * (unique[i] - median);
  }
  double spread =
      std::sqrt(sum_squares / static_cast<double>(unique.size() - below));
  if (!(spread > 0)) {
    // The good half is one value: use the spread of all distinct values.
    sum_squares = 0;
    for (double v : unique) sum_squares += (v - median) * (v - median);
    spread = std::sqrt(sum_squares / static_cast<double>(unique.size()));
  }
  for (double& v : y) {
    if (!(v < median)) continue;
    // Dense rank, 1 for the worst distinct value.
    const auto rank = static_cast<double>(
        std::lower_bound(unique.begin(), unique.end(), v) - unique.begin() + 1);
    v = median + spread * NormalQuantile(0.5 * (rank - 0.5) / denominator);
  }
}

}  // namespace

double NormalQuantile(double p) {
  if (!(p > 0)) return -INFINITY;
  if (!(p < 1)) return INFINITY;
  // P. J. Acklam's algorithm (2003): rational approximations in a central
  // region and two tails, relative error 1.15e-9, refined below.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow || p > 1 - kLow) {
    const double q = std::sqrt(-2 * std::log(p < kLow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - kLow) x = -x;
  } else {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Halley step on Phi(x) - p = 0 with Phi(x) = erfc(-x / sqrt2) / 2.
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

std::vector<double> WarpObjectives(std::span<const double> values) {
  std::vector<double> y(values.begin(), values.end());
  if (y.empty()) return y;
  double scale = 0;
  for (double v : y) scale = std::max(scale, std::fabs(v));
  const auto [min_it, max_it] = std::minmax_element(y.begin(), y.end());
  if (!(*min_it < *max_it) || !(scale > 0)) {
    std::fill(y.begin(), y.end(), 0.0);
    return y;
  }
  for (double& v : y) v /= scale;

  HalfRankWarp(y);

  const auto [lo_it, hi_it] = std::minmax_element(y.begin(), y.end());
  const double lo = *lo_it;
  const double hi = *hi_it;
  if (hi > lo) {
    for (double& v : y) {
      v = 0.5 - std::log1p((hi - v) / (hi - lo) * (kLogWarpOffset - 1)) /
                    std::log(kLogWarpOffset);
    }
  }

  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double variance = 0;
  for (double v : y) variance += (v - mean) * (v - mean);
  variance /= static_cast<double>(y.size());
  const double sd = std::sqrt(variance);
  for (double& v : y) v = sd > 0 ? (v - mean) / sd : 0.0;
  return y;
}

}  // namespace hptune::algorithms::gp
