#include "algorithms/gp/acquisition.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace hptune::algorithms::gp {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;      // log(2 pi) / 2
constexpr double kHalfLogPiOver2 = 0.22579135264472743236;  // log(pi / 2) / 2

// log(1 - exp(x)) for x < 0 (Maechler, "Accurately Computing log(1 -
// exp(-|a|))", 2012).
double Log1mExp(double x) {
  return x > -std::numbers::ln2 ? std::log(-std::expm1(x))
                                : std::log1p(-std::exp(x));
}

double NormalPdf(double z) { return std::exp(-0.5 * z * z - kHalfLog2Pi); }

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

}  // namespace

double ScaledErfc(double x) {
  if (x < 26) return std::exp(x * x) * std::erfc(x);
  // Asymptotic series erfcx(x) ~ 1 / (x sqrt(pi)) sum_k (-1)^k (2k-1)!! /
  // (2 x^2)^k; at x >= 26 the omitted terms are below 1e-25.
  const double inv = 1 / (2 * x * x);
  const double series = 1 - inv * (1 - 3 * inv * (1 - 5 * inv * (1 - 7 * inv)));
  return series / (x * std::sqrt(std::numbers::pi));
}

double LogNormalCdf(double z) {
  if (z > -5) return std::log(NormalCdf(z));
  // Phi(z) = erfcx(u) exp(-u^2) / 2 with u = -z / sqrt2.
  const double u = -z / std::numbers::sqrt2;
  return std::log(0.5 * ScaledErfc(u)) - u * u;
}

double LogH(double z) {
  static const double kTail =
      -1 / std::sqrt(std::numeric_limits<double>::epsilon());
  if (z > -1) return std::log(NormalPdf(z) + z * NormalCdf(z));
  if (z > kTail) {
    const double u = -z / std::numbers::sqrt2;
    return -0.5 * z * z - kHalfLog2Pi +
           Log1mExp(std::log(ScaledErfc(u) * -z) + kHalfLogPiOver2);
  }
  return -0.5 * z * z - kHalfLog2Pi - 2 * std::log(-z);
}

LogEi LogExpectedImprovement(double mean, double stddev, double best) {
  const double z = (mean - best) / stddev;
  const double log_h = LogH(z);
  LogEi result;
  result.value = std::log(stddev) + log_h;
  // Phi(z) / h(z) and phi(z) / h(z) through logs: both parts underflow
  // together in the left tail.
  result.d_mean = std::exp(LogNormalCdf(z) - log_h) / stddev;
  result.d_stddev = std::exp(-0.5 * z * z - kHalfLog2Pi - log_h) / stddev;
  return result;
}

void LogExpectedImprovementAcquisition::EvaluateBatch(
    const RowMatrix& xs, Eigen::VectorXd& values) const {
  Eigen::VectorXd mean, variance;
  gp_.PredictBatch(xs, mean, variance);
  values.resize(xs.rows());
  for (Eigen::Index i = 0; i < xs.rows(); ++i) {
    const double stddev = std::max(std::sqrt(variance[i]), kMinStddev);
    values[i] = LogExpectedImprovement(mean[i], stddev, best_).value;
  }
}

double LogExpectedImprovementAcquisition::EvaluateWithGradient(
    std::span<const double> x, std::span<double> gradient) const {
  const int d = gp_.dimension();
  std::vector<double> d_mean(d), d_variance(d);
  const GaussianProcess::Prediction p =
      gp_.PredictWithGradient(x, d_mean, d_variance);
  const double raw_stddev = std::sqrt(p.variance);
  const bool floored = !(raw_stddev > kMinStddev);
  const double stddev = floored ? kMinStddev : raw_stddev;
  const LogEi ei = LogExpectedImprovement(p.mean, stddev, best_);
  for (int j = 0; j < d; ++j) {
    // d sigma / dx = (d variance / dx) / (2 sigma); 0 where sigma is floored.
    const double d_stddev = floored ? 0.0 : d_variance[j] / (2 * stddev);
    gradient[j] = ei.d_mean * d_mean[j] + ei.d_stddev * d_stddev;
  }
  return ei.value;
}

void PureExplorationAcquisition::EvaluateBatch(const RowMatrix& xs,
                                               Eigen::VectorXd& values) const {
  Eigen::VectorXd mean, variance;
  gp_.PredictBatch(xs, mean, variance);
  values.resize(xs.rows());
  for (Eigen::Index i = 0; i < xs.rows(); ++i) {
    const double stddev = std::sqrt(variance[i]);
    const double shortfall =
        threshold_ - (mean[i] + kRegionCoefficient * stddev);
    values[i] = stddev - kPenalty * std::max(shortfall, 0.0);
  }
}

double PureExplorationAcquisition::EvaluateWithGradient(
    std::span<const double> x, std::span<double> gradient) const {
  const int d = gp_.dimension();
  std::vector<double> d_mean(d), d_variance(d);
  const GaussianProcess::Prediction p =
      gp_.PredictWithGradient(x, d_mean, d_variance);
  const double stddev = std::sqrt(p.variance);
  const double shortfall = threshold_ - (p.mean + kRegionCoefficient * stddev);
  for (int j = 0; j < d; ++j) {
    const double d_stddev =
        stddev > kMinStddev ? d_variance[j] / (2 * stddev) : 0.0;
    gradient[j] = d_stddev;
    if (shortfall > 0) {
      gradient[j] += kPenalty * (d_mean[j] + kRegionCoefficient * d_stddev);
    }
  }
  return stddev - kPenalty * std::max(shortfall, 0.0);
}

}  // namespace hptune::algorithms::gp
