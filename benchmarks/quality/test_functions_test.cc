#include "benchmarks/quality/test_functions.h"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hptune::quality {
namespace {

using std::numbers::pi;

// Reference values: the minima published by Surjanovic & Bingham's Virtual
// Library of Simulation Experiments, and values at other points worked out
// by hand from the formulas (shown) or, where noted, with an independent
// NumPy implementation. benchmarks/optuna_compare.py --check checks the same
// points on the Python side.
constexpr double kTolerance = 1e-9;

TEST(BraninTest, MinimumAtAllThreePublishedMinimisers) {
  EXPECT_NEAR(Branin(-pi, 12.275), 0.397887357729738, kTolerance);
  EXPECT_NEAR(Branin(pi, 2.275), 0.397887357729738, kTolerance);
  // 9.42478 is 3 pi rounded, so the value is a hair above the minimum.
  EXPECT_NEAR(Branin(9.42478, 2.475), 0.397887357729738, kTolerance);
}

TEST(BraninTest, ValueAtTheOrigin) {
  // (0 - 0 + 0 - 6)^2 + 10 (1 - 1/(8 pi)) cos 0 + 10 = 56 - 10/(8 pi).
  EXPECT_NEAR(Branin(0, 0), 56 - 10 / (8 * pi), kTolerance);
}

TEST(Hartmann6Test, MinimumAtThePublishedMinimiser) {
  const std::vector<double> x = {0.20169,  0.150011, 0.476874,
                                 0.275332, 0.311652, 0.6573};
  EXPECT_NEAR(Hartmann6(x), -3.32237, 1e-5);
}

TEST(Hartmann6Test, ValueAtTheCentre) {
  // NumPy: -0.5053149917022333.
  EXPECT_NEAR(Hartmann6(std::vector<double>(6, 0.5)), -0.5053149917022333,
              kTolerance);
}

TEST(AckleyTest, ZeroAtTheOrigin) {
  EXPECT_NEAR(Ackley(std::vector<double>(5, 0.0)), 0, kTolerance);
}

TEST(AckleyTest, ValueAtAllOnes) {
  // cos(2 pi) = 1, so f = -20 e^-0.2 - e + 20 + e = 20 (1 - e^-0.2).
  EXPECT_NEAR(Ackley(std::vector<double>(5, 1.0)), 20 * (1 - std::exp(-0.2)),
              kTolerance);
}

TEST(RosenbrockTest, ZeroAtAllOnes) {
  EXPECT_EQ(Rosenbrock(std::vector<double>(4, 1.0)), 0);
}

TEST(RosenbrockTest, ValueAtOneTwoThreeFour) {
  // 100 (2-1)^2 + 0 + 100 (3-4)^2 + 1 + 100 (4-9)^2 + 4 = 2705.
  EXPECT_EQ(Rosenbrock(std::vector<double>{1, 2, 3, 4}), 2705);
  // Each of the three terms is 0 + (0 - 1)^2.
  EXPECT_EQ(Rosenbrock(std::vector<double>(4, 0.0)), 3);
}

TEST(LevyTest, ZeroAtAllOnes) {
  EXPECT_NEAR(Levy(std::vector<double>(4, 1.0)), 0, kTolerance);
}

TEST(LevyTest, ValueAtTheOrigin) {
  // w = 3/4: sin^2(3 pi/4) + 3 (1/16) (1 + 10 sin^2(3 pi/4 + 1))
  //   + (1/16) (1 + sin^2(3 pi/2)).
  const double s = std::sin(3 * pi / 4 + 1);
  const double expected = 0.5 + 3.0 / 16 * (1 + 10 * s * s) + 2.0 / 16;
  EXPECT_NEAR(Levy(std::vector<double>(4, 0.0)), expected, kTolerance);
  EXPECT_NEAR(expected, 0.8975336623509236, kTolerance);  // NumPy.
}

TEST(StyblinskiTangTest, MinimumAtThePublishedMinimiser) {
  EXPECT_NEAR(StyblinskiTang(std::vector<double>(8, -2.903534)), -39.16617 * 8,
              1e-4);
}

TEST(StyblinskiTangTest, ValueAtAllOnes) {
  // 1/2 * 8 * (1 - 16 + 5) = -40.
  EXPECT_EQ(StyblinskiTang(std::vector<double>(8, 1.0)), -40);
}

TEST(MixedFunctionTest, ZeroAtItsMinimiser) {
  EXPECT_NEAR(MixedFunction(1, -2, 7, "b"), 0, kTolerance);
}

TEST(MixedFunctionTest, EachCategoryHasItsOwnCentreAndFloor) {
  // (0-0)^2 + (0+2)^2 + 0.25 (1-7)^2 + 2 + 0.5 (1 - cos 4 pi) = 15.
  EXPECT_NEAR(MixedFunction(0, 0, 1, "d"), 15, kTolerance);
  // 0 + 0.25 + 0 + 0.5 + 0.5 (1 - cos pi) = 1.75.
  EXPECT_NEAR(MixedFunction(-1, -1.5, 7, "a"), 1.75, kTolerance);
  // At its own centre, category c sits on its floor of 1.
  EXPECT_NEAR(MixedFunction(3, -2, 7, "c"), 1, kTolerance);
}

TEST(NarrowCategoryTest, ZeroAtItsMinimiser) {
  EXPECT_NEAR(NarrowCategory("c", 0.85, 0.5), 0, kTolerance);
  auto f = FindTestFunction("narrow_category");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->evaluate({{"c", ParameterValue::Categorical("c")},
                            {"x", ParameterValue::Double(0.85)},
                            {"y", ParameterValue::Double(0.5)}}),
            (*f)->optimum);
}

