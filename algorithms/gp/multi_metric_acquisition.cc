#include "algorithms/gp/multi_metric_acquisition.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hptune::algorithms::gp {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(2 pi) / 2

// A posterior with d mean / dx and d sigma / dx (0 where sigma is floored).
struct Posterior {
  double mean = 0;
  double stddev = 0;
  std::vector<double> d_mean;
  std::vector<double> d_stddev;
};

Posterior PredictWithGradient(const GaussianProcess& gp,
                              std::span<const double> x) {
  const int d = gp.dimension();
  Posterior p;
  p.d_mean.resize(d);
  std::vector<double> d_variance(d);
  const GaussianProcess::Prediction prediction =
      gp.PredictWithGradient(x, p.d_mean, d_variance);
  const double raw = std::sqrt(prediction.variance);
  const bool floored = !(raw > kMinStddev);
  p.mean = prediction.mean;
  p.stddev = floored ? kMinStddev : raw;
  p.d_stddev.assign(d, 0.0);
  if (!floored) {
    for (int j = 0; j < d; ++j) p.d_stddev[j] = d_variance[j] / (2 * raw);
  }
  return p;
}

// log PoF of one constraint from its posterior.
double LogPof(double mean, double stddev, double threshold) {
  return LogNormalCdf((mean - threshold) / stddev);
}

// gamma sum_c log PoF_c over a batch, added to `values`.
void AddLogFeasibilityBatch(std::span<const ConstraintModel> constraints,
                            double gamma, const RowMatrix& xs,
                            Eigen::VectorXd& values) {
  Eigen::VectorXd mean, variance;
  for (const ConstraintModel& c : constraints) {
    c.gp->PredictBatch(xs, mean, variance);
    for (Eigen::Index i = 0; i < xs.rows(); ++i) {
      const double stddev = std::max(std::sqrt(variance[i]), kMinStddev);
      values[i] += gamma * LogPof(mean[i], stddev, c.threshold);
    }
  }
}

}  // namespace

double LogFeasibility(std::span<const ConstraintModel> constraints,
                      double gamma, std::span<const double> x,
                      std::span<double> gradient) {
  double total = 0;
  for (const ConstraintModel& c : constraints) {
    const Posterior p = PredictWithGradient(*c.gp, x);
    const double z = (p.mean - c.threshold) / p.stddev;
    const double log_cdf = LogNormalCdf(z);
    total += gamma * log_cdf;
    if (gradient.empty()) continue;
    // phi(z) / Phi(z) through logs: both underflow together in the tail.
    const double ratio = std::exp(-0.5 * z * z - kHalfLog2Pi - log_cdf);
    for (size_t j = 0; j < gradient.size(); ++j) {
      const double dz = p.d_mean[j] / p.stddev - (p.mean - c.threshold) *
                                                     p.d_stddev[j] /
                                                     (p.stddev * p.stddev);
      gradient[j] += gamma * ratio * dz;
    }
  }
  return total;
}

void ConstrainedLogEiAcquisition::EvaluateBatch(const RowMatrix& xs,
                                                Eigen::VectorXd& values) const {
  values = Eigen::VectorXd::Zero(xs.rows());
  if (best_) {
    Eigen::VectorXd mean, variance;
    objective_.PredictBatch(xs, mean, variance);
    for (Eigen::Index i = 0; i < xs.rows(); ++i) {
      const double stddev = std::max(std::sqrt(variance[i]), kMinStddev);
      values[i] = LogExpectedImprovement(mean[i], stddev, *best_).value;
    }
  }
  // Without a safe point, feasibility alone, at its plain weight.
  AddLogFeasibilityBatch(constraints_, best_ ? gamma_ : 1.0, xs, values);
}

double ConstrainedLogEiAcquisition::EvaluateWithGradient(
    std::span<const double> x, std::span<double> gradient) const {
  std::fill(gradient.begin(), gradient.end(), 0.0);
  double value = 0;
  if (best_) {
    const Posterior p = PredictWithGradient(objective_, x);
    const LogEi ei = LogExpectedImprovement(p.mean, p.stddev, *best_);
    value = ei.value;
    for (size_t j = 0; j < gradient.size(); ++j) {
      gradient[j] = ei.d_mean * p.d_mean[j] + ei.d_stddev * p.d_stddev[j];
    }
  }
  return value +
         LogFeasibility(constraints_, best_ ? gamma_ : 1.0, x, gradient);
}

double Scalarize(std::span<const double> weights,
                 std::span<const double> reference, std::span<const double> y) {
  double s = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < weights.size(); ++i) {
    s = std::min(s, (y[i] - reference[i]) / weights[i]);
  }
  return s;
}

void ScalarizedUcbAcquisition::EvaluateBatch(const RowMatrix& xs,
                                             Eigen::VectorXd& values) const {
  values = Eigen::VectorXd::Constant(xs.rows(),
                                     std::numeric_limits<double>::infinity());
  Eigen::VectorXd mean, variance;
  for (size_t k = 0; k < objectives_.size(); ++k) {
    objectives_[k]->PredictBatch(xs, mean, variance);
    for (Eigen::Index i = 0; i < xs.rows(); ++i) {
      const double ucb = mean[i] + kUcbBeta * std::sqrt(variance[i]);
      values[i] = std::min(values[i], (ucb - reference_[k]) / weights_[k]);
    }
  }
  for (Eigen::Index i = 0; i < xs.rows(); ++i) {
    values[i] = std::max(values[i] - baseline_, 0.0);
  }
  if (constraints_.empty()) return;
  Eigen::VectorXd log_pof = Eigen::VectorXd::Zero(xs.rows());
  AddLogFeasibilityBatch(constraints_, gamma_, xs, log_pof);
  values = values.array() * log_pof.array().exp();
}

double ScalarizedUcbAcquisition::EvaluateWithGradient(
    std::span<const double> x, std::span<double> gradient) const {
  std::fill(gradient.begin(), gradient.end(), 0.0);
  double s = std::numeric_limits<double>::infinity();
  std::vector<double> d_s(gradient.size(), 0.0);
  for (size_t k = 0; k < objectives_.size(); ++k) {
    const Posterior p = PredictWithGradient(*objectives_[k], x);
    const double value =
        (p.mean + kUcbBeta * p.stddev - reference_[k]) / weights_[k];
    if (value < s) {
      s = value;
      for (size_t j = 0; j < d_s.size(); ++j) {
        d_s[j] = (p.d_mean[j] + kUcbBeta * p.d_stddev[j]) / weights_[k];
      }
    }
  }
  s -= baseline_;
  if (s <= 0) return 0;  // Flat: no optimistic improvement.
  std::vector<double> d_log_pof(gradient.size(), 0.0);
  const double pof =
      std::exp(LogFeasibility(constraints_, gamma_, x, d_log_pof));
  // d (s P) = P ds + s P d log P.
  for (size_t j = 0; j < gradient.size(); ++j) {
    gradient[j] = pof * d_s[j] + s * pof * d_log_pof[j];
  }
  return s * pof;
}

}  // namespace hptune::algorithms::gp
