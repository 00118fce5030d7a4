#include "algorithms/gp/multi_metric_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/acquisition_optimizer.h"
#include "algorithms/gp/multi_metric_acquisition.h"
#include "algorithms/gp/normal_draw.h"
#include "algorithms/gp/streams.h"
#include "hptune/core/pareto.h"

namespace hptune::algorithms::gp {
namespace {

// A weight vector uniform on the positive part of the unit sphere: the
// absolute values of a standard normal vector, normalised.
std::vector<double> DrawWeights(int k, uint64_t seed, uint64_t stream) {
  SplitMix64 rng(seed ^ kScalarizationSalt, stream);
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

}  // namespace

absl::StatusOr<MultiMetricModels> BuildMultiMetricModels(
    const GpHistory& history, const FeatureEncoding& encoding, uint64_t seed,
    std::vector<std::unique_ptr<GpModelBuilder>>& builders, GpState& state) {
  const int columns = history.columns();
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
      targets = Targets(history.observations, c);
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
        DeriveSeed(seed + static_cast<uint64_t>(c), kFitSalt, n), refit, theta);
    if (builders[c]->refitted()) state.fit_rows = n;
    if (!model.ok()) return model.status();
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
  const auto n = static_cast<int>(history.observations.size());
  std::vector<int> safe_rows;
  for (int r = 0; r < n; ++r) {
    if (history.observations[r].safe) safe_rows.push_back(r);
  }
  std::unique_ptr<AcquisitionFunction> acquisition;
  std::vector<std::vector<double>> anchors;
  std::string origin;
  if (m.objectives == 1) {
    const std::vector<double>& targets = m.objective_targets[0];
    std::optional<double> best;
    for (int r : safe_rows)
      best = std::max(best.value_or(targets[r]), targets[r]);
    if (best) {
      anchors = TopAnchors(history, safe_rows, targets);
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
      anchors = TopAnchors(history, rows, margin);
    }
    acquisition = std::make_unique<ConstrainedLogEiAcquisition>(
        m.models[0]->gp, best, Constraints(m), m.gamma);
    origin = "gp-constrained-logei";
  } else {
    std::vector<const GaussianProcess*> objectives;
    std::vector<double> reference;
    for (int i = 0; i < m.objectives; ++i) {
      objectives.push_back(&m.models[i]->gp);
      const std::vector<double>& t = m.objective_targets[i];
      reference.push_back(*std::min_element(t.begin(), t.end()) -
                          kReferenceMargin);
    }
    auto scalarized = std::make_unique<ScalarizedUcbAcquisition>(
        std::move(objectives), DrawWeights(m.objectives, seed, stream),
        std::move(reference), Constraints(m), m.gamma);
    // Anchors: the safe Pareto front, best under this scalarisation first.
    std::vector<std::vector<double>> points;
    for (int r : safe_rows) {
      std::vector<double> y;
      for (int i = 0; i < m.objectives; ++i) {
        y.push_back(m.objective_targets[i][r]);
      }
      points.push_back(std::move(y));
    }
    std::vector<int> front_rows;
    std::vector<double> score(n, 0.0);
    for (size_t i : ParetoFront(points).value_or(std::vector<size_t>{})) {
      front_rows.push_back(safe_rows[i]);
      score[safe_rows[i]] = scalarized->Scalarize(points[i]);
    }
    anchors = TopAnchors(history, front_rows, score);
    acquisition = std::move(scalarized);
    origin = "gp-hv-ucb";
  }
  const AcquisitionOptimizerOptions options =
      OptimizerOptions(m.models[0]->gp.num_observations(), encoding.dimension(),
                       static_cast<int>(m.models.size()));
  const uint64_t acquisition_seed = DeriveSeed(seed, kAcquisitionSalt, stream);
  std::optional<Suggestion> s;
  for (const ScoredPoint& p : MaximizeAcquisition(
           *acquisition, encoding, anchors, acquisition_seed, options)) {
    ParameterAssignment a = encoding.Decode(p.x);
    if (used.Insert(a)) {
      s = Suggestion{std::move(a), origin};
      break;
    }
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
