#include "benchmarks/quality/test_functions.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hptune::quality {
namespace {

using std::numbers::pi;

// Only for calls that break a precondition (a programmer's error).
[[noreturn]] void DieBecause(const std::string& why) {
  std::fprintf(stderr, "quality: broken invariant: %s\n", why.c_str());
  std::abort();
}

// The per-coordinate minimum of Styblinski-Tang, 1/2 (x^4 - 16 x^2 + 5 x) at
// x = -2.9035340277711783.
constexpr double kStyblinskiTangMinPerDimension = -39.16616570377142;

ParameterSpec DoubleParameter(std::string name, double min, double max) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kDouble;
  spec.min_value = min;
  spec.max_value = max;
  spec.scale = ScaleType::kLinear;
  return spec;
}

// x1..xd, each over [min, max].
SearchSpace Box(int d, double min, double max) {
  std::vector<ParameterSpec> parameters;
  for (int i = 1; i <= d; ++i) {
    parameters.push_back(DoubleParameter(absl::StrCat("x", i), min, max));
  }
  return SearchSpace(std::move(parameters));
}

// A function of x1..xd as a function of assignments.
std::function<double(const ParameterAssignment&)> OnCoordinates(
    int d, double (*f)(std::span<const double>)) {
  std::vector<std::string> names;
  for (int i = 1; i <= d; ++i) names.push_back(absl::StrCat("x", i));
  return [names = std::move(names), f](const ParameterAssignment& a) {
    std::vector<double> x;
    x.reserve(names.size());
    for (const std::string& name : names) x.push_back(a.at(name).AsDouble());
    return f(x);
  };
}

TestFunction BoxFunction(std::string name, int d, double min, double max,
                         double optimum, double (*f)(std::span<const double>)) {
  return TestFunction{.name = std::move(name),
                      .space = Box(d, min, max),
                      .optimum = optimum,
                      .evaluate = OnCoordinates(d, f)};
}

TestFunction MakeBranin() {
  return TestFunction{
      .name = "branin",
      .space = SearchSpace(
          {DoubleParameter("x1", -5, 10), DoubleParameter("x2", 0, 15)}),
      .optimum = 5 / (4 * pi),
      .evaluate = [](const ParameterAssignment& a) {
        return Branin(a.at("x1").AsDouble(), a.at("x2").AsDouble());
      }};
}

TestFunction MakeMixed() {
  ParameterSpec n{.name = "n",
                  .type = ParameterType::kInteger,
                  .min_value = 1,
                  .max_value = 20,
                  .scale = ScaleType::kLinear};
  ParameterSpec c{.name = "c",
                  .type = ParameterType::kCategorical,
                  .categorical_values = {"a", "b", "c", "d"}};
  return TestFunction{
      .name = "mixed",
      .space = SearchSpace(
          {DoubleParameter("x", -5, 5), DoubleParameter("y", -5, 5), n, c}),
      .optimum = 0,
      .evaluate = [](const ParameterAssignment& a) {
        return MixedFunction(a.at("x").AsDouble(), a.at("y").AsDouble(),
                             a.at("n").AsInteger(), a.at("c").AsString());
      }};
}

}  // namespace

double Branin(double x1, double x2) {
  constexpr double a = 1, b = 5.1 / (4 * pi * pi), c = 5 / pi, r = 6, s = 10,
                   t = 1 / (8 * pi);
  const double q = x2 - b * x1 * x1 + c * x1 - r;
  return a * q * q + s * (1 - t) * std::cos(x1) + s;
}

double Hartmann6(std::span<const double> x) {
  if (x.size() != 6) DieBecause(absl::StrCat("Hartmann6 of ", x.size(), "-D"));
  static constexpr std::array<double, 4> kAlpha = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  // P_ij = 10^-4 * these.
  static constexpr double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                      {2329, 4135, 8307, 3736, 1004, 9991},
                                      {2348, 1451, 3522, 2883, 3047, 6650},
                                      {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      const double diff = x[j] - 1e-4 * kP[i][j];
      inner += kA[i][j] * diff * diff;
    }
    sum += kAlpha[i] * std::exp(-inner);
  }
  return -sum;
}

double Ackley(std::span<const double> x) {
  constexpr double a = 20, b = 0.2, c = 2 * pi;
  double squares = 0, cosines = 0;
  for (double xi : x) {
    squares += xi * xi;
    cosines += std::cos(c * xi);
  }
  const double d = static_cast<double>(x.size());
  return -a * std::exp(-b * std::sqrt(squares / d)) - std::exp(cosines / d) +
         a + std::numbers::e;
}

double Rosenbrock(std::span<const double> x) {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double valley = x[i + 1] - x[i] * x[i];
    sum += 100 * valley * valley + (x[i] - 1) * (x[i] - 1);
  }
  return sum;
}

double Levy(std::span<const double> x) {
  if (x.empty()) DieBecause("Levy of 0-D");
  auto w = [&](size_t i) { return 1 + (x[i] - 1) / 4; };
  auto square = [](double v) { return v * v; };
  const size_t d = x.size();
  double sum = square(std::sin(pi * w(0)));
  for (size_t i = 0; i + 1 < d; ++i) {
    sum += square(w(i) - 1) * (1 + 10 * square(std::sin(pi * w(i) + 1)));
  }
  sum += square(w(d - 1) - 1) * (1 + square(std::sin(2 * pi * w(d - 1))));
  return sum;
}

double StyblinskiTang(std::span<const double> x) {
  double sum = 0;
  for (double xi : x) sum += xi * xi * xi * xi - 16 * xi * xi + 5 * xi;
  return sum / 2;
}

double MixedFunction(double x, double y, int64_t n, std::string_view c) {
  // MU and BASE by category a, b, c, d.
  static constexpr double kMu[] = {-1, 1, 3, 0};
  static constexpr double kBase[] = {0.5, 0, 1, 2};
  if (c.size() != 1 || c[0] < 'a' || c[0] > 'd') {
    DieBecause(
        absl::StrCat("MixedFunction of category \"", std::string(c), "\""));
  }
  const int k = c[0] - 'a';
  const double dn = static_cast<double>(n) - 7;
  return (x - kMu[k]) * (x - kMu[k]) + (y + 2) * (y + 2) + 0.25 * dn * dn +
         kBase[k] + 0.5 * (1 - std::cos(2 * pi * (y + 2)));
}

const std::vector<TestFunction>& TestSuite() {
  static const std::vector<TestFunction>* const kSuite =
      new std::vector<TestFunction>{
          MakeBranin(),
          BoxFunction("hartmann6", 6, 0, 1, -3.32237, Hartmann6),
          BoxFunction("ackley5", 5, -10, 30, 0, Ackley),
          BoxFunction("rosenbrock4", 4, -5, 10, 0, Rosenbrock),
          BoxFunction("levy4", 4, -10, 10, 0, Levy),
          BoxFunction("styblinski_tang8", 8, -5, 5,
                      8 * kStyblinskiTangMinPerDimension, StyblinskiTang),
          MakeMixed(),
      };
  return *kSuite;
}

absl::StatusOr<const TestFunction*> FindTestFunction(std::string_view name) {
  std::vector<std::string> names;
  for (const TestFunction& f : TestSuite()) {
    if (f.name == name) return &f;
    names.push_back(f.name);
  }
  return absl::NotFoundError(
      absl::StrCat("unknown test function \"", std::string(name),
                   "\" (known: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace hptune::quality
