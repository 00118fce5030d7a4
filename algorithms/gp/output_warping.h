// Output warping: raw objective values (oriented so that higher is better)
// to the standardised targets the GP designer's model is fitted to.
//
// Objectives in hyperparameter tuning are skewed and have outliers (a
// diverged run, a loss of 1e30), which would wreck a GP fitted to the raw
// values: one outlier sets the scale and flattens everything else. The
// pipeline, after OSS Vizier's default output warper (Song et al., "The
// Vizier Gaussian Process Bandit Algorithm", arXiv:2408.11527, 2024,
// section 3.2; vizier/_algorithms/designers/gp/output_warpers.py):
//  1. Divide by max |y| (scale-free from here on; 1e300 cannot overflow).
//  2. Half-rank warping: values at or above the median m keep their value;
//     a value below it with dense rank k (1 = worst) among the U distinct
//     values, of which M lie below the median, becomes
//       m + s * PhiInverse(0.5 * (k - 0.5) / (M + [m is a value] / 2)),
//     s = sqrt(mean over distinct good values v >= m of (v - m)^2).
//     The bad half becomes the lower half of a normal with the good half's
//     spread: order is kept, outliers below the median lose their leverage,
//     the good half (where the optimum is) keeps its shape.
//  3. Log warping: y <- 0.5 - log1p((max - y) / (max - min) * (c - 1)) /
//     log(c), c = 1.5: maps [min, max] onto [-0.5, 0.5], stretching
//     differences near the best value (a mild version of modelling log
//     regret).
//  4. Standardise to mean 0, variance 1.
// Fewer than two distinct values: all targets 0 (the model is then flat and
// the designer explores by variance alone). Pure function; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_OUTPUT_WARPING_H_
#define HPTUNE_ALGORITHMS_GP_OUTPUT_WARPING_H_

#include <span>
#include <vector>

namespace hptune::algorithms::gp {

// `values` must be finite (the designer drops the rest first).
std::vector<double> WarpObjectives(std::span<const double> values);

// Phi^-1(p) for p in (0, 1): the standard normal quantile (Acklam's rational
// approximation refined by one Halley step, relative error below 1e-13).
double NormalQuantile(double p);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_OUTPUT_WARPING_H_
