#include "algorithms/gp/marginal_likelihood.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/LU"
#include "algorithms/gp/hyperparameters.h"
#include "algorithms/gp/matern_kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// 25 points over two continuous features and one 3-way categorical one.
TrainingData MixedData() {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous, FeatureKind::kContinuous,
                FeatureKind::kCategorical};
  const int n = 25;
  data.x.resize(n, 3);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    data.x(i, 0) = std::fmod(0.13 + i * 0.618034, 1.0);
    data.x(i, 1) = std::fmod(0.71 + i * 0.414214, 1.0);
    data.x(i, 2) = i % 3;
    data.y[i] = std::sin(5 * data.x(i, 0)) + data.x(i, 1) * data.x(i, 1) +
                0.3 * data.x(i, 2) + 0.01 * std::cos(17.0 * i);
  }
  return data;
}

std::vector<double> SomeTheta() {
  return {std::log(0.4), std::log(0.9),  std::log(1.2),
          std::log(1.5), std::log(0.01), 0.2};
}

TEST(MarginalLikelihoodTest, MatchesTheDenseFormula) {
  const TrainingData data = MixedData();
  const HyperparameterPrior prior = MakePrior(3);
  const std::vector<double> theta = SomeTheta();
  auto value = LogPosterior(data, prior, theta, {});
  ASSERT_OK(value);

  MaternKernel kernel(data.kinds, std::span(theta).subspan(0, 3), 1.5);
  const int n = static_cast<int>(data.x.rows());
  Eigen::MatrixXd a(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      a(i, j) = kernel(data.x.row(i).data(), data.x.row(j).data());
    }
  }
  a.diagonal().array() += 0.01;
  const Eigen::VectorXd r = data.y.array() - 0.2;
  const double expected =
      -0.5 * r.dot(a.llt().solve(r)) - 0.5 * std::log(a.determinant()) -
      0.5 * n * std::log(2 * std::numbers::pi) + prior.LogDensity(theta, {});
  EXPECT_NEAR(*value, expected, 1e-8);
}

TEST(MarginalLikelihoodTest, GradientMatchesFiniteDifferences) {
  const TrainingData data = MixedData();
  const HyperparameterPrior prior = MakePrior(3);
  for (const std::vector<double>& theta :
       {SomeTheta(),
        std::vector<double>{std::log(0.1), std::log(3.0), 0.0, std::log(0.3),
                            std::log(1e-4), -0.7},
        prior.Mode()}) {
    std::vector<double> gradient(theta.size());
    ASSERT_OK(LogPosterior(data, prior, theta, gradient));
    for (size_t k = 0; k < theta.size(); ++k) {
      const double h = 1e-5;
      std::vector<double> plus = theta, minus = theta;
      plus[k] += h;
      minus[k] -= h;
      const double numeric = (*LogPosterior(data, prior, plus, {}) -
                              *LogPosterior(data, prior, minus, {})) /
                             (2 * h);
      EXPECT_NEAR(gradient[k], numeric,
                  1e-4 * std::max(1.0, std::fabs(numeric)))
          << "theta[" << k << "]";
    }
  }
}

TEST(MarginalLikelihoodTest, DuplicatePointsAndTinyNoiseStillFactor) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous};
  data.x.resize(4, 1);
  data.x << 0.5, 0.5, 0.5, 0.2;
  data.y.resize(4);
  data.y << 1.0, 1.1, 0.9, -1.0;
  const HyperparameterPrior prior = MakePrior(1);
  std::vector<double> theta = {std::log(0.3), 0.0, std::log(1e-6), 0.0};
  EXPECT_OK(LogPosterior(data, prior, theta, {}));
}

TEST(MarginalLikelihoodTest, NonFiniteHyperparametersAreAnError) {
  const TrainingData data = MixedData();
  std::vector<double> theta = SomeTheta();
  theta[SignalIndex(3)] = 1000;  // s2 = inf.
  auto value = LogPosterior(data, MakePrior(3), theta, {});
  EXPECT_THAT(value,
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not positive definite even with jitter")));
}

TEST(HyperparameterPriorTest, LengthscalePriorFollowsHvarfnerEtAl) {
  // Mode of log l at sqrt2 + log(D)/2 - 3, variance 3.
  for (int d : {1, 6, 20}) {
    const HyperparameterPrior prior = MakePrior(d);
    EXPECT_NEAR(prior.mean[0], std::numbers::sqrt2 + 0.5 * std::log(d) - 3,
                1e-12);
    EXPECT_EQ(prior.variance[0], 3);
    EXPECT_EQ(static_cast<int>(prior.mean.size()), PackedSize(d));
  }
  // Longer lengthscales for more dimensions.
  EXPECT_LT(MakePrior(2).mean[0], MakePrior(20).mean[0]);
}

// Eigen would otherwise block products by this CPU's caches, and the fits'
// bits would differ between machines (marginal_likelihood.cc).
TEST(MarginalLikelihoodTest, EigenBlocksProductsByThePinnedCacheSizes) {
  EXPECT_EQ(Eigen::l1CacheSize(), kPinnedCacheSizes[0]);
  EXPECT_EQ(Eigen::l2CacheSize(), kPinnedCacheSizes[1]);
  EXPECT_EQ(Eigen::l3CacheSize(), kPinnedCacheSizes[2]);
}

}  // namespace
}  // namespace hptune::algorithms::gp
