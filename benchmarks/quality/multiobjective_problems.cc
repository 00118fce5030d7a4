#include "benchmarks/quality/multiobjective_problems.h"

#include <cmath>
#include <numbers>

#include "benchmarks/quality/test_functions.h"

namespace hptune::quality {
namespace {

using std::numbers::pi;

// 1 + 9 / (n - 1) sum_{i>=2} x_i, ZDT's distance from the front.
double ZdtG(std::span<const double> x) {
  double sum = 0;
  for (size_t i = 1; i < x.size(); ++i) sum += x[i];
  return 1 + 9 * sum / static_cast<double>(x.size() - 1);
}

}  // namespace

std::vector<double> BraninCurrin(std::span<const double> x) {
  const double x1 = x[0], x2 = x[1];
  const double currin =
      (1 - std::exp(-1 / (2 * x2))) *
      (2300 * x1 * x1 * x1 + 1900 * x1 * x1 + 2092 * x1 + 60) /
      (100 * x1 * x1 * x1 + 500 * x1 * x1 + 4 * x1 + 20);
  return {Branin(15 * x1 - 5, 15 * x2), currin};
}

std::vector<double> Zdt1(std::span<const double> x) {
  const double g = ZdtG(x);
  return {x[0], g * (1 - std::sqrt(x[0] / g))};
}

std::vector<double> Zdt2(std::span<const double> x) {
  const double g = ZdtG(x);
  return {x[0], g * (1 - (x[0] / g) * (x[0] / g))};
}

std::vector<double> Dtlz2(std::span<const double> x) {
  double g = 0;
  for (size_t i = 2; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
  const double a = pi * x[0] / 2, b = pi * x[1] / 2;
  return {(1 + g) * std::cos(a) * std::cos(b),
          (1 + g) * std::cos(a) * std::sin(b), (1 + g) * std::sin(a)};
}

double DiscConstraint(std::span<const double> x) {
  return (x[0] - 2.5) * (x[0] - 2.5) + (x[1] - 7.5) * (x[1] - 7.5) - 50;
}

const std::vector<MultiObjectiveProblem>& MultiObjectiveSuite() {
  static const auto* suite = new std::vector<MultiObjectiveProblem>{
      {.name = "branin_currin",
       .space = Box(2, 0, 1),
       .objectives = 2,
       .evaluate = BraninCurrin,
       .reference = {18, 6},
       .optimal_hypervolume = 59.36011874867746},
      {.name = "zdt1",
       .space = Box(6, 0, 1),
       .objectives = 2,
       .evaluate = Zdt1,
       .reference = {11, 11},
       .optimal_hypervolume = 120 + 2.0 / 3},
      {.name = "zdt2",
       .space = Box(6, 0, 1),
       .objectives = 2,
       .evaluate = Zdt2,
       .reference = {11, 11},
       .optimal_hypervolume = 120 + 1.0 / 3},
      {.name = "dtlz2",
       .space = Box(6, 0, 1),
       .objectives = 3,
       .evaluate = Dtlz2,
       .reference = {1.1, 1.1, 1.1},
       .optimal_hypervolume = 1.1 * 1.1 * 1.1 - pi / 6},
      {.name = "constrained_branin",
       .space = SearchSpace(
           {DoubleParameter("x1", -5, 10), DoubleParameter("x2", 0, 15)}),
       .objectives = 1,
       .evaluate =
           [](std::span<const double> x) {
             return std::vector<double>{Branin(x[0], x[1])};
           },
       .constraints =
           [](std::span<const double> x) {
             return std::vector<double>{DiscConstraint(x)};
           },
       .reference = {310},
       .optimal_hypervolume = 310 - 5 / (4 * pi)},
  };
  return *suite;
}

}  // namespace hptune::quality
