#include "algorithms/gp/suggestion_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/acquisition_optimizer.h"
#include "algorithms/gp/category_turns.h"
#include "algorithms/gp/gp_model.h"
#include "algorithms/gp/streams.h"

namespace hptune::algorithms::gp {

AcquisitionOptimizerOptions OptimizerOptions(int n, int d, int models) {
  AcquisitionOptimizerOptions options;
  const double cost =
      (static_cast<double>(n) * n + static_cast<double>(n) * d) * models;
  const int candidates =
      std::clamp(static_cast<int>(2.5e7 / std::max(cost, 1.0)), 256, 2048);
  options.random_candidates = candidates / 2;
  options.local_candidates = candidates / 2;
  options.restarts = std::clamp(800 / std::max(n, 1), 3, 8);
  options.max_lbfgs_evaluations = 50;
  return options;
}

int InitialPoints(int dimension, int max_trials) {
  const int space_filling = std::clamp(2 * (dimension + 1), 4, 20);
  const int budget_share =
      std::max({kMinInitialPoints, max_trials / kBudgetPerInitialPoint,
                std::min(kStartupPoints, max_trials / kBudgetPerStartupPoint)});
  return std::min(space_filling, budget_share);
}

int SeedingTrials(int dimension, const DesignerOptions& options) {
  return options.seeding_trials.value_or(
      InitialPoints(dimension, options.trial_budget));
}

bool LeavesTiedBest(int tied_best, double draw) {
  return tied_best >= kTiedBestTrials && draw < kTiedBestExploration;
}

double LogEiRadius(std::span<const double> theta,
                   std::span<const FeatureKind> kinds) {
  double log_sum = 0;
  int continuous = 0;
  for (size_t i = 0; i < kinds.size() && i < theta.size(); ++i) {
    if (kinds[i] != FeatureKind::kContinuous) continue;
    log_sum += theta[i];
    ++continuous;
  }
  if (continuous == 0) return kLogEiRadius;
  return std::min(kLogEiRadius,
                  kLogEiLengthscales * std::exp(log_sum / continuous));
}

SuggestionSource PickSource(int dimension, int initial_points, int known,
                            int feasible, bool values_differ) {
  if (dimension == 0) return SuggestionSource::kSinglePoint;
  if (known < initial_points) return SuggestionSource::kSeeding;
  if (feasible == 0) return SuggestionSource::kNoFeasible;
  if (!values_differ) return SuggestionSource::kPlateau;
  return SuggestionSource::kModel;
}

namespace {

// The unused point of `points` with the highest `acquisition`, marked used,
// or nullopt when every one is used.
std::optional<Suggestion> BestSweep(
    const AcquisitionFunction& acquisition,
    const std::vector<std::vector<double>>& points,
    const FeatureEncoding& encoding, AssignmentSet& used) {
  std::optional<Suggestion> best;
  double best_score = -std::numeric_limits<double>::infinity();
  std::vector<double> gradient;
  for (const std::vector<double>& x : points) {
    gradient.assign(x.size(), 0.0);
    const double score = acquisition.EvaluateWithGradient(x, gradient);
    if (best.has_value() && score <= best_score) continue;
    ParameterAssignment a = encoding.Decode(x);
    if (used.Contains(a)) continue;
    best = Suggestion{std::move(a), "gp-category-sweep"};
    best_score = score;
  }
  if (best.has_value()) used.Insert(best->parameters);
  return best;
}

}  // namespace

std::optional<Suggestion> SuggestFromModel(
    GpModel& model, const FeatureEncoding& encoding,
    std::span<const double> theta, uint64_t seed, uint64_t call, int index,
    AssignmentSet& used, const QuasiRandomSuggestion& quasi_random) {
  // One stream per (call, suggestion), so each is reproducible on its own.
  const uint64_t stream = call * 1024 + index;
  // The first model suggestion of a call explores with a probability; the
  // later members of a batch always do.
  const bool explore =
      index > 0 || SplitMix64(seed ^ kExplorationSalt, stream).NextUnit() <
                       kExplorationProbability;
  const AcquisitionOptimizerOptions whole_space =
      OptimizerOptions(model.gp.num_observations(), encoding.dimension());
  const uint64_t acquisition_seed = DeriveSeed(seed, kAcquisitionSalt, stream);
  // The first unused point of the best ones for `acquisition`: log EI (and
  // a turn) first around `anchors` only, then, if that finds none (a finite
  // space's neighbourhood used up), over the whole space; `turn` keeps only
  // its branch.
  auto search = [&](const AcquisitionFunction& acquisition,
                    const CategoryTurnAcquisition* turn, bool local,
                    const std::vector<std::vector<double>>& anchors,
                    const std::string& origin) -> std::optional<Suggestion> {
    AcquisitionOptimizerOptions options = whole_space;
    if (local && !anchors.empty()) {
      options.random_candidates = 0;
      options.local_radius = LogEiRadius(theta, encoding.kinds());
    }
    auto first_unused =
        [&](const AcquisitionOptimizerOptions& o) -> std::optional<Suggestion> {
      RankedPoints ranked = MaximizeAcquisition(acquisition, encoding, anchors,
                                                acquisition_seed, o);
      while (const ScoredPoint* p = ranked.Next()) {
        if (turn != nullptr && !turn->InBranch(p->x)) continue;
        ParameterAssignment a = encoding.Decode(p->x);
        if (used.Insert(a)) return Suggestion{std::move(a), origin};
      }
      return std::nullopt;
    };
    std::optional<Suggestion> found = first_unused(options);
    if (!found.has_value() && options.random_candidates == 0) {
      found = first_unused(whole_space);
    }
    return found;
  };
  std::optional<Suggestion> s;
  // A categorical value due a turn takes a call's first suggestion: log EI
  // on its branch, against the branch's best (category_turns.h). A branch
  // with no unused point left (a value with no children) gives way.
  if (index == 0 && model.category_turn) {
    const LogExpectedImprovementAcquisition branch_ei(model.gp,
                                                      model.turn_incumbent);
    if (model.turn_sweeps) {
      s = BestSweep(branch_ei,
                    SweepPoints(encoding, model.gp.rows(), *model.category_turn,
                                model.turn_anchors[0]),
                    encoding, used);
    }
    if (!s.has_value()) {
      const CategoryTurnAcquisition turn(branch_ei, *model.category_turn);
      s = search(turn, &turn, /*local=*/true, model.turn_anchors,
                 "gp-logei-category");
    }
  }
  if (!s.has_value()) {
    if (explore) {
      const PureExplorationAcquisition pe(model.gp,
                                          model.ExplorationThreshold());
      s = search(pe, nullptr, /*local=*/false, model.anchors, "gp-pe");
    } else {
      const LogExpectedImprovementAcquisition ei(model.gp, model.incumbent);
      s = search(ei, nullptr, /*local=*/true, model.anchors, "gp-logei");
    }
  }
  if (!s.has_value())
    s = quasi_random("quasi_random:gp_found_only_used_points");
  if (s.has_value()) {
    absl::StatusOr<std::vector<double>> x = encoding.Encode(s->parameters);
    if (x.ok()) model.Believe(*x);
  }
  return s;
}

}  // namespace hptune::algorithms::gp
