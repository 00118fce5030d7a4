// The GP designer's data: a study's trials as observations in the feature
// space of encoding/gp_features.h, and the targets its model is fitted to.
//
// Observations. A SUCCEEDED trial with a finite value of the study's metric
// in its final measurement (an early-stopped trial's last one) is a
// feasible observation, its value oriented so that higher is better.
// INFEASIBLE and FAILED trials, and SUCCEEDED ones that reported no value,
// are infeasible observations, which the targets put at the worst value so
// that the model learns to avoid their region. CANCELLED trials (ended by a
// user, not by their parameters), trials with a non-finite value and trials
// whose parameters do not fit the space are skipped, each with a reason.
// Observations are in completion order (end time, then number), so that a
// longer history extends a shorter one. Pending trials are kept as points.
// Targets. Feasible values are warped (output_warping.h); infeasible ones
// take the lowest warped value (one below it when all are equal); then all
// are standardised to mean 0 and variance 1.
// Several metrics. An observation holds one value per model column: the
// study's objectives, then its constraints (Problem::Objectives(),
// Constraints()), each oriented so that higher is better; it is feasible
// when the trial reported all of them, and safe when every constraint is
// met as well. A constraint's targets are standardised without warping, so
// that its threshold maps to the same units (ConstraintTargets).
// Cost control. A model uses at most kMaxModelPoints observations (ModelRows):
// beyond that, the best quarter by target, the most recent quarter and an
// evenly spaced subsample of the rest, so that a fit costs at most
// O(kMaxModelPoints^3) and an acquisition evaluation O(kMaxModelPoints^2),
// and memory is O(n D + kMaxModelPoints^2).
// Used by GpDesigner and GpModelBuilder. Pure functions and value types;
// thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_GP_HISTORY_H_
#define HPTUNE_ALGORITHMS_GP_GP_HISTORY_H_

#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/gp_features.h"

namespace hptune::algorithms::gp {

// The most observations a model is fitted to.
inline constexpr int kMaxModelPoints = 300;

struct Observation {
  std::vector<double> x;  // Encoded parameters.
  double value = 0;       // Higher is better; meaningless when !feasible.
  bool feasible = true;
  // Every column's value (value is the first); empty when !feasible.
  std::vector<double> metrics;
  bool safe = true;  // Feasible and meets every constraint.
};

struct GpHistory {
  // Model columns: `objectives` objectives, then one per threshold.
  int objectives = 1;
  // The constraints' thresholds, oriented as the values are (a value is
  // safe when it is at least its threshold).
  std::vector<double> thresholds;
  // The largest desiredMinSafeTrialsFraction of the constraints (0: none).
  double desired_safe_fraction = 0;
  std::vector<Observation> observations;  // In completion order.
  std::vector<std::vector<double>> pending;
  // Every trial's parameters, whatever its state: never suggested again.
  AssignmentSet used;
  // Why trials were left out, one line each ("trial 7: CANCELLED, ...").
  std::vector<std::string> skipped;

  int feasible_count() const;
  // Whether the feasible observations' values (every column) are not all
  // equal: models fitted to one value have nothing to tell points apart.
  bool values_differ() const;
  // How many feasible observations share the best value (the first
  // column's highest), exactly: 0 when none is feasible.
  int tied_best() const;
  int safe_count() const;
  int columns() const {
    return objectives + static_cast<int>(thresholds.size());
  }
};

// The history of `completed` (terminal) and `active` (pending) trials.
GpHistory ReadHistory(const Problem& problem, const FeatureEncoding& encoding,
                      const std::vector<Trial>& completed,
                      const std::vector<Trial>& active);

// Every observation's standardised target of objective column `column`,
// in order, warped first (output_warping.h) when `warp`. A study of several
// objectives does not warp them: a warp keeps which point dominates which
// but not the hypervolume, which the designer's scalarisations measure in
// the targets' units (benchmarks/RESULTS.md).
std::vector<double> Targets(const std::vector<Observation>& observations,
                            int column = 0, bool warp = true);

// A constraint column's standardised targets and its threshold in the same
// units. Infeasible observations take the lowest value (one below it when
// all are equal).
struct ConstraintColumn {
  std::vector<double> targets;
  double threshold = 0;
};
ConstraintColumn ConstraintTargets(const std::vector<Observation>& observations,
                                   int column, double threshold);

// Indices of the observations a model uses, ascending: all of them up to
// kMaxModelPoints, else the subsample described above.
std::vector<int> ModelRows(const std::vector<double>& targets);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_HISTORY_H_
