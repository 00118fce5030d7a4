#include "algorithms/gp/hyperparameters.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hptune::algorithms::gp {
namespace {

constexpr double kLengthscaleVariance = 3;  // sigma^2 of the LogNormal.
constexpr double kMinLengthscale = 0.025;
constexpr double kMaxLengthscale = 1000;

void Add(HyperparameterPrior& prior, double mean, double variance, double lower,
         double upper) {
  prior.mean.push_back(mean);
  prior.variance.push_back(variance);
  prior.lower.push_back(lower);
  prior.upper.push_back(upper);
}

}  // namespace

double HyperparameterPrior::LogDensity(std::span<const double> theta,
                                       std::span<double> gradient) const {
  double log_density = 0;
  for (size_t k = 0; k < mean.size(); ++k) {
    const double z = theta[k] - mean[k];
    log_density -= 0.5 * (z * z / variance[k] +
                          std::log(2 * std::numbers::pi * variance[k]));
    if (!gradient.empty()) gradient[k] -= z / variance[k];
  }
  return log_density;
}

std::vector<double> HyperparameterPrior::Mode() const {
  std::vector<double> mode(mean.size());
  for (size_t k = 0; k < mean.size(); ++k) {
    mode[k] = std::clamp(mean[k], lower[k], upper[k]);
  }
  return mode;
}

HyperparameterPrior MakePrior(std::span<const Feature> features) {
  const double d = std::max<double>(static_cast<double>(features.size()), 1);
  const double mu = std::numbers::sqrt2 + 0.5 * std::log(d);
  HyperparameterPrior prior;
  for (const Feature& f : features) {
    double shift = 0;
    if (f.kind == FeatureKind::kCategorical) {
      shift = 0.5 * std::log(6 * (1 - 1.0 / f.num_categories));
    }
    Add(prior, mu - kLengthscaleVariance + shift, kLengthscaleVariance,
        std::log(kMinLengthscale) + shift, std::log(kMaxLengthscale) + shift);
  }
  Add(prior, 0, 1, std::log(0.01), std::log(100.0));  // Signal variance.
  Add(prior, -5, 1, std::log(1e-6), std::log(2.0));   // Noise variance.
  Add(prior, 0, 0.01, -5, 5);                         // Constant mean.
  return prior;
}

HyperparameterPrior MakePrior(int dimension) {
  return MakePrior(std::vector<Feature>(dimension, Feature{}));
}

}  // namespace hptune::algorithms::gp
