// The conditional problems of the optimisation-quality suite: minimised
// functions on tree-shaped search spaces (Vertex AI's conditional
// parameters), each with its known minimum.
//
// Used by quality_harness (--functions=jenatton,... or "conditional"), its
// tests and benchmarks/conditional_eval. benchmarks/optuna_conditional.py
// carries the same definitions for Optuna (define-by-run: a child is
// suggested only in its parent's branch), so a change here must be made
// there too; its --check-cxx compares the two on random points of each tree.
//
// Each problem's `evaluate` takes an assignment of exactly the active
// parameters (SearchSpace::ActiveMask) and aborts on anything else, a
// missing, an inactive or an infeasible parameter: a problem that ignored an
// extra parameter or defaulted a missing one would hide a designer's bug.
// Pure functions and immutable data; thread-safe.
//
// The problems (space listed depth-first, as SearchSpace keeps it; "[p=v]"
// is the condition on parent p):
//
// jenatton: Jenatton et al., "Bayesian Optimization with Tree-structured
//   Dependencies", ICML 2017, as Ax's benchmark writes it. Parents are
//   INTEGER in [0, 1] (Ax's int-valued choice parameters), so the
//   INTEGER-parent conditions are exercised.
//     x1 INTEGER [0, 1]
//       x2 INTEGER [0, 1]              [x1=0]
//         x4 DOUBLE [0, 1]             [x2=0]
//         x5 DOUBLE [0, 1]             [x2=1]
//       r8 DOUBLE [0, 1]               [x1=0]
//       x3 INTEGER [0, 1]              [x1=1]
//         x6 DOUBLE [0, 1]             [x3=0]
//         x7 DOUBLE [0, 1]             [x3=1]
//       r9 DOUBLE [0, 1]               [x1=1]
//   f = x4^2 + 0.1 + r8 (x1=0, x2=0) | x5^2 + 0.2 + r8 (x1=0, x2=1)
//     | x6^2 + 0.3 + r9 (x1=1, x3=0) | x7^2 + 0.4 + r9 (x1=1, x3=1).
//   Minimiser x1 = x2 = 0, x4 = r8 = 0; f* = 0.1.
//
// optimizer_choice: hptune's own (no library reference), a stand-in for
//   choosing a training optimiser: a categorical parent switches between
//   sub-spaces of 2, 3 and 1 dimensions, each with its own log-scale
//   learning rate and best value.
//     optimizer CATEGORICAL {sgd, adam, rmsprop}
//       sgd_lr DOUBLE [1e-4, 1] log                  [optimizer=sgd]
//       sgd_momentum DOUBLE [0, 0.99]                [optimizer=sgd]
//       adam_lr DOUBLE [1e-5, 0.1] log               [optimizer=adam]
//       adam_beta1 DOUBLE [0.5, 0.99]                [optimizer=adam]
//       adam_beta2 DOUBLE [0.9, 0.9999] reverse log  [optimizer=adam]
//       rmsprop_lr DOUBLE [1e-5, 0.1] log            [optimizer=rmsprop]
//   sgd:     0.12 + 0.05 u^2 + 0.2 (m - 0.9)^2, u = log10(lr / (1 - m))
//            (the effective step: learning rate and momentum trade off);
//   adam:    0.08 + 0.05 (log10 lr + 3)^2 + 0.3 (beta1 - 0.9)^2
//            + 0.02 (log10(1 - beta2) + 3)^2;
//   rmsprop: 0.10 + 0.05 (log10 lr + 3.5)^2.
//   Minimiser adam, lr = 1e-3, beta1 = 0.9, beta2 = 0.999; f* = 0.08. The
//   one-dimensional rmsprop branch is the easy trap (0.10), sgd's best is
//   0.12 at lr = 0.1, momentum = 0.9.
//
// model_tree: hptune's own, a depth-2 tree like choosing a model family and
//   its booster; every kind of parent (CATEGORICAL, INTEGER, DISCRETE):
//     model CATEGORICAL {linear, tree}
//       degree INTEGER [1, 3]                          [model=linear]
//         l2 DOUBLE [1e-6, 1] log                      [degree in {2, 3}]
//       booster CATEGORICAL {gbdt, dart}               [model=tree]
//         drop_rate DOUBLE [0, 0.5]                    [booster=dart]
//       learning_rate DOUBLE [1e-3, 1] log             [model=tree]
//       max_depth INTEGER [2, 12]                      [model=tree]
//       bagging_fraction DISCRETE {0.5, 0.7, 0.9, 1}   [model=tree]
//         bagging_freq INTEGER [1, 10]       [bagging_fraction in {.5,.7,.9}]
//   linear: degree 1: 0.30; degree 2: 0.22 + 0.02 (log10 l2 + 3)^2;
//           degree 3: 0.24 + 0.03 (log10 l2 + 2)^2;
//   tree:   booster + 0.05 (log10 learning_rate + 1)^2
//           + 0.004 (max_depth - 6)^2 + bagging, where
//           booster = 0.16 (gbdt) or 0.15 + 0.4 (drop_rate - 0.1)^2 (dart),
//           bagging = 0.01 (fraction 1: no bagging) or
//                     0.1 (fraction - 0.7)^2 + 0.002 (freq - 5)^2.
//   Minimiser tree, dart, drop_rate = 0.1, learning_rate = 0.1,
//   max_depth = 6, bagging_fraction = 0.7, bagging_freq = 5; f* = 0.15.
#ifndef HPTUNE_BENCHMARKS_QUALITY_CONDITIONAL_PROBLEMS_H_
#define HPTUNE_BENCHMARKS_QUALITY_CONDITIONAL_PROBLEMS_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/quality/test_functions.h"
#include "hptune/core/search_space.h"

namespace hptune::quality {

// In --functions, every conditional problem.
inline constexpr std::string_view kConditionalGroup = "conditional";

// The conditional problems in a fixed order: jenatton, optimizer_choice,
// model_tree (as above).
const std::vector<TestFunction>& ConditionalSuite();

// The conditional problem called `name`; NotFound naming it and the known
// names.
absl::StatusOr<const TestFunction*> FindConditionalProblem(
    std::string_view name);

// The assignment written "name=value;name=value;..." (the form of
// `quality_harness --format=trials`), each value read as its parameter's
// type in `space` says: INTEGER as an integer, DOUBLE and DISCRETE as a
// double, CATEGORICAL as the text. InvalidArgument for an unknown name, a
// repeated one, an item without '=' or a value that does not parse; the
// assignment is not checked against the space (CheckAssignment does that).
absl::StatusOr<ParameterAssignment> ParseAssignment(const SearchSpace& space,
                                                    std::string_view text);

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_CONDITIONAL_PROBLEMS_H_
