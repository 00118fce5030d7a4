// The GP designer's posterior: a zero-based Gaussian process with constant
// mean and the Matérn-5/2 kernel, conditioned on observed targets, plus
// pending points that condition its variance only.
//
// With hyperparameters theta (gp/hyperparameters.h), observed rows X, y and
// A = K(X, X) + (noise + jitter) I = L L^T, at a point x with k = K(X, x):
//   mean(x)     = m + k^T alpha,           alpha = A^-1 (y - m)
//   variance(x) = s2 - |L^-1 k|^2          (of the latent f, no noise)
// (Rasmussen & Williams 2006, eqs. 2.25-2.26), gradients in x by the kernel
// derivative of gp/matern_kernel.h:
//   d mean / dx     = (dk/dx)^T alpha
//   d variance / dx = -2 (dk/dx)^T A^-1 k.
// Pending points (trials still running, earlier suggestions of the same
// batch) are appended to L after the observed rows but not to alpha: the
// kriging believer heuristic (Ginsbourger, Le Riche & Carraro, "Kriging is
// well-suited to parallelize optimization", 2010) takes their outcome to be
// the posterior mean, which leaves the mean unchanged and shrinks the
// variance around them, so the next suggestion goes elsewhere.
// L is a BorderedCholesky: a GP for a longer history with the same theta is
// built by extending an earlier one's factor, with the same bits as building
// it afresh. Jitter escalation: 0, then 1e-8, 1e-6, 1e-4 times s2 added to
// the diagonal of A until every row factors; a pending row that would not
// factor gets its pivot raised to 1e-6 s2 instead (it only lowers variance).
// Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_GAUSSIAN_PROCESS_H_
#define HPTUNE_ALGORITHMS_GP_GAUSSIAN_PROCESS_H_

#include <span>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "algorithms/gp/bordered_cholesky.h"
#include "algorithms/gp/marginal_likelihood.h"
#include "algorithms/gp/matern_kernel.h"

namespace hptune::algorithms::gp {

class GaussianProcess {
 public:
  // Conditions on `data` with `theta` (PackedSize(D) entries; aborts
  // otherwise). `reuse`, when given, is a GP built with the same theta and
  // kinds whose observed rows are a prefix of data.x (checked: otherwise it
  // is ignored); its factor is extended. FailedPrecondition when A is not
  // positive definite even with the largest jitter.
  static absl::StatusOr<GaussianProcess> Create(
      TrainingData data, std::vector<double> theta,
      const GaussianProcess* reuse = nullptr);

  // Conditions the variance on a pending point (see the header).
  void AddPending(std::span<const double> x);

  struct Prediction {
    double mean = 0;
    double variance = 0;
  };
  Prediction Predict(std::span<const double> x) const;
  // Also d mean / dx and d variance / dx (dimension() entries each, 0 for
  // categorical features).
  Prediction PredictWithGradient(std::span<const double> x,
                                 std::span<double> d_mean,
                                 std::span<double> d_variance) const;
  // Row by row for the rows of `xs`.
  void PredictBatch(const RowMatrix& xs, Eigen::VectorXd& mean,
                    Eigen::VectorXd& variance) const;

  // The posterior mean at each observed row.
  Eigen::VectorXd MeanAtObservations() const;

  int dimension() const { return kernel_.dimension(); }
  int num_observations() const { return num_observed_; }
  int num_pending() const { return chol_.size() - num_observed_; }
  const std::vector<double>& theta() const { return theta_; }
  const MaternKernel& kernel() const { return kernel_; }
  // The jitter (times s2) the factorisation needed.
  double jitter() const { return jitter_; }
  const RowMatrix& rows() const { return x_; }  // Observed, then pending.
  // Observed rows whose factor came from `reuse` in Create (0 if none).
  int reused_rows() const { return reused_rows_; }

 private:
  GaussianProcess(TrainingData data, std::vector<double> theta);
  // Factors the observed rows from `start` on at `jitter_`; false on an
  // indefinite pivot.
  bool FactorObservedFrom(int start);
  void KernelRow(int row, std::vector<double>& out) const;
  // k(x, row i) for every row, and the slopes g when `slopes` is given.
  void KernelColumn(std::span<const double> x, std::vector<double>& k,
                    std::vector<double>* slopes) const;

  RowMatrix x_;  // Observed rows, then pending ones.
  Eigen::VectorXd y_;
  std::vector<FeatureKind> kinds_;
  std::vector<double> theta_;
  MaternKernel kernel_;
  double noise_;
  double mean_;
  double jitter_ = 0;
  int num_observed_;
  int reused_rows_ = 0;
  BorderedCholesky chol_;
  Eigen::VectorXd alpha_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GAUSSIAN_PROCESS_H_
