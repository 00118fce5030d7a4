// The GP designer's suggestions for a study of several metrics (several
// objectives, constraints, or both): the models of one Suggest call and
// how a suggestion is drawn from them.
//
// Seeding, the fallbacks and the handling of pending trials are those of
// one metric (suggestion_policy.h); the model step differs:
//  - one objective with constraints: constrained log EI
//    ("gp-constrained-logei"); the optimiser starts near the best safe
//    observations (or, with none, the ones closest to safe);
//  - several objectives: the random hypervolume scalarisation of UCB, with
//    the constraints' feasibility ("gp-hv-ucb"); one weight vector per
//    suggestion, from a stream of (seed, call, index); the optimiser starts
//    near the safe observations on the Pareto front that score highest
//    under that scalarisation.
// Both search the whole space (random and local candidates); each
// suggestion is then believed in every model (kriging believer), so the
// members of a batch spread out. Formulas and references are in
// multi_metric_acquisition.h. Used by GpDesigner; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_MULTI_METRIC_POLICY_H_
#define HPTUNE_ALGORITHMS_GP_MULTI_METRIC_POLICY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/gp_history.h"
#include "algorithms/gp/gp_model.h"
#include "algorithms/gp/gp_state.h"
#include "algorithms/gp/suggestion_policy.h"

namespace hptune::algorithms::gp {

// The models of one Suggest call, one per model column (gp_history.h).
struct MultiMetricModels {
  int objectives = 1;
  std::vector<std::unique_ptr<GpModel>> models;
  // Each constraint's threshold in its model's units.
  std::vector<double> thresholds;
  // Each objective's standardised targets, per observation.
  std::vector<std::vector<double>> objective_targets;
  // Feasibility's weight (multi_metric_acquisition.h).
  double gamma = 1;
};

// Builds every column's model of `history` with `builders` (one per
// column, kept across calls) and the hyperparameters in `state` (theta for
// column 0, other_thetas for the rest), refitting all of them on
// NeedsRefit's schedule. Errors as GpModelBuilder::Build's.
absl::StatusOr<MultiMetricModels> BuildMultiMetricModels(
    const GpHistory& history, const FeatureEncoding& encoding, uint64_t seed,
    std::vector<std::unique_ptr<GpModelBuilder>>& builders, GpState& state);

// As SuggestFromModel (suggestion_policy.h), for several metrics.
std::optional<Suggestion> SuggestFromModels(
    MultiMetricModels& models, const GpHistory& history,
    const FeatureEncoding& encoding, uint64_t seed, uint64_t call, int index,
    AssignmentSet& used, const QuasiRandomSuggestion& quasi_random);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MULTI_METRIC_POLICY_H_
