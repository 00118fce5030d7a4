#include "algorithms/gp/hyperparameter_fit.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune_testing::StatusIs;

// y depends strongly on x0, weakly on x1 and not at all on x2.
TrainingData Anisotropic() {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous, FeatureKind::kContinuous,
                FeatureKind::kContinuous};
  const int n = 40;
  data.x.resize(n, 3);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) {
      data.x(i, j) = std::fmod(0.1 + i * (0.618034 + 0.1 * j), 1.0);
    }
    data.y[i] = std::sin(8 * data.x(i, 0)) + 0.3 * data.x(i, 1);
  }
  data.y = (data.y.array() - data.y.mean()) /
           std::sqrt((data.y.array() - data.y.mean()).square().mean());
  return data;
}

TEST(HyperparameterFitTest, LearnsWhichFeaturesMatter) {
  const TrainingData data = Anisotropic();
  const HyperparameterPrior prior = MakePrior(3);
  HyperparameterFitOptions options;
  options.seed = 7;
  auto fit = FitHyperparameters(data, prior, options);
  ASSERT_OK(fit);
  EXPECT_LT(fit->theta[0], fit->theta[1]);  // Shorter lengthscale for x0.
  EXPECT_LT(fit->theta[1], fit->theta[2]);
  // Noise-free data: the noise goes far below the signal.
  EXPECT_LT(fit->theta[NoiseIndex(3)], fit->theta[SignalIndex(3)] - 5);
  // The optimum beats the prior's mode.
  EXPECT_GT(fit->log_posterior, *LogPosterior(data, prior, prior.Mode(), {}));
}

TEST(HyperparameterFitTest, IsDeterministicForItsInputs) {
  const TrainingData data = Anisotropic();
  HyperparameterFitOptions options;
  options.seed = 3;
  auto a = FitHyperparameters(data, MakePrior(3), options);
  auto b = FitHyperparameters(data, MakePrior(3), options);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->theta, b->theta);
}

TEST(HyperparameterFitTest, AWarmStartAtTheOptimumStaysThere) {
  const TrainingData data = Anisotropic();
  HyperparameterFitOptions options;
  auto cold = FitHyperparameters(data, MakePrior(3), options);
  ASSERT_OK(cold);
  options.warm_start = cold->theta;
  options.random_starts = 0;
  auto warm = FitHyperparameters(data, MakePrior(3), options);
  ASSERT_OK(warm);
  EXPECT_GE(warm->log_posterior, cold->log_posterior - 1e-6);
}

TEST(HyperparameterFitTest, RefusesAWarmStartOfTheWrongSize) {
  HyperparameterFitOptions options;
  options.warm_start = {1, 2};
  auto fit = FitHyperparameters(Anisotropic(), MakePrior(3), options);
  EXPECT_THAT(
      fit,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "hyperparameter fit: warm start has 2 entries, expected 6"));
}

TEST(HyperparameterFitTest, RefusesEmptyData) {
  TrainingData empty;
  empty.kinds = {FeatureKind::kContinuous};
  empty.x.resize(0, 1);
  auto fit = FitHyperparameters(empty, MakePrior(1), {});
  EXPECT_THAT(fit, StatusIs(absl::StatusCode::kInvalidArgument,
                            "hyperparameter fit: no data"));
}

}  // namespace
}  // namespace hptune::algorithms::gp
