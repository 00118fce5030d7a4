// The GP designer's model hyperparameters, their packed form and their prior.
//
// Packed vector theta (the space the MAP fit works in), D = number of
// features:
//   theta = [log l_1 .. log l_D, log s2, log noise, mean]
// l_i: kernel lengthscales (gp/matern_kernel.h), s2: signal variance, noise:
// observation noise variance, mean: the GP's constant prior mean. Targets are
// warped and standardised (gp/output_warping.h), so the scales below are
// those of unit-variance data.
// Prior, independent per coordinate, each a normal in theta:
//   log l_i ~ N(mu_D - 3 + c_i, 3), mu_D = sqrt2 + log(D) / 2.
//     The MAP objective of Hvarfner, Hellsten & Nardi, "Vanilla Bayesian
//     Optimization Performs Great in High Dimensions" (ICML 2024), as
//     BoTorch evaluates it: a LogNormal(mu_D, sqrt3) density of l, whose
//     -log l term moves the mode in log space to mu_D - sigma^2. Lengthscales
//     growing like sqrt(D) keep the model's prior complexity roughly constant
//     as dimensions are added, which is what lets a plain GP work in 20-D.
//     c_i = 0 for a continuous feature. A categorical feature with K values
//     differs from another point's with probability 1 - 1/K and then adds
//     1 / l^2 to r^2, against an average 1 / (6 l^2) for a uniform
//     continuous coordinate; c_i = log(6 (1 - 1/K)) / 2 puts both on the
//     same footing, so that a priori two categories are as alike as two
//     random values of a continuous parameter (and the model can carry what
//     it learned in one category to the others until data say otherwise).
//   log s2 ~ N(0, 1): the signal variance of standardised data is near 1.
//   log noise ~ N(-5, 1): BoTorch's LogNormal(-4, 1) noise prior, read the
//     same way; small noise unless the data say otherwise. Noise-free
//     functions leave the fit at this mode; N(-9, 1) improved their
//     sequential runs far more than their parallel ones (Levy-4's parallel
//     ratio 1.9x -> 14x) and was no better on noisy ones
//     (benchmarks/RESULTS.md, 40 seeds).
//   mean ~ N(0, 0.1^2): near the average of the standardised targets. A
//     freely learned constant mean settles at the value of the isolated (and
//     mostly bad) points once sampling clusters around the optimum, which
//     makes everything unexplored look bad: on the quality suite (10 seeds,
//     100 trials, all else equal) that kept the search in one category or
//     basin (median regret on the mixed-type function 0.5 instead of 8e-4,
//     on Levy-4 3.6 instead of 0.18).
// Bounds (box of the fit): l in [0.025, 1000] (BoTorch's lower bound 0.025
// keeps the model from interpolating with spikes; shifted by c_i too), s2 in
// [0.01, 100], noise in [1e-6, 2] (the floor keeps the kernel matrix
// invertible for noise-free objectives and duplicate points), mean in
// [-5, 5]. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_HYPERPARAMETERS_H_
#define HPTUNE_ALGORITHMS_GP_HYPERPARAMETERS_H_

#include <span>
#include <vector>

#include "algorithms/encoding/gp_features.h"

namespace hptune::algorithms::gp {

// Positions in theta for `dimension` features.
inline int SignalIndex(int dimension) { return dimension; }
inline int NoiseIndex(int dimension) { return dimension + 1; }
inline int MeanIndex(int dimension) { return dimension + 2; }
inline int PackedSize(int dimension) { return dimension + 3; }

struct HyperparameterPrior {
  std::vector<double> mean;      // Of each theta coordinate's normal.
  std::vector<double> variance;  // Of each theta coordinate's normal.
  std::vector<double> lower;     // Box of the fit.
  std::vector<double> upper;

  // log p(theta) (normalised), and its gradient added to `gradient` when
  // that is not empty.
  double LogDensity(std::span<const double> theta,
                    std::span<double> gradient) const;
  // The prior's mode, clamped to the box: the fit's default start.
  std::vector<double> Mode() const;
};

// The prior above for these features.
HyperparameterPrior MakePrior(std::span<const Feature> features);
// The same for `dimension` continuous features.
HyperparameterPrior MakePrior(int dimension);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_HYPERPARAMETERS_H_
