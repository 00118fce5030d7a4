#include "algorithms/gp/acquisition.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

double Pdf(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
}
double Cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

TEST(AcquisitionTest, LogHMatchesTheDirectFormulaWhereThatIsAccurate) {
  for (double z : {3.0, 1.0, 0.0, -0.5, -0.99, -1.0, -1.01, -2.0, -5.0}) {
    EXPECT_NEAR(LogH(z), std::log(Pdf(z) + z * Cdf(z)), 1e-9) << z;
  }
}

TEST(AcquisitionTest, LogHIsFiniteAndMonotoneFarInTheTail) {
  double previous = LogH(-1);
  for (double z = -1.5; z > -1e12; z *= 1.5) {
    const double value = LogH(z);
    ASSERT_TRUE(std::isfinite(value)) << z;
    EXPECT_LT(value, previous) << z;
    previous = value;
  }
  // Asymptote: log h(z) ~ -z^2/2 - log(2 pi)/2 - 2 log|z|.
  const double z = -1e3;
  EXPECT_NEAR(
      LogH(z),
      -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi) - 2 * std::log(-z),
      1e-5);
}

TEST(AcquisitionTest, LogHIsContinuousAcrossItsBranches) {
  const double tail = -1 / std::sqrt(std::numeric_limits<double>::epsilon());
  for (double z : {-1.0, tail}) {
    const double h = 1e-9 * std::fabs(z);
    EXPECT_NEAR(LogH(z - h), LogH(z + h), 1e-6 * std::fabs(LogH(z))) << z;
  }
}

TEST(AcquisitionTest, ScaledErfcMatchesTheDefinition) {
  for (double x : {0.0, 0.5, 3.0, 10.0, 25.9}) {
    EXPECT_NEAR(ScaledErfc(x) / (std::exp(x * x) * std::erfc(x)), 1, 1e-12);
  }
  // Past 26 the series: erfcx(x) ~ 1 / (x sqrt(pi)) for large x.
  EXPECT_NEAR(ScaledErfc(1e6) * 1e6 * std::sqrt(std::numbers::pi), 1, 1e-12);
}

TEST(AcquisitionTest, LogNormalCdfIsAccurateInTheTail) {
  EXPECT_NEAR(LogNormalCdf(0), std::log(0.5), 1e-15);
  EXPECT_NEAR(LogNormalCdf(-3), std::log(Cdf(-3)), 1e-12);
  EXPECT_NEAR(LogNormalCdf(-30), std::log(Cdf(-30)), 1e-10);
  EXPECT_TRUE(std::isfinite(LogNormalCdf(-1e5)));
}

TEST(AcquisitionTest, LogEiDerivativesMatchFiniteDifferences) {
  for (double mean : {-8.0, -1.0, 0.2, 2.0}) {
    for (double stddev : {0.05, 0.7, 3.0}) {
      const LogEi ei = LogExpectedImprovement(mean, stddev, 0.5);
      const double h = 1e-6;
      const double d_mean =
          (LogExpectedImprovement(mean + h, stddev, 0.5).value -
           LogExpectedImprovement(mean - h, stddev, 0.5).value) /
          (2 * h);
      const double d_stddev =
          (LogExpectedImprovement(mean, stddev + h, 0.5).value -
           LogExpectedImprovement(mean, stddev - h, 0.5).value) /
          (2 * h);
      EXPECT_NEAR(ei.d_mean, d_mean, 1e-5 * std::max(1.0, std::fabs(d_mean)))
          << mean << " " << stddev;
      EXPECT_NEAR(ei.d_stddev, d_stddev,
                  1e-5 * std::max(1.0, std::fabs(d_stddev)))
          << mean << " " << stddev;
    }
  }
}

TEST(AcquisitionTest, AcquisitionGradientsMatchFiniteDifferences) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous, FeatureKind::kContinuous};
  data.x.resize(10, 2);
  data.y.resize(10);
  for (int i = 0; i < 10; ++i) {
    data.x(i, 0) = std::fmod(0.1 + i * 0.618, 1.0);
    data.x(i, 1) = std::fmod(0.3 + i * 0.414, 1.0);
    data.y[i] = -std::pow(data.x(i, 0) - 0.4, 2) - data.x(i, 1);
  }
  Eigen::VectorXd y = data.y;
  auto gp = GaussianProcess::Create(
      data, {std::log(0.3), std::log(0.6), 0.0, std::log(1e-4), 0.0});
  ASSERT_OK(gp);
  const LogExpectedImprovementAcquisition ei(*gp, y.maxCoeff());
  // A threshold that puts (0.9, 0.9) outside the explored region and
  // (0.35, 0.05) inside, so both branches of PE are checked.
  const PureExplorationAcquisition pe(*gp, y.maxCoeff() - 0.5);
  for (const AcquisitionFunction* acquisition :
       {static_cast<const AcquisitionFunction*>(&ei),
        static_cast<const AcquisitionFunction*>(&pe)}) {
    for (const std::vector<double>& x :
         {std::vector<double>{0.35, 0.05}, std::vector<double>{0.9, 0.9},
          std::vector<double>{0.5, 0.3}}) {
      std::vector<double> gradient(2);
      const double value = acquisition->EvaluateWithGradient(x, gradient);
      RowMatrix one(1, 2);
      one << x[0], x[1];
      Eigen::VectorXd batch;
      acquisition->EvaluateBatch(one, batch);
      EXPECT_NEAR(batch[0], value, 1e-9);
      for (int j = 0; j < 2; ++j) {
        const double h = 1e-6;
        std::vector<double> plus = x, minus = x, ignored(2);
        plus[j] += h;
        minus[j] -= h;
        const double numeric =
            (acquisition->EvaluateWithGradient(plus, ignored) -
             acquisition->EvaluateWithGradient(minus, ignored)) /
            (2 * h);
        EXPECT_NEAR(gradient[j], numeric,
                    1e-5 * std::max(1.0, std::fabs(numeric)));
      }
    }
  }
}

TEST(AcquisitionTest, PureExplorationPrefersUncertainPointsThatMayBeGood) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous};
  data.x.resize(3, 1);
  data.x << 0.1, 0.2, 0.9;
  data.y.resize(3);
  data.y << 1.0, 1.1, -2.0;  // Good on the left, bad on the right.
  auto gp =
      GaussianProcess::Create(data, {std::log(0.15), 0.0, std::log(1e-6), 0.0});
  ASSERT_OK(gp);
  const PureExplorationAcquisition pe(*gp, 0.6);
  RowMatrix xs(3, 1);
  xs << 0.15, 0.3, 0.85;
  Eigen::VectorXd values;
  pe.EvaluateBatch(xs, values);
  // Between the good points: known, so little to gain. Next to them:
  // uncertain and possibly good. Next to the bad point: penalised.
  EXPECT_GT(values[1], values[0]);
  EXPECT_GT(values[1], values[2]);
  EXPECT_LT(values[2], 0);
}

}  // namespace
}  // namespace hptune::algorithms::gp
