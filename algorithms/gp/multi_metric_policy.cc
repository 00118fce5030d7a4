#include "algorithms/gp/multi_metric_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "hptune/core/pareto.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/acquisition_optimizer.h"
#include "algorithms/gp/multi_metric_acquisition.h"
#include "algorithms/gp/normal_draw.h"
#include "algorithms/gp/streams.h"

namespace hptune::algorithms::gp {
namespace {

// A weight vector uniform on the positive part of the unit sphere: the
// absolute values of a standard normal vector, normalised.
std::vector<double> DrawWeights(int k, uint64_t seed, uint64_t stream,
                                int attempt) {
  SplitMix64 rng(seed ^ kScalarizationSalt,
                 stream * kWeightDraws + static_cast<uint64_t>(attempt));
  std::vector<double> w(k);
  double norm = 0;
  for (double& v : w) {
    v = std::max(std::fabs(NextStandardNormal(rng)), 1e-6);
    norm += v * v;
  }
  for (double& v : w) v /= std::sqrt(norm);
  return w;
}

// The encoded points of the observations `rows`, best first by `score`, at
// most kAnchors of them.
std::vector<std::vector<double>> TopAnchors(const GpHistory& history,
                                            std::vector<int> rows,
                                            const std::vector<double>& score) {
  std::stable_sort(rows.begin(), rows.end(),
                   [&](int a, int b) { return score[a] > score[b]; });
  std::vector<std::vector<double>> anchors;
  for (int r : rows) {
    if (static_cast<int>(anchors.size()) >= kAnchors) break;
    anchors.push_back(history.observations[r].x);
  }
  return anchors;
}

std::vector<ConstraintModel> Constraints(const MultiMetricModels& m) {
  std::vector<ConstraintModel> constraints;
  for (size_t c = 0; c < m.thresholds.size(); ++c) {
    constraints.push_back({&m.models[m.objectives + c]->gp, m.thresholds[c]});
  }
  return constraints;
}

// BoTorch's infer_reference_point: the nadir of the front (its worst value
// per objective) less kReferenceMargin of the front's range (at least of
// one unit, for a front of one point). Empty when the front is.
std::vector<double> FrontReference(
    const std::vector<std::vector<double>>& points,
    const std::vector<size_t>& front) {
  if (front.empty()) return {};
  const size_t k = points[front[0]].size();
  std::vector<double> reference(k);
  for (size_t i = 0; i < k; ++i) {
    double worst = std::numeric_limits<double>::infinity();
    double best = -worst;
    for (size_t p : front) {
      worst = std::min(worst, points[p][i]);
      best = std::max(best, points[p][i]);
    }
    reference[i] = worst - kReferenceMargin * std::max(best - worst, 1.0);
  }
  return reference;
}

// The lowest value of each objective's targets less kReferenceMargin.
std::vector<double> LowestReference(const MultiMetricModels& m) {
  std::vector<double> reference;
  for (const std::vector<double>& t : m.objective_targets) {
    reference.push_back(*std::min_element(t.begin(), t.end()) -
                        kReferenceMargin);
  }
  return reference;
}

// What one acquisition search needs.
struct Search {
  std::unique_ptr<AcquisitionFunction> acquisition;
  std::vector<std::vector<double>> anchors;
  AcquisitionOptimizerOptions options;
};

// The first point of `search` that decodes to an unused assignment (which
// it marks used) and, with `positive`, scores above 0.
std::optional<ParameterAssignment> FirstUnused(const Search& search,
                                               const FeatureEncoding& encoding,
                                               uint64_t seed, bool positive,
                                               AssignmentSet& used) {
  RankedPoints ranked = MaximizeAcquisition(
      *search.acquisition, encoding, search.anchors, seed, search.options);
  while (const ScoredPoint* p = ranked.Next()) {
    if (positive && !(p->score > 0)) break;  // Best first: none further.
    ParameterAssignment a = encoding.Decode(p->x);
    if (used.Insert(a)) return a;
  }
  return std::nullopt;
}

std::vector<int> SafeRows(const GpHistory& history) {
  std::vector<int> rows;
  for (int r = 0; r < static_cast<int>(history.observations.size()); ++r) {
    if (history.observations[r].safe) rows.push_back(r);
  }
  return rows;
}

// One objective with constraints: constrained log EI over the whole space,
// from the best safe observations or, with none, the closest to safe.
Search ConstrainedSearch(const MultiMetricModels& m, const GpHistory& history,
                         const FeatureEncoding& encoding) {
  const auto n = static_cast<int>(history.observations.size());
  const std::vector<int> safe_rows = SafeRows(history);
  const std::vector<double>& targets = m.objective_targets[0];
  std::optional<double> best;
  for (int r : safe_rows)
    best = std::max(best.value_or(targets[r]), targets[r]);
  Search search;
  if (best) {
    search.anchors = TopAnchors(history, safe_rows, targets);
  } else {
    // The observations closest to safe: highest smallest margin.
    std::vector<int> rows;
    std::vector<double> margin(n, -std::numeric_limits<double>::infinity());
    for (int r = 0; r < n; ++r) {
      if (!history.observations[r].feasible) continue;
      rows.push_back(r);
      double worst = std::numeric_limits<double>::infinity();
      for (size_t c = 0; c < history.thresholds.size(); ++c) {
        worst = std::min(worst, history.observations[r].metrics[1 + c] -
                                    history.thresholds[c]);
      }
      margin[r] = worst;
    }
    search.anchors = TopAnchors(history, rows, margin);
  }
  search.acquisition = std::make_unique<ConstrainedLogEiAcquisition>(
      m.models[0]->gp, best, Constraints(m), m.gamma);
  search.options =
      OptimizerOptions(m.models[0]->gp.num_observations(), encoding.dimension(),
                       static_cast<int>(m.models.size()));
  return search;
}

// The safe observations' objective targets and the indices (into them) of
// their Pareto front.
struct SafeFront {
  std::vector<int> rows;
  std::vector<std::vector<double>> points;
  std::vector<size_t> front;
};

SafeFront FrontOf(const MultiMetricModels& m, const GpHistory& history) {
  SafeFront f;
  f.rows = SafeRows(history);
  for (int r : f.rows) {
    std::vector<double> y;
    for (int i = 0; i < m.objectives; ++i) {
      y.push_back(m.objective_targets[i][r]);
    }
    f.points.push_back(std::move(y));
  }
  f.front = ParetoFront(f.points).value_or(std::vector<size_t>{});
  return f;
}

// Several objectives: the scalarised UCB's improvement for `weights` and
// `reference`, searched within m.radius of the front's observations that
// score highest under the scalarisation, or with `whole_space` (or no
// front) over the whole space.
Search ScalarizedSearch(const MultiMetricModels& m, const GpHistory& history,
                        const FeatureEncoding& encoding, const SafeFront& f,
                        std::vector<double> weights,
                        std::vector<double> reference, bool whole_space) {
  std::vector<const GaussianProcess*> objectives;
  for (int i = 0; i < m.objectives; ++i) {
    objectives.push_back(&m.models[i]->gp);
  }
  std::vector<int> front_rows;
  std::vector<double> score(history.observations.size(), 0.0);
  double baseline = 0;
  for (size_t i : f.front) {
    front_rows.push_back(f.rows[i]);
    score[f.rows[i]] = Scalarize(weights, reference, f.points[i]);
    baseline = std::max(baseline, score[f.rows[i]]);
  }
  Search search;
  search.anchors = TopAnchors(history, front_rows, score);
  search.acquisition = std::make_unique<ScalarizedUcbAcquisition>(
      std::move(objectives), std::move(weights), std::move(reference),
      Constraints(m), m.gamma, baseline);
  search.options =
      OptimizerOptions(m.models[0]->gp.num_observations(), encoding.dimension(),
                       static_cast<int>(m.models.size()));
  if (!search.anchors.empty() && !whole_space) {
    search.options.random_candidates = 0;
    search.options.local_radius = m.radius;
  }
  return search;
}

}  // namespace

absl::StatusOr<MultiMetricModels> BuildMultiMetricModels(
    const GpHistory& history, const FeatureEncoding& encoding, uint64_t seed,
    std::vector<std::unique_ptr<GpModelBuilder>>& builders, GpState& state,
    std::vector<std::optional<FitJob>>* deferred) {
  const int columns = history.columns();
  if (deferred != nullptr) deferred->assign(columns, std::nullopt);
  while (static_cast<int>(builders.size()) < columns) {
    builders.push_back(std::make_unique<GpModelBuilder>());
  }
  state.other_thetas.resize(columns - 1);
  const auto n = static_cast<uint64_t>(history.observations.size());
  const bool refit = NeedsRefit(state, n);
  MultiMetricModels m;
  m.objectives = history.objectives;
  for (int c = 0; c < columns; ++c) {
    std::vector<double> targets;
    if (c < history.objectives) {
      targets = Targets(history.observations, c,
                        /*warp=*/history.objectives == 1);
      m.objective_targets.push_back(targets);
    } else {
      ConstraintColumn column = ConstraintTargets(
          history.observations, c, history.thresholds[c - history.objectives]);
      targets = std::move(column.targets);
      m.thresholds.push_back(column.threshold);
    }
    std::vector<double>& theta =
        c == 0 ? state.theta : state.other_thetas[c - 1];
    // Column 0 draws its fit's starts as a one-metric study does.
    absl::StatusOr<std::unique_ptr<GpModel>> model = builders[c]->Build(
        history, targets, encoding,
        DeriveSeed(seed + static_cast<uint64_t>(c), kFitSalt, n), refit, theta,
        deferred != nullptr ? &(*deferred)[c] : nullptr);
    if (builders[c]->refitted()) state.fit_rows = n;
    if (!model.ok()) return model.status();
    if (c < history.objectives) {
      m.radius = std::min(m.radius, LogEiRadius(theta, encoding.kinds()));
    }
    m.models.push_back(*std::move(model));
  }
  const int safe = history.safe_count();
  const int feasible = history.feasible_count();
  if (history.desired_safe_fraction > 0 && feasible > 0 &&
      safe < history.desired_safe_fraction * feasible) {
    m.gamma = kSafetyEmphasis;
  }
  return m;
}

std::optional<Suggestion> SuggestFromModels(
    MultiMetricModels& m, const GpHistory& history,
    const FeatureEncoding& encoding, uint64_t seed, uint64_t call, int index,
    AssignmentSet& used, const QuasiRandomSuggestion& quasi_random) {
  const uint64_t stream = call * 1024 + index;
  const uint64_t acquisition_seed = DeriveSeed(seed, kAcquisitionSalt, stream);
  std::optional<Suggestion> s;
  if (m.objectives == 1) {
    std::optional<ParameterAssignment> a =
        FirstUnused(ConstrainedSearch(m, history, encoding), encoding,
                    acquisition_seed, /*positive=*/false, used);
    if (a) s = Suggestion{*std::move(a), "gp-constrained-logei"};
  } else {
    const SafeFront f = FrontOf(m, history);
    // Alternate suggestions take the front's reference point.
    std::vector<double> reference;
    if ((call + static_cast<uint64_t>(index)) % 2 == 0) {
      reference = FrontReference(f.points, f.front);
    }
    if (reference.empty()) reference = LowestReference(m);
    const bool whole_space =
        SplitMix64(seed ^ kExplorationSalt, stream).NextUnit() <
        kWholeSpaceProbability;
    for (int attempt = 0; attempt < kWeightDraws && !s; ++attempt) {
      std::optional<ParameterAssignment> a = FirstUnused(
          ScalarizedSearch(m, history, encoding, f,
                           DrawWeights(m.objectives, seed, stream, attempt),
                           reference, whole_space),
          encoding, acquisition_seed, /*positive=*/true, used);
      if (a) s = Suggestion{*std::move(a), "gp-hv-ucb"};
    }
    if (!s) s = quasi_random("quasi_random:gp_found_no_improvement");
  }
  if (!s.has_value())
    s = quasi_random("quasi_random:gp_found_only_used_points");
  if (s.has_value()) {
    absl::StatusOr<std::vector<double>> x = encoding.Encode(s->parameters);
    if (x.ok()) {
      for (auto& model : m.models) model->Believe(*x);
    }
  }
  return s;
}

}  // namespace hptune::algorithms::gp
