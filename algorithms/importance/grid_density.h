// The 1-D Parzen estimators of PED-ANOVA (ped_anova.h, "The densities") on
// a parameter's grid, built from how many trials fall on each grid point,
// and the Pearson divergence between two of them.
//
// Used by PedAnovaImportance only. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_GRID_DENSITY_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_GRID_DENSITY_H_

#include <span>
#include <vector>

namespace hptune::algorithms {

// Scott's rule on the grid index, weighted by `counts` (Optuna's
// ScottParzenEstimator): 1.059 min(IQR / 1.34, std) n^(-1/5), at least
// 0.5 / 1.64. The quartiles are the occupied points where the running count
// first reaches floor(n/4) and first passes floor(3n/4), as Optuna finds
// them. `counts` must not be all 0.
double ScottBandwidth(std::span<const double> counts);

// The probability of each grid point under a mixture of truncated,
// cell-integrated Gaussians: one per grid point with weight counts[k] and
// sigma ScottBandwidth(counts), plus one of weight prior_weight at the middle
// with sigma = counts.size(). Sums to 1. All-zero counts give the prior alone.
std::vector<double> OrderedParzenDensity(std::span<const double> counts,
                                         double prior_weight);

// The probability of each category under Optuna's TPE categorical kernels:
// a category with count c contributes c kernels, each 1 on it plus
// prior_weight / (n + 1) on every category (n observations), each
// normalised; the prior kernel (weight prior_weight) is uniform. Sums to 1.
// (Optuna's PED-ANOVA divides by the number of occupied categories + 1
// instead: see ped_anova.h.)
std::vector<double> CategoricalParzenDensity(std::span<const double> counts,
                                             double prior_weight);

// sum_j q(j) (p(j) / q(j) - 1)^2 with 1e-12 added to each p(j) and q(j), so
// the ratio is finite where q vanishes. p and q have the same size.
double PearsonDivergence(std::span<const double> p, std::span<const double> q);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_GRID_DENSITY_H_
