#include "benchmarks/quality/multiobjective_problems.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "benchmarks/quality/test_functions.h"
#include "algorithms/multiobjective/pareto.h"

namespace hptune::quality {
namespace {

using std::numbers::pi;

// The hypervolume of the values of `points`, objectives minimised.
double MinimisedHypervolume(const MultiObjectiveProblem& problem,
                            const std::vector<std::vector<double>>& points) {
  std::vector<std::vector<double>> negated;
  for (const auto& x : points) {
    std::vector<double> f = problem.evaluate(x);
    for (double& v : f) v = -v;
    negated.push_back(std::move(f));
  }
  std::vector<double> reference = problem.reference;
  for (double& v : reference) v = -v;
  auto volume = algorithms::Hypervolume(negated, reference);
  EXPECT_TRUE(volume.ok()) << volume.status();
  return volume.value_or(0);
}

const MultiObjectiveProblem& Problem(const std::string& name) {
  for (const auto& problem : MultiObjectiveSuite()) {
    if (problem.name == name) return problem;
  }
  ADD_FAILURE() << "no problem " << name;
  return MultiObjectiveSuite().front();
}

TEST(MultiObjectiveSuiteTest, EveryProblemIsWhole) {
  std::vector<std::string> names;
  for (const auto& problem : MultiObjectiveSuite()) {
    names.push_back(problem.name);
    std::vector<double> middle;
    for (const auto& p : problem.space.parameters()) {
      middle.push_back((p.min_value + p.max_value) / 2);
    }
    EXPECT_EQ(problem.evaluate(middle).size(),
              static_cast<size_t>(problem.objectives))
        << problem.name;
    EXPECT_EQ(problem.reference.size(), static_cast<size_t>(problem.objectives))
        << problem.name;
    EXPECT_GT(problem.optimal_hypervolume, 0) << problem.name;
  }
  EXPECT_THAT(names, ::testing::ElementsAre("branin_currin", "zdt1", "zdt2",
                                            "dtlz2", "constrained_branin"));
}

TEST(ZdtTest, TheFrontIsWhereTheOtherCoordinatesAreZero) {
  const std::vector<double> on = {0.25, 0, 0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(Zdt1(on)[1], 1 - 0.5);
  EXPECT_DOUBLE_EQ(Zdt2(on)[1], 1 - 0.0625);
  const std::vector<double> off = {0.25, 0.5, 0, 0, 0, 0};
  EXPECT_GT(Zdt1(off)[1], Zdt1(on)[1]);
  EXPECT_GT(Zdt2(off)[1], Zdt2(on)[1]);
}

// A dense sample of the true front comes within its sampling error of the
// stated hypervolume and never above it.
TEST(MultiObjectiveSuiteTest, ADenseFrontReachesTheStatedHypervolume) {
  for (const char* name : {"zdt1", "zdt2"}) {
    const MultiObjectiveProblem& problem = Problem(name);
    std::vector<std::vector<double>> front;
    for (int i = 0; i <= 2000; ++i) {
      front.push_back({i / 2000.0, 0, 0, 0, 0, 0});
    }
    const double volume = MinimisedHypervolume(problem, front);
    EXPECT_LE(volume, problem.optimal_hypervolume + 1e-9) << name;
    EXPECT_GT(volume, problem.optimal_hypervolume - 1e-3) << name;
  }
  const MultiObjectiveProblem& dtlz2 = Problem("dtlz2");
  std::vector<std::vector<double>> sphere;
  for (int i = 0; i <= 60; ++i) {
    for (int j = 0; j <= 60; ++j) {
      sphere.push_back({i / 60.0, j / 60.0, 0.5, 0.5, 0.5, 0.5});
    }
  }
  const double volume = MinimisedHypervolume(dtlz2, sphere);
  EXPECT_LE(volume, dtlz2.optimal_hypervolume + 1e-9);
  EXPECT_GT(volume, dtlz2.optimal_hypervolume - 0.02);
}

TEST(BraninCurrinTest, FinerGridsApproachBoTorchsFrontHypervolume) {
  // The front lies along a narrow valley: a grid of n x n points reaches
  // 58.50 at n = 300 and 59.15 at n = 1000 (59.28 at 2000), below the
  // stated 59.3601 (which BoTorch found with NSGA-II); the same sums in
  // numpy, apart from this code, give the same figures.
  const MultiObjectiveProblem& problem = Problem("branin_currin");
  auto grid_volume = [&](int n) {
    std::vector<std::vector<double>> grid;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j)
        grid.push_back({i / double(n), j / double(n)});
    }
    return MinimisedHypervolume(problem, grid);
  };
  const double coarse = grid_volume(300), fine = grid_volume(1000);
  EXPECT_NEAR(coarse, 58.5003, 1e-3);
  EXPECT_NEAR(fine, 59.1492, 1e-3);
  EXPECT_LE(fine, problem.optimal_hypervolume);
  // At x2 = 0 Currin's first factor is its limit, 1.
  EXPECT_DOUBLE_EQ(BraninCurrin(std::vector<double>{0, 0})[1], 60.0 / 20);
}

TEST(ConstrainedBraninTest, OneMinimiserIsFeasibleAndTheOthersAreNot) {
  const MultiObjectiveProblem& problem = Problem("constrained_branin");
  const std::vector<double> inside = {pi, 2.275};
  EXPECT_LE(problem.constraints(inside)[0], 0);
  EXPECT_NEAR(problem.evaluate(inside)[0], 5 / (4 * pi), 1e-5);
  EXPECT_GT(DiscConstraint(std::vector<double>{-pi, 12.275}), 0);
  EXPECT_GT(DiscConstraint(std::vector<double>{9.42478, 2.475}), 0);
  // The reference is above Branin everywhere in the box.
  double highest = 0;
  for (int i = 0; i <= 150; ++i) {
    for (int j = 0; j <= 150; ++j) {
      highest = std::max(highest, Branin(-5 + i / 10.0, j / 10.0));
    }
  }
  EXPECT_NEAR(highest, 308.13, 0.01);
  EXPECT_LT(highest, problem.reference[0]);
}

}  // namespace
}  // namespace hptune::quality
