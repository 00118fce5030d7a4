// Convergence of the GP designer on known functions, within a fixed budget,
// driven the way the engine drives it (a fresh designer per suggestion,
// restored from the saved state). Labelled slow.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "algorithms/gp/gp_designer.h"
#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::DoubleParam;

using Objective = double (*)(const ParameterAssignment&);

// Branin-Hoo on [-5, 10] x [0, 15]; minimum 5 / (4 pi) (Dixon & Szego 1978).
double Branin(const ParameterAssignment& a) {
  using std::numbers::pi;
  const double x1 = a.at("x1").AsDouble(), x2 = a.at("x2").AsDouble();
  const double q = x2 - 5.1 / (4 * pi * pi) * x1 * x1 + 5 / pi * x1 - 6;
  return q * q + 10 * (1 - 1 / (8 * pi)) * std::cos(x1) + 10;
}
constexpr double kBraninMinimum = 5 / (4 * std::numbers::pi);

// Hartmann 6-D on [0, 1]^6; minimum -3.32237.
double Hartmann6(const ParameterAssignment& a) {
  static constexpr std::array<double, 4> kAlpha = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                      {2329, 4135, 8307, 3736, 1004, 9991},
                                      {2348, 1451, 3522, 2883, 3047, 6650},
                                      {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      const double diff =
          a.at("x" + std::to_string(j + 1)).AsDouble() - 1e-4 * kP[i][j];
      inner += kA[i][j] * diff * diff;
    }
    sum += kAlpha[i] * std::exp(-inner);
  }
  return -sum;
}
constexpr double kHartmann6Minimum = -3.32237;

// Simple regret after `budget` sequential trials.
double Regret(const SearchSpace& space, Objective f, double minimum,
              uint64_t seed, int budget) {
  StudySpec spec;
  spec.search_space = space;
  spec.goal = Goal::kMinimize;
  spec.metric_tag = "f";
  std::vector<Trial> completed;
  std::string state;
  double best = INFINITY;
  for (int i = 0; i < budget; ++i) {
    auto designer = GpDesigner::Create(spec, seed);
    EXPECT_TRUE(designer.ok());
    EXPECT_TRUE((*designer)->RestoreState(state).ok());
    EXPECT_TRUE((*designer)->Update(completed, {}).ok());
    auto suggestions = (*designer)->Suggest(1);
    EXPECT_TRUE(suggestions.ok() && suggestions->size() == 1);
    state = (*designer)->SaveState();
    Trial t;
    t.number = i + 1;
    t.parameters = suggestions->front().parameters;
    t.state = TrialState::kSucceeded;
    const double value = f(t.parameters);
    best = std::min(best, value);
    t.final_measurement = Measurement{.step = 1, .metrics = {{"f", value}}};
    completed.push_back(std::move(t));
  }
  return best - minimum;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(GpConvergenceTest, BraninWithinFortyTrials) {
  const SearchSpace space(
      {DoubleParam("x1", -5, 10), DoubleParam("x2", 0, 15)});
  std::vector<double> regrets;
  for (uint64_t seed : {1, 2, 3}) {
    regrets.push_back(Regret(space, Branin, kBraninMinimum, seed, 40));
  }
  // Quasi-random search needs thousands of points for this.
  EXPECT_LT(Median(regrets), 1e-3);
  EXPECT_LT(*std::max_element(regrets.begin(), regrets.end()), 0.05);
}

TEST(GpConvergenceTest, Hartmann6WithinEightyTrials) {
  std::vector<ParameterSpec> params;
  for (int j = 1; j <= 6; ++j)
    params.push_back(DoubleParam("x" + std::to_string(j), 0, 1));
  const SearchSpace space(params);
  std::vector<double> regrets;
  for (uint64_t seed : {1, 2, 3}) {
    regrets.push_back(Regret(space, Hartmann6, kHartmann6Minimum, seed, 80));
  }
  // The local minimum at -3.20 has regret 0.12; random search sits near 1
  // after 80 trials.
  EXPECT_LT(*std::min_element(regrets.begin(), regrets.end()), 0.01);
  EXPECT_LT(Median(regrets), 0.15);
}

}  // namespace
}  // namespace hptune::algorithms::gp
