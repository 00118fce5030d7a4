#include "algorithms/gp/matern_kernel.h"

#include <cmath>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "gtest/gtest.h"

namespace hptune::algorithms::gp {
namespace {

constexpr FeatureKind kCont = FeatureKind::kContinuous;
constexpr FeatureKind kCat = FeatureKind::kCategorical;

TEST(MaternKernelTest, EqualsSignalVarianceAtZeroDistance) {
  const std::vector<double> log_l = {std::log(0.3), std::log(2.0)};
  MaternKernel kernel({kCont, kCat}, log_l, 1.7);
  const double a[] = {0.4, 1};
  EXPECT_DOUBLE_EQ(kernel(a, a), 1.7);
}

TEST(MaternKernelTest, MatchesTheMaternFiveHalvesFormula) {
  // One continuous feature, l = 0.5, distance 0.3: r = 0.6.
  const std::vector<double> log_l = {std::log(0.5)};
  MaternKernel kernel({kCont}, log_l, 2.0);
  const double a[] = {0.1};
  const double b[] = {0.4};
  const double r = 0.6;
  const double expected = 2.0 * (1 + std::sqrt(5.0) * r + 5 * r * r / 3) *
                          std::exp(-std::sqrt(5.0) * r);
  EXPECT_NEAR(kernel(a, b), expected, 1e-14);
}

TEST(MaternKernelTest, CategoriesCompareByEqualityOnly) {
  const std::vector<double> log_l = {std::log(0.7)};
  MaternKernel kernel({kCat}, log_l, 1.0);
  const double zero[] = {0}, one[] = {1}, three[] = {3};
  // Categories 0 and 1 are as far apart as 0 and 3: order means nothing.
  EXPECT_EQ(kernel(zero, one), kernel(zero, three));
  EXPECT_LT(kernel(zero, one), 1.0);
  EXPECT_EQ(kernel.SquaredDistance(zero, three), 1 / (0.7 * 0.7));
}

TEST(MaternKernelTest, KernelMatrixIsPositiveDefinite) {
  const std::vector<double> log_l = {std::log(0.2), std::log(0.5),
                                     std::log(1.0)};
  MaternKernel kernel({kCont, kCont, kCat}, log_l, 1.0);
  std::vector<std::vector<double>> points;
  for (int i = 0; i < 30; ++i) {
    points.push_back({std::fmod(i * 0.618, 1.0), std::fmod(i * 0.414, 1.0),
                      static_cast<double>(i % 4)});
  }
  Eigen::MatrixXd k(30, 30);
  for (int i = 0; i < 30; ++i) {
    for (int j = 0; j < 30; ++j)
      k(i, j) = kernel(points[i].data(), points[j].data());
  }
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  EXPECT_EQ(llt.info(), Eigen::Success);
}

TEST(MaternKernelTest, LengthscaleDerivativeMatchesFiniteDifferences) {
  const std::vector<double> base = {std::log(0.3), std::log(0.8),
                                    std::log(1.5)};
  const std::vector<FeatureKind> kinds = {kCont, kCont, kCat};
  const double a[] = {0.2, 0.9, 1};
  const double b[] = {0.5, 0.4, 2};
  MaternKernel kernel(kinds, base, 1.3);
  const double r2 = kernel.SquaredDistance(a, b);
  const double slope = kernel.SlopeFromSquaredDistance(r2);
  for (int i = 0; i < 3; ++i) {
    const double h = 1e-6;
    std::vector<double> plus = base, minus = base;
    plus[i] += h;
    minus[i] -= h;
    const double numeric = (MaternKernel(kinds, plus, 1.3)(a, b) -
                            MaternKernel(kinds, minus, 1.3)(a, b)) /
                           (2 * h);
    const double analytic = slope * kernel.Term(i, a[i], b[i]);
    EXPECT_NEAR(analytic, numeric, 1e-8) << "feature " << i;
  }
}

TEST(MaternKernelTest, InputDerivativeMatchesFiniteDifferences) {
  const std::vector<double> log_l = {std::log(0.3), std::log(0.8)};
  MaternKernel kernel({kCont, kCont}, log_l, 0.9);
  const double b[] = {0.5, 0.4};
  for (const auto& point :
       {std::vector<double>{0.2, 0.9}, std::vector<double>{0.5, 0.4000001},
        std::vector<double>{0.51, 0.39}}) {
    const double r2 = kernel.SquaredDistance(point.data(), b);
    const double slope = kernel.SlopeFromSquaredDistance(r2);
    for (int i = 0; i < 2; ++i) {
      const double h = 1e-7;
      std::vector<double> plus = point, minus = point;
      plus[i] += h;
      minus[i] -= h;
      const double numeric =
          (kernel(plus.data(), b) - kernel(minus.data(), b)) / (2 * h);
      const double analytic =
          -slope * (point[i] - b[i]) * kernel.inverse_squared_lengthscale(i);
      EXPECT_NEAR(analytic, numeric, 1e-6) << "feature " << i;
    }
  }
}

}  // namespace
}  // namespace hptune::algorithms::gp
