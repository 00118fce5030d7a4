#include "algorithms/gp/lbfgs.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune_testing::StatusHasCode;

// f = sum_i (i + 1) (x_i - c_i)^2.
Objective Quadratic(std::vector<double> center) {
  return [center](std::span<const double> x, std::span<double> g) {
    double f = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double w = static_cast<double>(i + 1);
      f += w * (x[i] - center[i]) * (x[i] - center[i]);
      if (!g.empty()) g[i] = 2 * w * (x[i] - center[i]);
    }
    return f;
  };
}

TEST(LbfgsTest, FindsTheMinimumOfAQuadratic) {
  const std::vector<double> lower(3, -10), upper(3, 10);
  auto result =
      MinimizeLbfgs(Quadratic({1, -2, 3}), std::vector<double>{0, 0, 0}, lower,
                    upper, LbfgsOptions());
  ASSERT_OK(result);
  EXPECT_NEAR(result->x[0], 1, 1e-5);
  EXPECT_NEAR(result->x[1], -2, 1e-5);
  EXPECT_NEAR(result->x[2], 3, 1e-5);
  EXPECT_LT(result->value, 1e-9);
  EXPECT_GT(result->evaluations, 0);
}

TEST(LbfgsTest, StaysInTheBox) {
  const std::vector<double> lower = {0, 0}, upper = {1, 1};
  // Start outside the box: clamped first.
  auto result = MinimizeLbfgs(Quadratic({2, -1}), std::vector<double>{5, 5},
                              lower, upper, LbfgsOptions());
  ASSERT_OK(result);
  EXPECT_NEAR(result->x[0], 1, 1e-9);
  EXPECT_NEAR(result->x[1], 0, 1e-9);
}

TEST(LbfgsTest, BacksOffNonFiniteRegions) {
  // NaN for x > 0.5; the minimum of the finite part is at the edge.
  Objective f = [](std::span<const double> x, std::span<double> g) {
    if (x[0] > 0.5) return std::nan("");
    if (!g.empty()) g[0] = -1;
    return -x[0];
  };
  const std::vector<double> lower = {0}, upper = {1};
  auto result =
      MinimizeLbfgs(f, std::vector<double>{0.1}, lower, upper, LbfgsOptions());
  ASSERT_OK(result);
  EXPECT_LE(result->x[0], 0.5);
  EXPECT_GT(result->x[0], 0.1);
}

TEST(LbfgsTest, NoFiniteValueIsAnError) {
  Objective f = [](std::span<const double>, std::span<double>) {
    return std::nan("");
  };
  const std::vector<double> lower = {0}, upper = {1};
  auto result =
      MinimizeLbfgs(f, std::vector<double>{0.5}, lower, upper, LbfgsOptions());
  EXPECT_THAT(result, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(std::string(result.status().message()).substr(0, 37),
            "L-BFGS: no finite objective value in ");
}

}  // namespace
}  // namespace hptune::algorithms::gp