TEST(NarrowCategoryTest, CategoryCWinsOnlyInATenthOfX) {
  // The other floors: a 0.4, b 0.2, d 0.6 (+ 0.49 + 0.25 at the origin).
  EXPECT_NEAR(NarrowCategory("a", 0.3, 0.5), 0.4, kTolerance);
  EXPECT_NEAR(NarrowCategory("b", 0.5, 0.5), 0.2, kTolerance);
  EXPECT_NEAR(NarrowCategory("d", 0, 0), 1.34, kTolerance);
  // One width (0.05) from its centre, c is just below b's best:
  // 0.5 - 0.5 exp(-1/2).
  EXPECT_NEAR(NarrowCategory("c", 0.9, 0.5), 0.1967346701436833, kTolerance);
  EXPECT_NEAR(NarrowCategory("c", 0.8, 0.5), 0.1967346701436833, kTolerance);
  // Elsewhere c is the worst category but d.
  EXPECT_NEAR(NarrowCategory("c", 0.1, 0.7), 0.54, kTolerance);
  EXPECT_GT(NarrowCategory("c", 0.7, 0.5), 0.4);
}

TEST(GoldsteinPriceTest, ThreeAtTheMinimiserAndHandValuesElsewhere) {
  EXPECT_NEAR(GoldsteinPrice(0, -1), 3, kTolerance);
  // (1 + 1 * 19) (30 + 0) = 600.
  EXPECT_NEAR(GoldsteinPrice(0, 0), 600, kTolerance);
  // (1 + 9 * 3) (30 + 1 * 37) = 1876.
  EXPECT_NEAR(GoldsteinPrice(1, 1), 1876, kTolerance);
}

TEST(SixHumpCamelTest, BothMinimisersAndAHandValue) {
  EXPECT_NEAR(SixHumpCamel(0.0898420131696692, -0.7126563960629594),
              -1.031628453489877, kTolerance);
  EXPECT_NEAR(SixHumpCamel(-0.0898420131696692, 0.7126563960629594),
              -1.031628453489877, kTolerance);
  // (4 - 2.1 + 1/3) + 1 + 0 = 3.2333...
  EXPECT_NEAR(SixHumpCamel(1, 1), 4 - 2.1 + 1.0 / 3 + 1, kTolerance);
}

TEST(Hartmann3Test, MinimumAtThePublishedMinimiserAndTheCentre) {
  EXPECT_NEAR(Hartmann3(std::vector<double>{0.114614, 0.555649, 0.852547}),
              -3.86278, 1e-5);
  // NumPy: -0.6280220150705937.
  EXPECT_NEAR(Hartmann3(std::vector<double>(3, 0.5)), -0.6280220150705937,
              kTolerance);
}

