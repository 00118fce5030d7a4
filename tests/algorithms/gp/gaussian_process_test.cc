#include "algorithms/gp/gaussian_process.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "algorithms/gp/hyperparameters.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune_testing::StatusIs;

double Objective(double x) { return std::sin(6 * x) + x; }

TrainingData OneDimensional(int n) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous};
  data.x.resize(n, 1);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    data.x(i, 0) = (i + 0.5) / n;
    data.y[i] = Objective(data.x(i, 0));
  }
  return data;
}

// l = 0.3, s2 = 1, noise 1e-6, mean 0.
std::vector<double> Theta() {
  return {std::log(0.3), 0.0, std::log(1e-6), 0.0};
}

GaussianProcess Make(const TrainingData& data,
                     const GaussianProcess* reuse = nullptr) {
  auto gp = GaussianProcess::Create(data, Theta(), reuse);
  EXPECT_OK(gp);
  return *std::move(gp);
}

TEST(GaussianProcessTest, InterpolatesAndIsCertainAtObservedPoints) {
  const TrainingData data = OneDimensional(8);
  GaussianProcess gp = Make(data);
  for (int i = 0; i < 8; ++i) {
    const double x[] = {data.x(i, 0)};
    GaussianProcess::Prediction p = gp.Predict(x);
    EXPECT_NEAR(p.mean, data.y[i], 1e-4);
    EXPECT_LT(p.variance, 1e-5);
  }
  EXPECT_LT((gp.MeanAtObservations() - data.y).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(GaussianProcessTest, VarianceGrowsBetweenAndAwayFromObservedPoints) {
  GaussianProcess gp = Make(OneDimensional(5));  // At 0.1, 0.3, ..., 0.9.
  const double at[] = {0.3};
  const double between[] = {0.4};
  const double outside[] = {1.5};
  const double far[] = {30};
  const double v_at = gp.Predict(at).variance;
  const double v_between = gp.Predict(between).variance;
  const double v_outside = gp.Predict(outside).variance;
  EXPECT_LT(v_at, v_between);
  EXPECT_LT(v_between, v_outside);
  EXPECT_NEAR(gp.Predict(far).variance, 1.0, 1e-9);  // The prior's s2.
  EXPECT_NEAR(gp.Predict(far).mean, 0.0, 1e-9);      // The prior mean.
  // Between samples the mean is close to the smooth objective.
  EXPECT_NEAR(gp.Predict(between).mean, Objective(0.4), 0.1);
}

TEST(GaussianProcessTest, GradientsMatchFiniteDifferences) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous, FeatureKind::kContinuous,
                FeatureKind::kCategorical};
  data.x.resize(12, 3);
  data.y.resize(12);
  for (int i = 0; i < 12; ++i) {
    data.x(i, 0) = std::fmod(0.2 + i * 0.618, 1.0);
    data.x(i, 1) = std::fmod(0.5 + i * 0.414, 1.0);
    data.x(i, 2) = i % 2;
    data.y[i] = data.x(i, 0) - data.x(i, 1) * data.x(i, 1) + data.x(i, 2);
  }
  auto gp = GaussianProcess::Create(
      data, {std::log(0.5), std::log(0.7), 0.0, 0.0, std::log(1e-3), 0.1});
  ASSERT_OK(gp);
  const double pending[] = {0.35, 0.35, 1};
  gp->AddPending(pending);
  const std::vector<double> x = {0.31, 0.42, 1};
  std::vector<double> d_mean(3), d_variance(3);
  gp->PredictWithGradient(x, d_mean, d_variance);
  for (int j = 0; j < 2; ++j) {
    const double h = 1e-6;
    std::vector<double> plus = x, minus = x;
    plus[j] += h;
    minus[j] -= h;
    const auto p = gp->Predict(plus), m = gp->Predict(minus);
    EXPECT_NEAR(d_mean[j], (p.mean - m.mean) / (2 * h), 1e-6) << j;
    EXPECT_NEAR(d_variance[j], (p.variance - m.variance) / (2 * h), 1e-6) << j;
  }
  EXPECT_EQ(d_mean[2], 0.0);
  EXPECT_EQ(d_variance[2], 0.0);
}

TEST(GaussianProcessTest, PendingPointsShrinkVarianceButKeepTheMean) {
  GaussianProcess gp = Make(OneDimensional(4));
  const double x[] = {0.99};
  const auto before = gp.Predict(x);
  gp.AddPending(x);
  const auto after = gp.Predict(x);
  EXPECT_DOUBLE_EQ(after.mean, before.mean);
  EXPECT_LT(after.variance, 1e-4 * before.variance);
  EXPECT_EQ(gp.num_pending(), 1);
  // The same point twice still factors (pivot floor).
  gp.AddPending(x);
  EXPECT_EQ(gp.num_pending(), 2);
  EXPECT_TRUE(std::isfinite(gp.Predict(x).variance));
}

TEST(GaussianProcessTest, BatchPredictionMatchesPointPredictions) {
  GaussianProcess gp = Make(OneDimensional(6));
  const double pending[] = {0.05};
  gp.AddPending(pending);
  // 70 candidates: two blocks of 32 and a rest of 6.
  RowMatrix xs(70, 1);
  for (int i = 0; i < 70; ++i) xs(i, 0) = i / 69.0;
  Eigen::VectorXd mean, variance;
  gp.PredictBatch(xs, mean, variance);
  for (int i = 0; i < 70; ++i) {
    const auto p = gp.Predict(std::span<const double>(xs.row(i).data(), 1));
    EXPECT_NEAR(mean[i], p.mean, 1e-12) << xs(i, 0);
    EXPECT_NEAR(variance[i], p.variance, 1e-12) << xs(i, 0);
  }
}

TEST(GaussianProcessTest, ExtendingAnEarlierModelGivesTheSameBits) {
  const TrainingData full = OneDimensional(30);
  TrainingData prefix = full;
  prefix.x.conservativeResize(18, 1);
  prefix.y.conservativeResize(18);
  GaussianProcess small = Make(prefix);
  GaussianProcess extended = Make(full, &small);
  GaussianProcess fresh = Make(full);
  for (double x : {0.013, 0.5, 0.777}) {
    const double point[] = {x};
    const auto a = extended.Predict(point), b = fresh.Predict(point);
    EXPECT_EQ(std::memcmp(&a.mean, &b.mean, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&a.variance, &b.variance, sizeof(double)), 0);
  }
}

TEST(GaussianProcessTest, DuplicatePointsNeedNoMoreThanJitter) {
  TrainingData data;
  data.kinds = {FeatureKind::kContinuous};
  data.x.resize(6, 1);
  data.x << 0.5, 0.5, 0.5, 0.5, 0.1, 0.9;
  data.y.resize(6);
  data.y << 1, 1, 1, 1, 0, 0;
  // Noise at its floor and a long lengthscale make A nearly singular.
  auto gp = GaussianProcess::Create(
      data, {std::log(1000.0), 0.0, std::log(1e-6), 0.0});
  ASSERT_OK(gp);
  EXPECT_TRUE(std::isfinite(gp->Predict(std::vector<double>{0.3}).mean));
}

TEST(GaussianProcessTest, HopelessHyperparametersAreAnError) {
  auto gp = GaussianProcess::Create(OneDimensional(3),
                                    {std::log(0.3), 1000.0, -5.0, 0.0});
  EXPECT_THAT(
      gp,
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "the kernel matrix of 3 points is not positive definite even "
               "with jitter 1e-4 * signal variance"));
}

}  // namespace
}  // namespace hptune::algorithms::gp
