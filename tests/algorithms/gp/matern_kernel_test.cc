#include "algorithms/gp/matern_kernel.h"

#include <cmath>
#include <limits>
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

// |a - b| within `ulps` units in the last place of b, or both below the
// smallest normal double (exp's result there is 0 in the batch).
::testing::AssertionResult WithinUlps(double a, double b, double ulps) {
  if (std::abs(b) < 1e-300 && std::abs(a) < 1e-300) {
    return ::testing::AssertionSuccess();
  }
  const double bound =
      ulps * std::numeric_limits<double>::epsilon() * std::abs(b);
  if (std::abs(a - b) <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << a << " and " << b << " differ by " << std::abs(a - b);
}

TEST(MaternKernelTest, BatchedValuesAndSlopesAgreeWithTheScalarOnes) {
  const std::vector<double> log_l = {std::log(0.3)};
  MaternKernel kernel({kCont}, log_l, 1.7);
  // 21 entries: two lanes of eight and a padded rest; the last ones
  // underflow exp.
  std::vector<double> r2 = {0,    1e-300, 1e-12, 1e-6, 0.001, 0.01, 0.1,
                            0.25, 0.5,    1,     2,    3.5,   5,    8,
                            13,   21,     50,    200,  1e4,   1e5,  1e6};
  std::vector<double> values = r2, slopes(r2.size());
  kernel.FromSquaredDistances(values, slopes);
  std::vector<double> only_values = r2;
  kernel.FromSquaredDistances(only_values);
  for (size_t i = 0; i < r2.size(); ++i) {
    double value, slope;
    kernel.ValueAndSlope(r2[i], value, slope);
    EXPECT_TRUE(WithinUlps(values[i], value, 8)) << "r2 = " << r2[i];
    EXPECT_TRUE(WithinUlps(slopes[i], slope, 8)) << "r2 = " << r2[i];
    EXPECT_TRUE(
        WithinUlps(only_values[i], kernel.FromSquaredDistance(r2[i]), 8))
        << "r2 = " << r2[i];
  }
}

TEST(MaternKernelTest, RowValuesAreTheKernelBetweenTheRowAndEachPoint) {
  const std::vector<double> log_l = {std::log(0.3), std::log(2.0),
                                     std::log(0.7)};
  MaternKernel kernel({kCont, kCat, kCont}, log_l, 1.3);
  constexpr int kCount = 19;
  std::vector<double> points(3 * kCount);  // Feature-major.
  for (int c = 0; c < kCount; ++c) {
    points[c] = std::fmod(0.37 * c, 1.0);
    points[kCount + c] = c % 3;
    points[2 * kCount + c] = std::fmod(0.61 * c + 0.2, 1.0);
  }
  const double row[] = {0.5, 1, 0.25};
  std::vector<double> out(kCount);
  kernel.RowValues(row, points.data(), kCount, out.data());
  for (int c = 0; c < kCount; ++c) {
    const double point[] = {points[c], points[kCount + c],
                            points[2 * kCount + c]};
    EXPECT_TRUE(WithinUlps(out[c], kernel(point, row), 8)) << c;
  }
}

}  // namespace
}  // namespace hptune::algorithms::gp