TEST(ShekelTest, MinimumNearFoursAndValueAtTheOrigin) {
  EXPECT_NEAR(Shekel(std::vector<double>(4, 4.0)), -10.5363, 1e-4);
  // NumPy: -0.3217290516382167.
  EXPECT_NEAR(Shekel(std::vector<double>(4, 0.0)), -0.3217290516382167,
              kTolerance);
}

TEST(DixonPriceTest, ZeroAtItsMinimiserAndHandValueAtAllOnes) {
  std::vector<double> x(6);
  for (int i = 1; i <= 6; ++i) {
    x[i - 1] = std::pow(2, -(std::pow(2, i) - 2) / std::pow(2, i));
  }
  EXPECT_NEAR(DixonPrice(x), 0, kTolerance);
  // 0 + sum_{i=2..6} i (2 - 1)^2 = 20.
  EXPECT_EQ(DixonPrice(std::vector<double>(6, 1.0)), 20);
}

TEST(PowellTest, ZeroAtTheOriginAndHandValueAtAllOnes) {
  EXPECT_EQ(Powell(std::vector<double>(8, 0.0)), 0);
  // Per block (1 + 10)^2 + 0 + (1 - 2)^4 + 0 = 122.
  EXPECT_EQ(Powell(std::vector<double>(8, 1.0)), 244);
}

// The suite's entries: the optimum is the value at the minimiser, read
// through the search space's parameter names, and the minimiser is feasible.
struct KnownMinimum {
  std::string function;
  ParameterAssignment minimiser;
};

ParameterAssignment Coordinates(const std::vector<double>& x) {
  ParameterAssignment a;
  for (size_t i = 0; i < x.size(); ++i) {
    a[absl::StrCat("x", i + 1)] = ParameterValue::Double(x[i]);
  }
  return a;
}

std::vector<KnownMinimum> KnownMinima() {
  return {
      {"branin", Coordinates({pi, 2.275})},
      {"hartmann6",
       Coordinates({0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573})},
      {"ackley5", Coordinates(std::vector<double>(5, 0.0))},
      {"rosenbrock4", Coordinates(std::vector<double>(4, 1.0))},
      {"levy4", Coordinates(std::vector<double>(4, 1.0))},
      {"styblinski_tang8",
       Coordinates(std::vector<double>(8, -2.9035340277711783))},
      {"mixed",
       {{"x", ParameterValue::Double(1)},
        {"y", ParameterValue::Double(-2)},
        {"n", ParameterValue::Integer(7)},
        {"c", ParameterValue::Categorical("b")}}},
  };
}

std::vector<KnownMinimum> HoldoutMinima() {
  std::vector<double> dixon_price(6);
  for (int i = 1; i <= 6; ++i) {
    dixon_price[i - 1] = std::pow(2, -(std::pow(2, i) - 2) / std::pow(2, i));
  }
  return {
      {"goldstein_price", Coordinates({0, -1})},
      {"six_hump_camel",
       Coordinates({0.0898420131696692, -0.7126563960629594})},
      {"hartmann3", Coordinates({0.11458887895319075, 0.555648894340092,
                                 0.8525469783718772})},
      {"shekel4", Coordinates({4.000746868418765, 3.9995094799887116,
                               4.000746868418765, 3.9995094799887116})},
      {"dixon_price6", Coordinates(dixon_price)},
      {"powell8", Coordinates(std::vector<double>(8, 0.0))},
  };
}

TEST(TestSuiteTest, OptimumIsTheValueAtAFeasibleMinimiser) {
  std::vector<KnownMinimum> minima = KnownMinima();
  ASSERT_EQ(TestSuite().size(), minima.size());
  const std::vector<KnownMinimum> holdout = HoldoutMinima();
  ASSERT_EQ(HoldoutSuite().size(), holdout.size());
  minima.insert(minima.end(), holdout.begin(), holdout.end());
  for (const KnownMinimum& m : minima) {
    SCOPED_TRACE(m.function);
    auto f = FindTestFunction(m.function);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_TRUE((*f)->space.CheckAssignment(m.minimiser).ok());
    EXPECT_NEAR((*f)->evaluate(m.minimiser), (*f)->optimum, 1e-5);
  }
}

