#include "algorithms/gp/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "nlopt.h"

namespace hptune::algorithms::gp {
namespace {

// A value far above anything an objective here returns, yet finite.
constexpr double kPenalty = 1e100;

struct Context {
  const Objective* f;
  LbfgsResult best;
  bool found = false;
  int evaluations = 0;
};

double Evaluate(unsigned n, const double* x, double* gradient, void* data) {
  auto* context = static_cast<Context*>(data);
  ++context->evaluations;
  std::span<double> g;
  if (gradient != nullptr) g = std::span<double>(gradient, n);
  double value = (*context->f)(std::span<const double>(x, n), g);
  bool finite = std::isfinite(value);
  for (double gi : g) finite = finite && std::isfinite(gi);
  if (!finite) {
    std::fill(g.begin(), g.end(), 0.0);
    return kPenalty;
  }
  if (!context->found || value < context->best.value) {
    context->found = true;
    context->best.x.assign(x, x + n);
    context->best.value = value;
  }
  return value;
}

}  // namespace

absl::StatusOr<LbfgsResult> MinimizeLbfgs(const Objective& f,
                                          std::span<const double> x0,
                                          std::span<const double> lower,
                                          std::span<const double> upper,
                                          const LbfgsOptions& options) {
  const auto n = static_cast<unsigned>(x0.size());
  std::vector<double> x(x0.begin(), x0.end());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::clamp(x[i], lower[i], upper[i]);
  }
  Context context{.f = &f, .best = {}, .found = false, .evaluations = 0};
  if (n == 0) {
    context.best.value = f(x, {});
    context.best.evaluations = 1;
    if (!std::isfinite(context.best.value)) {
      return absl::FailedPreconditionError(
          "L-BFGS: the objective is not finite at the start");
    }
    return context.best;
  }
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n);
  if (opt == nullptr) return absl::InternalError("NLopt: cannot create L-BFGS");
  bool ok =
      nlopt_set_lower_bounds(opt, lower.data()) == NLOPT_SUCCESS &&
      nlopt_set_upper_bounds(opt, upper.data()) == NLOPT_SUCCESS &&
      nlopt_set_min_objective(opt, Evaluate, &context) == NLOPT_SUCCESS &&
      nlopt_set_maxeval(opt, options.max_evaluations) == NLOPT_SUCCESS &&
      nlopt_set_ftol_rel(opt, options.relative_tolerance) == NLOPT_SUCCESS &&
      nlopt_set_vector_storage(opt, static_cast<unsigned>(options.memory)) ==
          NLOPT_SUCCESS;
  double value = 0;
  nlopt_result result = NLOPT_FAILURE;
  if (ok) result = nlopt_optimize(opt, x.data(), &value);
  nlopt_destroy(opt);
  if (!ok || result == NLOPT_INVALID_ARGS || result == NLOPT_OUT_OF_MEMORY) {
    return absl::InternalError(
        absl::StrCat("NLopt L-BFGS refused the problem (code ",
                     static_cast<int>(result), ")"));
  }
  if (!context.found) {
    return absl::FailedPreconditionError(
        absl::StrCat("L-BFGS: no finite objective value in ",
                     context.evaluations, " evaluations"));
  }
  context.best.evaluations = context.evaluations;
  return context.best;
}

}  // namespace hptune::algorithms::gp
