// The GP designer's hyperparameter objective: log marginal likelihood plus
// log prior, with its analytic gradient in the packed space of
// gp/hyperparameters.h.
//
// For n points X (GP features), targets y and theta = [log l, log s2,
// log noise, mean], with K the Matérn kernel matrix (gp/matern_kernel.h),
// A = K + (noise + jitter) I and r = y - mean:
//   log p(y | theta) = -r^T A^-1 r / 2 - log det(A) / 2 - n log(2 pi) / 2
//   d/d theta_j      = tr((alpha alpha^T - A^-1) dA/d theta_j) / 2,
//                      alpha = A^-1 r
// (Rasmussen & Williams 2006, eqs. 5.8 and 5.9), with
//   dA/d log l_i   = g(r_ab) d_i(a, b)   (kernel slope times feature term),
//   dA/d log s2    = K,
//   dA/d log noise = noise I,
//   d/d mean       = 1^T alpha.
// A is factored with Eigen's LLT; when that fails the jitter is raised
// (1e-8, 1e-6, 1e-4 times s2) and the call fails after the last. The
// jitter is not part of theta, so the gradient ignores it. Cost O(n^3) for
// the inverse, O(n^2 D) for the gradient. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_MARGINAL_LIKELIHOOD_H_
#define HPTUNE_ALGORITHMS_GP_MARGINAL_LIKELIHOOD_H_

#include <cstddef>
#include <span>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/hyperparameters.h"

namespace hptune::algorithms::gp {

using RowMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The L1, L2 and L3 sizes Eigen blocks its matrix products by, set when the
// library loads whatever the CPU's caches are (marginal_likelihood.cc):
// the fits' bits then do not depend on the machine.
inline constexpr std::ptrdiff_t kPinnedCacheSizes[3] = {32 * 1024, 512 * 1024,
                                                        8 * 1024 * 1024};

// One GP training set: rows of features, one target per row.
struct TrainingData {
  RowMatrix x;  // n x D.
  Eigen::VectorXd y;
  std::vector<FeatureKind> kinds;  // D of them.
};

// log p(y | theta) + prior.LogDensity(theta). When `gradient` is not empty
// (PackedSize(D) entries) it receives the gradient. FailedPrecondition when
// A stays indefinite after the largest jitter (e.g. non-finite theta).
absl::StatusOr<double> LogPosterior(const TrainingData& data,
                                    const HyperparameterPrior& prior,
                                    std::span<const double> theta,
                                    std::span<double> gradient);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MARGINAL_LIKELIHOOD_H_