// The held-out optima were computed here, not copied from the library (which
// rounds them): each must be a stationary point with nothing lower nearby.
TEST(TestSuiteTest, HoldoutOptimaAreLocalMinimaToTheLastDigits) {
  constexpr double kStep = 1e-4;
  for (const KnownMinimum& m : HoldoutMinima()) {
    SCOPED_TRACE(m.function);
    auto f = FindTestFunction(m.function);
    ASSERT_TRUE(f.ok()) << f.status();
    for (const auto& [name, value] : m.minimiser) {
      SCOPED_TRACE(name);
      for (double step : {-kStep, kStep}) {
        ParameterAssignment moved = m.minimiser;
        moved[name] = ParameterValue::Double(value.AsDouble() + step);
        if (!(*f)->space.CheckAssignment(moved).ok()) continue;
        // A quadratic rise: no linear term, so the gradient is nil.
        const double rise = (*f)->evaluate(moved) - (*f)->optimum;
        EXPECT_GE(rise, 0);
        EXPECT_LT(rise, 1e3 * kStep * kStep);
      }
    }
  }
}

TEST(TestSuiteTest, HoldoutNamesDifferFromTheSuite) {
  for (const TestFunction& held_out : HoldoutSuite()) {
    for (const TestFunction& f : TestSuite()) EXPECT_NE(held_out.name, f.name);
    auto found = FindTestFunction(held_out.name);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(*found, &held_out);
  }
}

TEST(TestSuiteTest, AckleyIsOffCentreSoTheBoxMiddleIsNotOptimal) {
  auto f = FindTestFunction("ackley5");
  ASSERT_TRUE(f.ok());
  for (const ParameterSpec& p : (*f)->space.parameters()) {
    EXPECT_EQ(p.min_value, -10);
    EXPECT_EQ(p.max_value, 30);
  }
  EXPECT_GT((*f)->evaluate(Coordinates(std::vector<double>(5, 10.0))), 10);
}

TEST(TestSuiteTest, MixedSpaceHasEveryKindOfParameter) {
  auto f = FindTestFunction("mixed");
  ASSERT_TRUE(f.ok());
  const auto& p = (*f)->space.parameters();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[2].type, ParameterType::kInteger);
  EXPECT_EQ(p[2].min_value, 1);
  EXPECT_EQ(p[2].max_value, 20);
  EXPECT_EQ(p[3].type, ParameterType::kCategorical);
  EXPECT_EQ(p[3].categorical_values,
            (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(TestSuiteTest, UnknownFunctionNamesItAndTheSuite) {
  auto f = FindTestFunction("sphere");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(f.status().message(),
            "unknown test function \"sphere\" (known: branin, hartmann6, "
            "ackley5, rosenbrock4, levy4, styblinski_tang8, mixed, "
            "goldstein_price, six_hump_camel, hartmann3, shekel4, "
            "dixon_price6, powell8, branin_noisy, hartmann6_noisy, "
            "ackley5_noisy, rosenbrock4_noisy, levy4_noisy, "
            "styblinski_tang8_noisy, mixed_noisy, narrow_category)");
}

TEST(TestSuiteTest, NoisySuiteIsTheSuiteWithItsNoiseLevels) {
  const std::vector<double> noise_sd = {0.04, 0.1, 1, 100, 0.3, 10, 0.2};
  ASSERT_EQ(NoisySuite().size(), TestSuite().size());
  for (size_t i = 0; i < TestSuite().size(); ++i) {
    const TestFunction& f = TestSuite()[i];
    const TestFunction& noisy = NoisySuite()[i];
    SCOPED_TRACE(f.name);
    EXPECT_EQ(f.noise_sd, 0);
    EXPECT_EQ(noisy.name, f.name + "_noisy");
    EXPECT_EQ(noisy.noise_sd, noise_sd[i]);
    EXPECT_EQ(noisy.optimum, f.optimum);
    EXPECT_EQ(noisy.space.parameters().size(), f.space.parameters().size());
    auto found = FindTestFunction(noisy.name);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(*found, &noisy);
  }
  for (const TestFunction& f : HoldoutSuite()) EXPECT_EQ(f.noise_sd, 0);
}

}  // namespace
}  // namespace hptune::quality
