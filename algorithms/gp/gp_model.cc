#include "algorithms/gp/gp_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/hyperparameter_fit.h"
#include "algorithms/gp/hyperparameters.h"

namespace hptune::algorithms::gp {
namespace {

// The training data of the observations `rows` with their `targets`.
TrainingData MakeTrainingData(const GpHistory& history,
                              const FeatureEncoding& encoding,
                              const std::vector<double>& targets,
                              const std::vector<int>& rows) {
  const int d = encoding.dimension();
  TrainingData data;
  data.kinds = encoding.kinds();
  data.x.resize(static_cast<Eigen::Index>(rows.size()), d);
  data.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    for (int j = 0; j < d; ++j) {
      data.x(i, j) = history.observations[rows[k]].x[j];
    }
    data.y[i] = targets[rows[k]];
  }
  return data;
}

}  // namespace

void GpModel::Believe(std::span<const double> x) {
  incumbent = std::max(incumbent, gp.Predict(x).mean);
  gp.AddPending(x);
}

double GpModel::ExplorationThreshold() {
  if (!exploration_threshold.has_value()) {
    const RowMatrix observed = gp.rows().topRows(gp.num_observations());
    Eigen::VectorXd mean, variance;
    gp.PredictBatch(observed, mean, variance);
    Eigen::Index best = 0;
    const Eigen::VectorXd ucb =
        mean.array() + PureExplorationAcquisition::kThresholdCoefficient *
                           variance.array().sqrt();
    ucb.maxCoeff(&best);
    exploration_threshold = mean[best];
  }
  return *exploration_threshold;
}

bool NeedsRefit(const GpState& state, uint64_t n) {
  const auto interval = std::max<uint64_t>(
      1, static_cast<uint64_t>(kRefitGrowth *
                               static_cast<double>(state.fit_rows)));
  return state.theta.empty() || n < state.fit_rows ||
         n >= state.fit_rows + interval;
}

absl::StatusOr<std::vector<double>> RunFitJob(
    const FitJob& job, const std::atomic<bool>* cancelled) {
  HyperparameterFitOptions options = job.options;
  options.cancelled = cancelled;
  absl::StatusOr<HyperparameterFit> fit =
      FitHyperparameters(job.data, job.prior, options);
  if (absl::IsCancelled(fit.status())) return fit.status();
  if (!fit.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("gp_fit_failed(", fit.status().message(), ")"));
  }
  return fit->theta;
}

GpModelBuilder::GpModelBuilder() = default;
GpModelBuilder::~GpModelBuilder() = default;

absl::StatusOr<std::unique_ptr<GpModel>> GpModelBuilder::Build(
    const GpHistory& history, const std::vector<double>& targets,
    const FeatureEncoding& encoding, uint64_t fit_seed, bool refit,
    std::vector<double>& theta, std::optional<FitJob>* deferred) {
  TrainingData data =
      MakeTrainingData(history, encoding, targets, ModelRows(targets));
  if (refit || theta.empty()) {
    FitJob job{.data = data, .prior = MakePrior(encoding.features())};
    job.options.warm_start = theta;
    job.options.random_starts = theta.empty() ? 3 : 1;
    job.options.max_evaluations_per_start = 100;
    job.options.seed = fit_seed;
    if (deferred != nullptr && !theta.empty()) {
      *deferred = std::move(job);
    } else {
      absl::StatusOr<std::vector<double>> fitted = RunFitJob(job);
      if (!fitted.ok()) return fitted.status();
      theta = *std::move(fitted);
      refitted_ = true;
    }
  }
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(std::move(data), theta, last_model_.get());
  if (!gp.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("gp_model_failed(", gp.status().message(), ")"));
  }
  extended_ = gp->reused_rows() > 0;
  last_model_ = std::make_unique<GaussianProcess>(*gp);

  auto model = std::unique_ptr<GpModel>(new GpModel{.gp = *std::move(gp)});
  const Eigen::VectorXd mean = model->gp.MeanAtObservations();
  const RowMatrix& observed = model->gp.rows();
  model->incumbent = mean.maxCoeff();
  std::vector<int> order;
  for (int r = 0; r < static_cast<int>(history.observations.size()); ++r) {
    if (history.observations[r].feasible) order.push_back(r);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return targets[a] > targets[b]; });
  for (int r : order) {
    if (static_cast<int>(model->anchors.size()) >= kAnchors) break;
    model->anchors.push_back(history.observations[r].x);
  }
  std::vector<std::vector<double>> rows;
  rows.reserve(history.observations.size() + history.pending.size());
  std::vector<double> values;
  for (const Observation& o : history.observations) {
    rows.push_back(o.x);
    values.push_back(o.feasible ? o.value
                                : std::numeric_limits<double>::quiet_NaN());
  }
  for (const auto& p : history.pending) rows.push_back(p);
  SweptBranch swept;
  if (HasSweepCoordinate(encoding)) {
    swept = [&](CategoryTurn t) {
      return BranchSeenNarrowly(observed, mean, t);
    };
  }
  model->category_turn = DueCategoryTurn(encoding, rows, values, swept);
  if (const auto& turn = model->category_turn) {
    for (int r : order) {
      if (static_cast<int>(model->turn_anchors.size()) >= kAnchors) break;
      const std::vector<double>& x = history.observations[r].x;
      if (x[turn->feature] == turn->value) model->turn_anchors.push_back(x);
    }
    model->turn_incumbent = -std::numeric_limits<double>::infinity();
    for (Eigen::Index r = 0; r < mean.size(); ++r) {
      if (observed(r, turn->feature) == turn->value)
        model->turn_incumbent = std::max(model->turn_incumbent, mean[r]);
    }
    if (!std::isfinite(model->turn_incumbent))
      model->turn_incumbent = model->incumbent;
    model->turn_sweeps = !model->turn_anchors.empty() && swept && swept(*turn);
  }
  for (const auto& p : history.pending) model->Believe(p);
  return model;
}

}  // namespace hptune::algorithms::gp
