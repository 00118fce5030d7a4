// Acquisition functions of the GP designer: the score of a candidate point
// under the posterior, which the acquisition optimiser maximises. Log
// expected improvement decides most suggestions; pure exploration (below)
// the rest (suggestion_policy.h says when).
//
// Log expected improvement (Ament, Daulton, Eriksson, Balandat
// & Bakshy, "Unexpected Improvements to Expected Improvement for Bayesian
// Optimization", NeurIPS 2023). For a maximised target with posterior mean
// mu, standard deviation sigma and incumbent best,
//   EI = sigma h(z),  z = (mu - best) / sigma,  h(z) = phi(z) + z Phi(z),
//   logEI = log sigma + log h(z),
// with log h evaluated without cancellation or underflow (their eq. 9):
//   z > -1:               log(phi(z) + z Phi(z))
//   -1/sqrt(eps) < z <= -1: -z^2/2 - log(2 pi)/2
//                          + log1mexp(log(erfcx(-z/sqrt2) |z|) + log(pi/2)/2)
//   z <= -1/sqrt(eps):    -z^2/2 - log(2 pi)/2 - 2 log|z|
// EI itself underflows to 0 over most of the space once the model is
// confident, leaving a gradient optimiser nothing to follow; logEI keeps
// finite, informative values and gradients everywhere:
//   d logEI / d mu    = Phi(z) / (sigma h(z)),
//   d logEI / d sigma = phi(z) / (sigma h(z)).
// The incumbent is the best posterior mean at an observed point, which
// tolerates noise better than the best raw observation.
// Pure functions and immutable objects; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_ACQUISITION_H_
#define HPTUNE_ALGORITHMS_GP_ACQUISITION_H_

#include <span>

#include "Eigen/Core"
#include "algorithms/gp/gaussian_process.h"

namespace hptune::algorithms::gp {

// log h(z) as above.
double LogH(double z);
// log Phi(z), accurate for very negative z.
double LogNormalCdf(double z);
// erfcx(x) = exp(x^2) erfc(x) for x >= 0.
double ScaledErfc(double x);

struct LogEi {
  double value = 0;     // log EI.
  double d_mean = 0;    // d logEI / d mu.
  double d_stddev = 0;  // d logEI / d sigma.
};
// sigma > 0.
LogEi LogExpectedImprovement(double mean, double stddev, double best);

// A score to maximise over GP features.
class AcquisitionFunction {
 public:
  virtual ~AcquisitionFunction() = default;
  // One score per row of `xs`.
  virtual void EvaluateBatch(const RowMatrix& xs,
                             Eigen::VectorXd& values) const = 0;
  // The score at x and its gradient (0 for categorical features).
  virtual double EvaluateWithGradient(std::span<const double> x,
                                      std::span<double> gradient) const = 0;
};

class LogExpectedImprovementAcquisition : public AcquisitionFunction {
 public:
  // `gp` must outlive this object.
  LogExpectedImprovementAcquisition(const GaussianProcess& gp, double best)
      : gp_(gp), best_(best) {}

  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override;
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override;

 private:
  const GaussianProcess& gp_;
  double best_;
};

// Pure exploration inside the region that may still hold the optimum
// (OSS Vizier's GP-UCB-PE; Contal, Buffoni, Robicquet & Vayatis, "Parallel
// Gaussian Process Optimization with Upper Confidence Bound and Pure
// Exploration", ECML 2013):
//   PE(x) = sigma(x) - c max(0, threshold - (mu(x) + kappa sigma(x))),
// threshold = the posterior mean at the observed point of highest
// mu + 1.8 sigma; c = 10, kappa = 0.5 (Vizier's defaults). It samples where
// the model knows least, among points whose optimistic value reaches the
// best plausible value.
class PureExplorationAcquisition : public AcquisitionFunction {
 public:
  PureExplorationAcquisition(const GaussianProcess& gp, double threshold)
      : gp_(gp), threshold_(threshold) {}

  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override;
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override;

  static constexpr double kPenalty = 10;
  static constexpr double kRegionCoefficient = 0.5;
  static constexpr double kThresholdCoefficient = 1.8;

 private:
  const GaussianProcess& gp_;
  double threshold_;
};

// The smallest posterior standard deviation used (standardised units), so
// that logEI stays finite at observed points.
inline constexpr double kMinStddev = 1e-6;

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_ACQUISITION_H_
