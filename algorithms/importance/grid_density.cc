#include "algorithms/importance/grid_density.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

#include "hptune/core/check.h"

namespace hptune::algorithms {
namespace {

// Optuna's floor on the bandwidth: 1.64 sigma (90% of a Gaussian) fits in
// half a grid cell either side, so a kernel never vanishes between points.
constexpr double kMinBandwidth = 0.5 / 1.64;
constexpr double kDensityFloor = 1e-12;

// Upper tail P(Z > x) of the standard normal, accurate far into the tail.
double UpperTail(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }

// P(a < Z < b) for a <= b, from the tail that keeps its precision.
double GaussMass(double a, double b) {
  if (a >= 0) return UpperTail(a) - UpperTail(b);
  if (b <= 0) return UpperTail(-b) - UpperTail(-a);
  return 1 - UpperTail(b) - UpperTail(-a);
}

// Mass of N(mu, sigma) on the cell [j - 1/2, j + 1/2] of each grid point j,
// normalised over the grid: a truncated Gaussian as a mass function.
std::vector<double> CellMasses(int size, double mu, double sigma) {
  std::vector<double> mass(size);
  double total = 0;
  for (int j = 0; j < size; ++j) {
    mass[j] = GaussMass((j - 0.5 - mu) / sigma, (j + 0.5 - mu) / sigma);
    total += mass[j];
  }
  for (double& m : mass) m /= total;
  return mass;
}

}  // namespace

double ScottBandwidth(std::span<const double> counts) {
  double n = 0, sum = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    n += counts[k];
    sum += counts[k] * static_cast<double>(k);
  }
  HPTUNE_CHECK(n > 0, "ScottBandwidth needs at least one observation");
  const double mean = sum / n;
  double squares = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const double deviation = static_cast<double>(k) - mean;
    squares += counts[k] * deviation * deviation;
  }
  const double stddev = std::sqrt(squares / std::max(1.0, n - 1));

  // Optuna's quartiles: searchsorted over the running count of the occupied
  // points, side "left" for the first and "right" for the third.
  const double q1_count = std::floor(n / 4), q3_count = std::floor(n * 3 / 4);
  int q1 = -1, q3 = -1, last = 0;
  double running = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] <= 0) continue;
    running += counts[k];
    last = static_cast<int>(k);
    if (q1 < 0 && running >= q1_count) q1 = last;
    if (q3 < 0 && running > q3_count) q3 = last;
  }
  if (q3 < 0) q3 = last;
  const double iqr = q3 - q1;

  const double scott = 1.059 * std::min(iqr / 1.34, stddev) * std::pow(n, -0.2);
  return std::max(scott, kMinBandwidth);
}

std::vector<double> OrderedParzenDensity(std::span<const double> counts,
                                         double prior_weight) {
  const int size = static_cast<int>(counts.size());
  const std::vector<double> prior =
      CellMasses(size, 0.5 * (size - 1), static_cast<double>(size));
  double n = 0;
  for (double c : counts) n += c;
  if (n <= 0) return prior;

  // Every kernel has the same bandwidth and sits on a grid point, so the
  // untruncated cell masses depend only on the offset j - k: one table.
  const double sigma = ScottBandwidth(counts);
  std::vector<double> offset_mass(2 * size - 1);  // offset d at d + size - 1
  for (int d = -(size - 1); d <= size - 1; ++d) {
    offset_mass[d + size - 1] = GaussMass((d - 0.5) / sigma, (d + 0.5) / sigma);
  }

  std::vector<double> density(size, 0.0);
  for (int k = 0; k < size; ++k) {
    if (counts[k] <= 0) continue;
    // The kernel at k is truncated to the grid: divide by its mass there.
    const double* mass = &offset_mass[size - 1 - k];  // mass[j] = offset j-k
    double on_grid = 0;
    for (int j = 0; j < size; ++j) on_grid += mass[j];
    const double weight = counts[k] / on_grid;
    for (int j = 0; j < size; ++j) density[j] += weight * mass[j];
  }
  const double total = n + prior_weight;
  for (int j = 0; j < size; ++j) {
    density[j] = (density[j] + prior_weight * prior[j]) / total;
  }
  return density;
}

std::vector<double> CategoricalParzenDensity(std::span<const double> counts,
                                             double prior_weight) {
  const auto size = static_cast<double>(counts.size());
  double n = 0;
  for (double c : counts) n += c;
  std::vector<double> density(counts.size(), 1.0 / size);
  if (n <= 0) return density;
  // Each observation's kernel: 1 on its category plus `spread` on all,
  // divided by 1 + size * spread; summed over the n observations. TPE's
  // spread is prior_weight / (kernels + 1) with a kernel per trial; Optuna's
  // PED-ANOVA counts a kernel per occupied category instead, which keeps a
  // category's share below 1 / (1 + size * prior_weight / 2) when all the
  // trials chose it, however many they are (0.6 of 3 categories).
  const double spread = prior_weight / (n + 1);
  const double kernel_total = 1 + size * spread;
  for (size_t j = 0; j < counts.size(); ++j) {
    density[j] =
        ((n * spread + counts[j]) / kernel_total + prior_weight / size) /
        (n + prior_weight);
  }
  return density;
}

double PearsonDivergence(std::span<const double> p, std::span<const double> q) {
  HPTUNE_CHECK(p.size() == q.size(), "densities on different grids");
  double divergence = 0;
  for (size_t j = 0; j < p.size(); ++j) {
    // q (p/q - 1)^2, written as (p - q)^2 / q to keep its precision.
    const double difference = p[j] - q[j];
    divergence += difference * difference / (q[j] + kDensityFloor);
  }
  return divergence;
}

}  // namespace hptune::algorithms
