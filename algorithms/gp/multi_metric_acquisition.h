// Acquisition functions of the GP designer for studies of several metrics:
// several objectives, constraints, or both. One GP per metric (same
// features, own hyperparameters; gp_model.h), all on standardised targets
// oriented so that higher is better (gp_history.h).
//
// Feasibility. For a constraint c with posterior mean mu_c, deviation
// sigma_c and threshold t_c (safe when the value is at least t_c), the
// probability that x is feasible is
//   PoF_c(x) = Phi(z_c),  z_c = (mu_c(x) - t_c) / sigma_c(x)
// (Gardner, Kusner, Xu, Weinberger & Cunningham, "Bayesian Optimization
// with Inequality Constraints", ICML 2014), and
//   d log Phi(z) / dz = phi(z) / Phi(z),
//   dz = d mu / sigma - (mu - t) d sigma / sigma^2.
// Feasibility enters as gamma sum_c log PoF_c: gamma = 1, or
// kSafetyEmphasis when fewer of the study's results are safe than its
// desiredMinSafeTrialsFraction asks (hptune's rule: PoF raised to a power
// favours likely-safe points; best effort, as in Vertex AI).
//
// One objective with constraints: constrained log EI (Gardner et al. 2014,
// in log space as Ament et al., NeurIPS 2023, do for Optuna's and BoTorch's
// logCEI):
//   a(x) = logEI(mu_0, sigma_0; best) + gamma sum_c log PoF_c(x),
// best = the highest posterior mean of the objective at a safe observed
// point; with no safe observation yet, a(x) = sum_c log PoF_c(x): find the
// feasible region first (Gardner et al., section 3).
//
// Several objectives: random hypervolume scalarisation of the upper
// confidence bound, as OSS Vizier's GP bandit does (Golovin & Zhang,
// "Random Hypervolume Scalarizations for Provable Multi-Objective Black Box
// Optimization", ICML 2020; Song et al., "The Vizier Gaussian Process
// Bandit Algorithm", 2024). For weights w drawn uniformly from the positive
// part of the unit sphere (one draw per suggestion) and reference point r,
//   s_w(y) = min_i (y_i - r_i) / w_i,   E_w[max_{y in Y} s_w(y)^k]
// is proportional to the hypervolume of Y with respect to r, so maximising
// a random scalarisation in expectation grows the hypervolume; the
// hypervolume a point y adds to Y is likewise proportional to
// E_w[max(0, s_w(y)^k - max_{y' in Y} s_w(y')^k)], which follows from
// the above. The acquisition takes that improvement for one w, at the
// optimistic values u_i = mu_i + beta sigma_i (k-th powers dropped: they
// keep the maximiser):
//   a(x) = max(0, s_w(u(x)) - b_w) prod_c PoF_c(x)^gamma,
//   b_w = max(0, max over safe observations y of s_w(y)),
// the product being how Gardner et al. (and BoTorch's constrained
// acquisitions) weight an improvement by the chance it counts. Without
// b_w, a direction already served by an observed point would draw the
// next suggestion back onto that point. The reference point r lives in the
// model's units and is the designer's alone (the quality harness states
// its own); multi_metric_policy.h says how it is chosen.
// s_w's gradient is that of the objective attaining the min.
// Used by the GP designer's multi-metric policy. Immutable objects;
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_MULTI_METRIC_ACQUISITION_H_
#define HPTUNE_ALGORITHMS_GP_MULTI_METRIC_ACQUISITION_H_

#include <span>
#include <vector>

#include "Eigen/Core"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/gaussian_process.h"

namespace hptune::algorithms::gp {

// UCB's coefficient: below OSS Vizier's 1.8, which in the multi-objective
// suite spent more trials at the edges of 6-D spaces (benchmarks/RESULTS.md).
inline constexpr double kUcbBeta = 1.0;
// How far below the reference's base value the reference point lies: in
// standardised units below the lowest observation, as a fraction of the
// front's range (at least one unit) below the front's nadir.
inline constexpr double kReferenceMargin = 0.1;
// gamma when the safe fraction falls short of the desired one.
inline constexpr double kSafetyEmphasis = 4;

// A constraint's model and threshold (standardised units).
struct ConstraintModel {
  const GaussianProcess* gp = nullptr;
  double threshold = 0;
};

// gamma sum_c log PoF_c(x) and its gradient (added to `gradient`, d
// entries) when `gradient` is not empty.
double LogFeasibility(std::span<const ConstraintModel> constraints,
                      double gamma, std::span<const double> x,
                      std::span<double> gradient);

class ConstrainedLogEiAcquisition : public AcquisitionFunction {
 public:
  // The models must outlive this object; `best` unset: no safe point yet.
  ConstrainedLogEiAcquisition(const GaussianProcess& objective,
                              std::optional<double> best,
                              std::vector<ConstraintModel> constraints,
                              double gamma)
      : objective_(objective),
        best_(best),
        constraints_(std::move(constraints)),
        gamma_(gamma) {}

  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override;
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override;

 private:
  const GaussianProcess& objective_;
  std::optional<double> best_;
  std::vector<ConstraintModel> constraints_;
  double gamma_;
};

// s_w(y) = min_i (y_i - r_i) / w_i (above).
double Scalarize(std::span<const double> weights,
                 std::span<const double> reference, std::span<const double> y);

class ScalarizedUcbAcquisition : public AcquisitionFunction {
 public:
  // One weight (> 0) and one reference value per objective model; the
  // models must outlive this object. `baseline`: the highest s_w of the
  // safe observations (0 with none).
  ScalarizedUcbAcquisition(std::vector<const GaussianProcess*> objectives,
                           std::vector<double> weights,
                           std::vector<double> reference,
                           std::vector<ConstraintModel> constraints,
                           double gamma, double baseline = 0)
      : objectives_(std::move(objectives)),
        weights_(std::move(weights)),
        reference_(std::move(reference)),
        constraints_(std::move(constraints)),
        gamma_(gamma),
        baseline_(baseline) {}

  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override;
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override;

  // s_w(y) of a point of objective values (above).
  double Scalarize(std::span<const double> y) const {
    return gp::Scalarize(weights_, reference_, y);
  }

 private:
  std::vector<const GaussianProcess*> objectives_;
  std::vector<double> weights_;
  std::vector<double> reference_;
  std::vector<ConstraintModel> constraints_;
  double gamma_;
  double baseline_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MULTI_METRIC_ACQUISITION_H_
