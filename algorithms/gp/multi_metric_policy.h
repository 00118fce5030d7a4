// The GP designer's suggestions for a study of several metrics (several
// objectives, constraints, or both): the models of one Suggest call and
// how a suggestion is drawn from them.
//
// Seeding, the fallbacks and the handling of pending trials are those of
// one metric (suggestion_policy.h); the model step differs:
//  - one objective with constraints: constrained log EI
//    ("gp-constrained-logei") over the whole space; the optimiser starts
//    near the best safe observations (or, with none, the ones closest to
//    safe);
//  - several objectives: the improvement of a random hypervolume
//    scalarisation of UCB, with the constraints' feasibility ("gp-hv-ucb").
//    One weight vector per suggestion, from a stream of (seed, call,
//    index). The reference point alternates between suggestions: the
//    nadir of the safe front less a margin (BoTorch's
//    infer_reference_point), which spreads trials along the front, and the
//    lowest observations less a margin (as OSS Vizier), which pushes its
//    ends out; the hypervolume a user means depends on a reference point
//    the study does not state. The search stays within `radius` of the
//    front's observations that score highest under the scalarisation (the
//    trust region of one objective's log EI, suggestion_policy.h): over the
//    whole space, UCB spent the multi-objective suite's trials on the edges
//    of 6-D boxes. A suggestion searches the whole space with probability
//    kWholeSpaceProbability, so that a front far from the first one is
//    found (BraninCurrin's lies in two valleys). When no unused point improves
//    on the front under the weights, up to kWeightDraws weight vectors are
//    tried, then a quasi-random point ("quasi_random:gp_found_no_improvement").
// Each suggestion is then believed in every model (kriging believer), so
// the members of a batch spread out. Formulas and references are in
// multi_metric_acquisition.h; the figures behind the choices in
// benchmarks/RESULTS.md. Used by GpDesigner; thread-compatible.
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

// Weight vectors tried per suggestion before a quasi-random one.
inline constexpr int kWeightDraws = 4;
// Probability that a suggestion of several objectives searches the whole
// space rather than near the front.
inline constexpr double kWholeSpaceProbability = 0.15;

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
  // Half-width of the scalarised UCB's trust region: the smallest of the
  // objectives' LogEiRadius.
  double radius = kLogEiRadius;
};

// Builds every column's model of `history` with `builders` (one per
// column, kept across calls) and the hyperparameters in `state` (theta for
// column 0, other_thetas for the rest), refitting all of them on
// NeedsRefit's schedule. With `deferred` (resized to one per column), a
// due refit of a fitted column is stored there instead (GpModelBuilder::
// Build). Errors as GpModelBuilder::Build's.
absl::StatusOr<MultiMetricModels> BuildMultiMetricModels(
    const GpHistory& history, const FeatureEncoding& encoding, uint64_t seed,
    std::vector<std::unique_ptr<GpModelBuilder>>& builders, GpState& state,
    std::vector<std::optional<FitJob>>* deferred = nullptr);

// As SuggestFromModel (suggestion_policy.h), for several metrics.
std::optional<Suggestion> SuggestFromModels(
    MultiMetricModels& models, const GpHistory& history,
    const FeatureEncoding& encoding, uint64_t seed, uint64_t call, int index,
    AssignmentSet& used, const QuasiRandomSuggestion& quasi_random);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MULTI_METRIC_POLICY_H_
