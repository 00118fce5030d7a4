// The optimisation-quality suite: standard black-box test functions, all
// minimised, each with its hptune search space and its known minimum.
//
// Used by quality_harness (designers over seeds, simple regret) and its tests,
// and by the tests of the designers (library hptune_test_functions).
// benchmarks/optuna_compare.py carries the same definitions for Optuna, so a
// change here must be made there too (its --check runs the reference points
// of test_functions_test.cc). Formulas, domains and optima follow Surjanovic &
// Bingham, "Virtual Library of Simulation Experiments: Test Functions and
// Datasets" (https://www.sfu.ca/~ssurjano/optimization.html) unless stated;
// the functions take raw coordinates (no unit cube). Pure functions and
// immutable data; thread-safe.
#ifndef HPTUNE_BENCHMARKS_QUALITY_TEST_FUNCTIONS_H_
#define HPTUNE_BENCHMARKS_QUALITY_TEST_FUNCTIONS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::quality {

struct TestFunction {
  // As --functions names it: "branin", "hartmann6", ..., "mixed" (the suite)
  // or "goldstein_price", ..., "powell8" (the held-out suite).
  std::string name;
  SearchSpace space;
  // min f over `space`; simple regret is (best value found) - optimum.
  double optimum = 0;
  // f at a feasible assignment of `space` (not checked: the harness checks
  // every suggestion with SearchSpace::CheckAssignment first).
  std::function<double(const ParameterAssignment&)> evaluate;
  // Standard deviation of the Gaussian noise added to each value a trial
  // reports (designer_run.h); 0: the designer sees f itself.
  double noise_sd = 0;
};

// Branin-Hoo on x1 in [-5, 10], x2 in [0, 15]:
//   f = a (x2 - b x1^2 + c x1 - r)^2 + s (1 - t) cos(x1) + s,
//   a = 1, b = 5.1 / (4 pi^2), c = 5 / pi, r = 6, s = 10, t = 1 / (8 pi).
// Three minimisers (-pi, 12.275), (pi, 2.275), (9.42478, 2.475); f* = 5/(4 pi)
// = 0.397887.
double Branin(double x1, double x2);

// Hartmann 6-D on [0, 1]^6:
//   f = -sum_{i=1..4} alpha_i exp(-sum_{j=1..6} A_ij (x_j - P_ij)^2)
// with alpha, A, P as in the library. Minimiser (0.20169, 0.150011, 0.476874,
// 0.275332, 0.311652, 0.6573); f* = -3.32237.
double Hartmann6(std::span<const double> x);  // x.size() == 6.

// Ackley, d-D: f = -a exp(-b sqrt(sum x_i^2 / d)) - exp(sum cos(c x_i) / d)
//   + a + e, a = 20, b = 0.2, c = 2 pi. Minimiser 0, f* = 0.
double Ackley(std::span<const double> x);

// Rosenbrock, d-D: f = sum_{i=1..d-1} 100 (x_{i+1} - x_i^2)^2 + (x_i - 1)^2.
// Minimiser (1, ..., 1), f* = 0.
double Rosenbrock(std::span<const double> x);

// Levy, d-D, with w_i = 1 + (x_i - 1) / 4:
//   f = sin^2(pi w_1) + sum_{i=1..d-1} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
//       + (w_d - 1)^2 (1 + sin^2(2 pi w_d)).
// Minimiser (1, ..., 1), f* = 0.
double Levy(std::span<const double> x);

// Styblinski-Tang, d-D: f = 1/2 sum (x_i^4 - 16 x_i^2 + 5 x_i). Minimiser
// x_i = -2.903534 (the root of 4x^3 - 32x + 5 below -2), f* = -39.166166 d.
double StyblinskiTang(std::span<const double> x);

// hptune's own mixed-type function (no library reference): x, y in [-5, 5],
// integer n in 1..20, categorical c in {a, b, c, d}:
//   f = (x - MU[c])^2 + (y + 2)^2 + 0.25 (n - 7)^2 + BASE[c]
//       + 0.5 (1 - cos(2 pi (y + 2))),
//   MU = {a: -1, b: 1, c: 3, d: 0}, BASE = {a: 0.5, b: 0, c: 1, d: 2}.
// Each category is a shifted bowl with its own floor, so a designer has to
// find the right category and, inside it, the integer and the ripples in y.
// Minimiser x = 1, y = -2, n = 7, c = b; f* = 0. `c` must be one of a-d.
double MixedFunction(double x, double y, int64_t n, std::string_view c);

// hptune's narrow-category function (no library reference): categorical c
// in {a, b, c, d}, x and y in [0, 1]:
//   a: 0.4 + (x - 0.3)^2 + (y - 0.5)^2
//   b: 0.2 + (x - 0.5)^2 + (y - 0.5)^2
//   c: 0.5 + (y - 0.5)^2 - 0.5 exp(-(x - 0.85)^2 / (2 0.05^2))
//   d: 0.6 + (x - 0.7)^2 + (y - 0.5)^2
// b is the easy, broad answer (0.2 at its best); c beats it only where
// |x - 0.85| < 0.05, a tenth of x's range, and is the worst category
// elsewhere. Minimiser c, x = 0.85, y = 0.5; f* = 0. A value below 0.2
// means the designer found c's region. `c` must be one of a-d.
double NarrowCategory(std::string_view c, double x, double y);

