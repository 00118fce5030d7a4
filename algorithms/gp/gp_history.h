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

#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/gp_features.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms::gp {

// The most observations a model is fitted to.
inline constexpr int kMaxModelPoints = 300;

struct Observation {
  std::vector<double> x;  // Encoded parameters.
  double value = 0;       // Higher is better; meaningless when !feasible.
  bool feasible = true;
};

struct GpHistory {
  std::vector<Observation> observations;  // In completion order.
  std::vector<std::vector<double>> pending;
  // Every trial's parameters, whatever its state: never suggested again.
  AssignmentSet used;
  // Why trials were left out, one line each ("trial 7: CANCELLED, ...").
  std::vector<std::string> skipped;

  int feasible_count() const;
};

// The history of `completed` (terminal) and `active` (pending) trials.
GpHistory ReadHistory(const StudySpec& spec, const FeatureEncoding& encoding,
                      const std::vector<Trial>& completed,
                      const std::vector<Trial>& active);

// Every observation's standardised target, in order.
std::vector<double> Targets(const std::vector<Observation>& observations);

// Indices of the observations a model uses, ascending: all of them up to
// kMaxModelPoints, else the subsample described above.
std::vector<int> ModelRows(const std::vector<double>& targets);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_HISTORY_H_
