// Box-constrained minimisation by L-BFGS (Liu & Nocedal, "On the limited
// memory BFGS method for large scale optimization", Math. Programming 45,
// 1989), through NLopt's NLOPT_LD_LBFGS (Luksan's implementation, which
// honours bounds). The adapter NLopt needs: its C API (no exceptions), the
// best point evaluated returned even when NLopt stops with a round-off or
// other failure code after progress, and non-finite objective values turned
// into a large finite penalty so the line search backs off instead of
// failing.
// Used by the hyperparameter fit and the acquisition optimiser. Stateless;
// thread-safe (each call makes its own NLopt object).
#ifndef HPTUNE_ALGORITHMS_GP_LBFGS_H_
#define HPTUNE_ALGORITHMS_GP_LBFGS_H_

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::algorithms::gp {

// f(x, gradient): the value at x, writing df/dx into `gradient` (same size
// as x) when it is not empty.
using Objective = std::function<double(std::span<const double> x,
                                       std::span<double> gradient)>;

struct LbfgsOptions {
  int max_evaluations = 100;
  // Stop when an iteration changes f by less than this fraction of |f|.
  double relative_tolerance = 1e-8;
  int memory = 10;  // Correction pairs kept.
};

struct LbfgsResult {
  std::vector<double> x;  // The best point evaluated.
  double value = 0;       // f(x).
  int evaluations = 0;
};

// Minimises f over lower <= x <= upper from x0 (clamped into the box).
// Internal when NLopt refuses the problem, FailedPrecondition when no
// evaluated point had a finite value.
absl::StatusOr<LbfgsResult> MinimizeLbfgs(const Objective& f,
                                          std::span<const double> x0,
                                          std::span<const double> lower,
                                          std::span<const double> upper,
                                          const LbfgsOptions& options);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_LBFGS_H_
