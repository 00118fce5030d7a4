#include "benchmarks/quality/test_functions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <numbers>
#include <string_view>
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
// Held-out minima: Newton's method (finite-difference derivatives) from the
// library's rounded minimisers; test_functions_test.cc checks that the
// gradient vanishes there.
constexpr double kSixHumpCamelMin = -1.031628453489877;
constexpr double kHartmann3Min = -3.862779787332659;
constexpr double kShekelMin = -10.536443153483527;

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

// The Hartmann family: -sum_i alpha_i exp(-sum_j A_ij (x_j - 1e-4 P_ij)^2),
// alpha = (1, 1.2, 3, 3.2); x has D coordinates.
template <size_t D>
double Hartmann(std::span<const double> x, const double (&a)[4][D],
                const double (&p)[4][D]) {
  static constexpr std::array<double, 4> kAlpha = {1.0, 1.2, 3.0, 3.2};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (size_t j = 0; j < D; ++j) {
      const double diff = x[j] - 1e-4 * p[i][j];
      inner += a[i][j] * diff * diff;
    }
    sum += kAlpha[i] * std::exp(-inner);
  }
  return -sum;
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

// f(x1, x2) over [x1_range] x [x2_range].
TestFunction PlaneFunction(std::string name, std::pair<double, double> x1_range,
                           std::pair<double, double> x2_range, double optimum,
                           double (*f)(double, double)) {
  return TestFunction{
      .name = std::move(name),
      .space =
          SearchSpace({DoubleParameter("x1", x1_range.first, x1_range.second),
                       DoubleParameter("x2", x2_range.first, x2_range.second)}),
      .optimum = optimum,
      .evaluate = [f](const ParameterAssignment& a) {
        return f(a.at("x1").AsDouble(), a.at("x2").AsDouble());
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

ParameterSpec DoubleParameter(std::string name, double min, double max) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kDouble;
  spec.min_value = min;
  spec.max_value = max;
  spec.scale = ScaleType::kLinear;
  return spec;
}

SearchSpace Box(int d, double min, double max) {
  std::vector<ParameterSpec> parameters;
  for (int i = 1; i <= d; ++i) {
    parameters.push_back(DoubleParameter(absl::StrCat("x", i), min, max));
  }
  return SearchSpace(std::move(parameters));
}

double Branin(double x1, double x2) {
  constexpr double a = 1, b = 5.1 / (4 * pi * pi), c = 5 / pi, r = 6, s = 10,
                   t = 1 / (8 * pi);
  const double q = x2 - b * x1 * x1 + c * x1 - r;
  return a * q * q + s * (1 - t) * std::cos(x1) + s;
}

double Hartmann6(std::span<const double> x) {
  if (x.size() != 6) DieBecause(absl::StrCat("Hartmann6 of ", x.size(), "-D"));
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  // P_ij = 10^-4 * these.
  static constexpr double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                      {2329, 4135, 8307, 3736, 1004, 9991},
                                      {2348, 1451, 3522, 2883, 3047, 6650},
                                      {4047, 8828, 8732, 5743, 1091, 381}};
  return Hartmann(x, kA, kP);
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

double NarrowCategory(std::string_view c, double x, double y) {
  const double dy = (y - 0.5) * (y - 0.5);
  if (c == "a") return 0.4 + (x - 0.3) * (x - 0.3) + dy;
  if (c == "b") return 0.2 + (x - 0.5) * (x - 0.5) + dy;
  if (c == "c") {
    const double width = 0.05;
    return 0.5 + dy -
           0.5 * std::exp(-(x - 0.85) * (x - 0.85) / (2 * width * width));
  }
  if (c == "d") return 0.6 + (x - 0.7) * (x - 0.7) + dy;
  DieBecause(
      absl::StrCat("NarrowCategory of category \"", std::string(c), "\""));
}

double GoldsteinPrice(double x1, double x2) {
  const double s = x1 + x2 + 1, t = 2 * x1 - 3 * x2;
  const double first = 1 + s * s *
                               (19 - 14 * x1 + 3 * x1 * x1 - 14 * x2 +
                                6 * x1 * x2 + 3 * x2 * x2);
  const double second = 30 + t * t *
                                 (18 - 32 * x1 + 12 * x1 * x1 + 48 * x2 -
                                  36 * x1 * x2 + 27 * x2 * x2);
  return first * second;
}

double SixHumpCamel(double x1, double x2) {
  const double x1s = x1 * x1, x2s = x2 * x2;
  return (4 - 2.1 * x1s + x1s * x1s / 3) * x1s + x1 * x2 + (-4 + 4 * x2s) * x2s;
}

double Hartmann3(std::span<const double> x) {
  if (x.size() != 3) DieBecause(absl::StrCat("Hartmann3 of ", x.size(), "-D"));
  static constexpr double kA[4][3] = {
      {3, 10, 30}, {0.1, 10, 35}, {3, 10, 30}, {0.1, 10, 35}};
  // P_ij = 10^-4 * these.
  static constexpr double kP[4][3] = {{3689, 1170, 2673},
                                      {4699, 4387, 7470},
                                      {1091, 8732, 5547},
                                      {381, 5743, 8828}};
  return Hartmann(x, kA, kP);
}

double Shekel(std::span<const double> x) {
  if (x.size() != 4) DieBecause(absl::StrCat("Shekel of ", x.size(), "-D"));
  static constexpr std::array<double, 10> kBeta = {0.1, 0.2, 0.2, 0.4, 0.4,
                                                   0.6, 0.3, 0.7, 0.5, 0.5};
  // Column i is the centre of basin i.
  static constexpr double kC[4][10] = {{4, 1, 8, 6, 3, 2, 5, 8, 6, 7},
                                       {4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6},
                                       {4, 1, 8, 6, 3, 2, 5, 8, 6, 7},
                                       {4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6}};
  double sum = 0;
  for (int i = 0; i < 10; ++i) {
    double squares = kBeta[i];
    for (int j = 0; j < 4; ++j) {
      squares += (x[j] - kC[j][i]) * (x[j] - kC[j][i]);
    }
    sum += 1 / squares;
  }
  return -sum;
}

double DixonPrice(std::span<const double> x) {
  if (x.empty()) DieBecause("DixonPrice of 0-D");
  double sum = (x[0] - 1) * (x[0] - 1);
  for (size_t i = 1; i < x.size(); ++i) {
    const double term = 2 * x[i] * x[i] - x[i - 1];
    sum += static_cast<double>(i + 1) * term * term;
  }
  return sum;
}

double Powell(std::span<const double> x) {
  if (x.empty() || x.size() % 4 != 0) {
    DieBecause(absl::StrCat("Powell of ", x.size(), "-D"));
  }
  auto square = [](double v) { return v * v; };
  double sum = 0;
  for (size_t i = 0; i < x.size(); i += 4) {
    sum += square(x[i] + 10 * x[i + 1]) + 5 * square(x[i + 2] - x[i + 3]) +
           square(square(x[i + 1] - 2 * x[i + 2])) +
           10 * square(square(x[i] - x[i + 3]));
  }
  return sum;
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

const std::vector<TestFunction>& HoldoutSuite() {
  static const std::vector<TestFunction>* const kSuite =
      new std::vector<TestFunction>{
          PlaneFunction("goldstein_price", {-2, 2}, {-2, 2}, 3, GoldsteinPrice),
          PlaneFunction("six_hump_camel", {-3, 3}, {-2, 2}, kSixHumpCamelMin,
                        SixHumpCamel),
          BoxFunction("hartmann3", 3, 0, 1, kHartmann3Min, Hartmann3),
          BoxFunction("shekel4", 4, 0, 10, kShekelMin, Shekel),
          BoxFunction("dixon_price6", 6, -10, 10, 0, DixonPrice),
          BoxFunction("powell8", 8, -4, 5, 0, Powell),
      };
  return *kSuite;
}

const std::vector<TestFunction>& NoisySuite() {
  static const std::vector<TestFunction>* const kSuite = [] {
    static constexpr std::pair<std::string_view, double> kNoiseSd[] = {
        {"branin", 0.04},     {"hartmann6", 0.1}, {"ackley5", 1},
        {"rosenbrock4", 100}, {"levy4", 0.3},     {"styblinski_tang8", 10},
        {"mixed", 0.2}};
    auto* noisy = new std::vector<TestFunction>();
    for (const TestFunction& f : TestSuite()) {
      const auto* level = std::find_if(
          std::begin(kNoiseSd), std::end(kNoiseSd),
          [&](const auto& entry) { return entry.first == f.name; });
      if (level == std::end(kNoiseSd)) {
        DieBecause(absl::StrCat("NoisySuite: no noise level for ", f.name));
      }
      noisy->push_back(f);
      noisy->back().name += "_noisy";
      noisy->back().noise_sd = level->second;
    }
    return noisy;
  }();
  return *kSuite;
}

const std::vector<TestFunction>& CategoricalSuite() {
  static const std::vector<TestFunction>* const kSuite = [] {
    ParameterSpec c{.name = "c",
                    .type = ParameterType::kCategorical,
                    .categorical_values = {"a", "b", "c", "d"}};
    return new std::vector<TestFunction>{TestFunction{
        .name = "narrow_category",
        .space = SearchSpace(
            {c, DoubleParameter("x", 0, 1), DoubleParameter("y", 0, 1)}),
        .optimum = 0,
        .evaluate = [](const ParameterAssignment& a) {
          return NarrowCategory(a.at("c").AsString(), a.at("x").AsDouble(),
                                a.at("y").AsDouble());
        }}};
  }();
  return *kSuite;
}

absl::StatusOr<const TestFunction*> FindTestFunction(std::string_view name) {
  std::vector<std::string> names;
  for (const auto* suite :
       {&TestSuite(), &HoldoutSuite(), &NoisySuite(), &CategoricalSuite()}) {
    for (const TestFunction& f : *suite) {
      if (f.name == name) return &f;
      names.push_back(f.name);
    }
  }
  return absl::NotFoundError(
      absl::StrCat("unknown test function \"", std::string(name),
                   "\" (known: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace hptune::quality