// The held-out functions: run only after the GP designer's constants were
// chosen, to check that its results hold on functions it was not tuned on
// (issue 4's "functions you have not seen"). Do not tune to them either.

// Goldstein-Price on [-2, 2]^2:
//   f = [1 + (x1 + x2 + 1)^2 (19 - 14 x1 + 3 x1^2 - 14 x2 + 6 x1 x2 + 3 x2^2)]
//     * [30 + (2 x1 - 3 x2)^2 (18 - 32 x1 + 12 x1^2 + 48 x2 - 36 x1 x2
//        + 27 x2^2)].
// Minimiser (0, -1), f* = 3; f reaches about 1e6 in the box (outliers).
double GoldsteinPrice(double x1, double x2);

// Six-hump camel on x1 in [-3, 3], x2 in [-2, 2]:
//   f = (4 - 2.1 x1^2 + x1^4 / 3) x1^2 + x1 x2 + (-4 + 4 x2^2) x2^2.
// Minimisers +-(0.0898420132, -0.7126563961), f* = -1.031628453489877.
double SixHumpCamel(double x1, double x2);

// Hartmann 3-D on [0, 1]^3: Hartmann6's form with the library's 3-D alpha,
// A and P. Minimiser (0.1145889, 0.5556489, 0.8525470) (the library rounds
// it to (0.114614, 0.555649, 0.852547)); f* = -3.862779787332659.
double Hartmann3(std::span<const double> x);  // x.size() == 3.

// Shekel, m = 10, on [0, 10]^4:
//   f = -sum_{i=1..10} (sum_{j=1..4} (x_j - C_ji)^2 + beta_i)^-1,
//   beta = (1, 2, 2, 4, 4, 6, 3, 7, 5, 5) / 10, C as in the library.
// Ten narrow basins on a flat floor; minimiser (4.0007469, 3.9995095,
// 4.0007469, 3.9995095) (the library: (4, 4, 4, 4)), f* = -10.536443153483527.
double Shekel(std::span<const double> x);  // x.size() == 4.

// Dixon-Price, d-D: f = (x_1 - 1)^2 + sum_{i=2..d} i (2 x_i^2 - x_{i-1})^2.
// Minimisers x_i = 2^(-(2^i - 2) / 2^i) (x_1 = 1; x_d of either sign), f* = 0.
double DixonPrice(std::span<const double> x);

// Powell, d-D (d a multiple of 4): sum over blocks i of
//   (x_4i-3 + 10 x_4i-2)^2 + 5 (x_4i-1 - x_4i)^2 + (x_4i-2 - 2 x_4i-1)^4
//   + 10 (x_4i-3 - x_4i)^4.
// Minimiser 0, f* = 0 (singular Hessian there: slow to refine).
double Powell(std::span<const double> x);

// A DOUBLE parameter on a linear scale over [min, max].
ParameterSpec DoubleParameter(std::string name, double min, double max);
// DOUBLE parameters x1..xd, each over [min, max].
SearchSpace Box(int d, double min, double max);

// The suite, in a fixed order: branin, hartmann6, ackley5 (on [-10, 30]^5,
// so the minimiser is not the centre of the box), rosenbrock4 ([-5, 10]^4),
// levy4 ([-10, 10]^4), styblinski_tang8 ([-5, 5]^8), mixed. Continuous
// parameters are DOUBLE, linear scale, named x1, x2, ...
const std::vector<TestFunction>& TestSuite();

// The held-out suite, in a fixed order: goldstein_price, six_hump_camel,
// hartmann3, shekel4 ([0, 10]^4, m = 10), dixon_price6 ([-10, 10]^6),
// powell8 ([-4, 5]^8, so the minimiser is not the centre).
const std::vector<TestFunction>& HoldoutSuite();

// The noisy suite: the suite's functions, in its order, each named with a
// "_noisy" suffix and reporting f + noise_sd * N(0, 1) (regret is then f's
// own value at the trial reported best, designer_run.h). Real objectives are
// noisy (a training run's validation loss moves with its seed), and a model
// tuned on noise-free functions alone can overfit the noise. noise_sd is a
// tenth of random search's median regret at 100 trials (benchmarks/
// RESULTS.md, 20 seeds), to one significant figure: noise that blurs the
// good region once found but leaves the landscape visible. Branin 0.04,
// Hartmann6 0.1, Ackley-5 1, Rosenbrock-4 100, Levy-4 0.3,
// Styblinski-Tang-8 10, mixed 0.2.
const std::vector<TestFunction>& NoisySuite();

// In --functions, the categorical problems: narrow_category, where a
// category wins only in a narrow region of another parameter (a designer
// that judges a category on a few trials abandons it).
const std::vector<TestFunction>& CategoricalSuite();

// The function of any suite called `name`; NotFound naming it and every
// known name.
absl::StatusOr<const TestFunction*> FindTestFunction(std::string_view name);

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_TEST_FUNCTIONS_H_
