#include "algorithms/gp/marginal_likelihood.h"

#include <cmath>
#include <numbers>

#include "Eigen/Cholesky"
#include "absl/strings/str_cat.h"
#include "algorithms/gp/matern_kernel.h"

namespace hptune::algorithms::gp {
namespace {

// Eigen sizes its matrix-product blocks from the CPU's caches, read at run
// time, and the blocks set the order of each product's sums: CPUs with
// other caches fitted other hyperparameters in the last bits (from about
// 150 points). Sizes fixed when the library loads give every machine the
// same fits, so a seed and a history give the same trials anywhere
// (docs/designers.md, "Refits").
[[maybe_unused]] const bool kEigenBlockingPinned = [] {
  Eigen::setCpuCacheSizes(kPinnedCacheSizes[0], kPinnedCacheSizes[1],
                          kPinnedCacheSizes[2]);
  return true;
}();

}  // namespace

absl::StatusOr<double> LogPosterior(const TrainingData& data,
                                    const HyperparameterPrior& prior,
                                    std::span<const double> theta,
                                    std::span<double> gradient) {
  const int d = static_cast<int>(data.kinds.size());
  const auto n = static_cast<int>(data.x.rows());
  const double s2 = std::exp(theta[SignalIndex(d)]);
  const double noise = std::exp(theta[NoiseIndex(d)]);
  const double mean = theta[MeanIndex(d)];
  const MaternKernel kernel(data.kinds, theta.subspan(0, d), s2);

  // K (noise-free) and the kernel slopes g, lower triangles then mirrored.
  Eigen::MatrixXd k(n, n);
  Eigen::MatrixXd slope(n, n);
  for (int a = 0; a < n; ++a) {
    const double* xa = data.x.row(a).data();
    for (int b = 0; b <= a; ++b) {
      const double r2 = kernel.SquaredDistance(xa, data.x.row(b).data());
      kernel.ValueAndSlope(r2, k(a, b), slope(a, b));
      k(b, a) = k(a, b);
      slope(b, a) = slope(a, b);
    }
  }

  Eigen::LLT<Eigen::MatrixXd> llt;
  bool factored = false;
  for (double jitter : {0.0, 1e-8, 1e-6, 1e-4}) {
    Eigen::MatrixXd a = k;
    a.diagonal().array() += noise + jitter * s2;
    llt.compute(a);
    if (llt.info() == Eigen::Success &&
        llt.matrixLLT().diagonal().allFinite()) {
      factored = true;
      break;
    }
  }
  if (!factored) {
    return absl::FailedPreconditionError(
        absl::StrCat("the kernel matrix of ", n,
                     " points is not positive definite "
                     "even with jitter 1e-4 * signal variance (",
                     s2, ")"));
  }

  const Eigen::VectorXd r = data.y.array() - mean;
  const Eigen::VectorXd alpha = llt.solve(r);
  const double half_log_det = llt.matrixLLT().diagonal().array().log().sum();
  double value = -0.5 * r.dot(alpha) - half_log_det -
                 0.5 * n * std::log(2 * std::numbers::pi);
  if (!std::isfinite(value)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the log marginal likelihood is not finite: ", value));
  }

  if (!gradient.empty()) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    // W = alpha alpha^T - A^-1, overwriting A^-1.
    Eigen::MatrixXd w = llt.solve(Eigen::MatrixXd::Identity(n, n));
    w = alpha * alpha.transpose() - w;
    // Lengthscales: sum over pairs a > b of 2 * W_ab g_ab d_i(a, b) / 2.
    std::vector<double> lengthscale_sums(d, 0.0);
    for (int a = 0; a < n; ++a) {
      const double* xa = data.x.row(a).data();
      for (int b = 0; b < a; ++b) {
        const double weight = w(b, a) * slope(b, a);
        const double* xb = data.x.row(b).data();
        for (int i = 0; i < d; ++i) {
          lengthscale_sums[i] += weight * kernel.Term(i, xa[i], xb[i]);
        }
      }
    }
    for (int i = 0; i < d; ++i) gradient[i] = lengthscale_sums[i];
    gradient[SignalIndex(d)] = 0.5 * (w.array() * k.array()).sum();
    gradient[NoiseIndex(d)] = 0.5 * noise * w.trace();
    gradient[MeanIndex(d)] = alpha.sum();
  }
  value += prior.LogDensity(theta, gradient);
  return value;
}

}  // namespace hptune::algorithms::gp
