#include "algorithms/gp/gp_designer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/common/unique_sampler.h"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/acquisition_optimizer.h"
#include "algorithms/gp/gaussian_process.h"
#include "algorithms/gp/hyperparameter_fit.h"
#include "algorithms/gp/hyperparameters.h"
#include "algorithms/gp/output_warping.h"
#include "hptune/core/status.h"

namespace hptune::algorithms::gp {
namespace {

// A full fit when the observations grew by this fraction (at least one).
constexpr double kRefitGrowth = 0.1;
// Best observations the acquisition optimiser searches around.
constexpr int kAnchors = 5;
// Salts of the derived random streams, one per purpose.
constexpr uint64_t kFitSalt = 0x6a09e667f3bcc908ull;
constexpr uint64_t kAcquisitionSalt = 0xbb67ae8584caa73bull;
constexpr uint64_t kExplorationSalt = 0x3c6ef372fe94f82bull;

// Output n of the stream (seed ^ salt).
uint64_t DeriveSeed(uint64_t seed, uint64_t salt, uint64_t n) {
  return SplitMix64(seed ^ salt, n).Next();
}

// Mean 0, variance 1 (all 0 when constant).
void Standardise(std::vector<double>& y) {
  if (y.empty()) return;
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double variance = 0;
  for (double v : y) variance += (v - mean) * (v - mean);
  const double sd = std::sqrt(variance / static_cast<double>(y.size()));
  for (double& v : y) v = sd > 0 ? (v - mean) / sd : 0.0;
}

// The acquisition optimiser's effort for a model of n points: a candidate
// costs O(n^2) to score, so their number falls as n grows.
AcquisitionOptimizerOptions OptimizerOptions(int n, int d) {
  AcquisitionOptimizerOptions options;
  const double cost = static_cast<double>(n) * n + static_cast<double>(n) * d;
  const int candidates =
      std::clamp(static_cast<int>(2.5e7 / std::max(cost, 1.0)), 256, 2048);
  options.random_candidates = candidates / 2;
  options.local_candidates = candidates / 2;
  options.restarts = std::clamp(800 / std::max(n, 1), 3, 8);
  options.max_lbfgs_evaluations = 50;
  return options;
}

}  // namespace

struct GpDesigner::Model {
  GaussianProcess gp;  // Observed rows, then believed (pending) ones.
  // Best posterior mean at an observed or believed point.
  double incumbent = 0;
  // Pure exploration's threshold, computed on first use.
  std::optional<double> exploration_threshold;
  std::vector<std::vector<double>> anchors;

  // Conditions the variance on x, believed at its posterior mean.
  void Believe(std::span<const double> x) {
    incumbent = std::max(incumbent, gp.Predict(x).mean);
    gp.AddPending(x);
  }

  // The posterior mean at the observed point of highest mu + 1.8 sigma.
  double ExplorationThreshold() {
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
};

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

int InitialPoints(int dimension) {
  return std::clamp(2 * (dimension + 1), 4, 20);
}

GpDesigner::GpDesigner(StudySpec spec, uint64_t seed, FeatureEncoding encoding,
                       ScrambledHalton halton, std::optional<FiniteGrid> grid)
    : spec_(std::move(spec)),
      seed_(seed),
      encoding_(std::move(encoding)),
      halton_(std::move(halton)),
      grid_(std::move(grid)) {}

GpDesigner::~GpDesigner() = default;

absl::StatusOr<std::unique_ptr<GpDesigner>> GpDesigner::Create(
    const StudySpec& spec, uint64_t seed) {
  ASSIGN_OR_RETURN(FeatureEncoding encoding,
                   FeatureEncoding::Create(spec.search_space));
  const size_t parameters = spec.search_space.parameters().size();
  if (parameters > ScrambledHalton::kMaxDimension) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bayesian optimisation supports at most ",
                     ScrambledHalton::kMaxDimension, " parameters, got ",
                     parameters, "; use RANDOM_SEARCH"));
  }
  ScrambledHalton halton(static_cast<int>(parameters), seed);
  return std::unique_ptr<GpDesigner>(
      new GpDesigner(spec, seed, std::move(encoding), std::move(halton),
                     EnumerableGrid(spec.search_space)));
}

absl::Status GpDesigner::Update(const std::vector<Trial>& completed,
                                const std::vector<Trial>& active) {
  used_ = AssignmentSet::FromTrials(completed, active);
  skipped_.clear();
  struct Keyed {
    Timestamp end;
    int64_t number;
    Row row;
  };
  std::vector<Keyed> keyed;
  const std::string& metric = spec_.metric_tag;
  for (const Trial& t : completed) {
    auto skip = [&](const std::string& why) {
      skipped_.push_back(absl::StrCat("trial ", t.number, ": ", why));
    };
    if (!IsTerminal(t.state)) {
      skip(absl::StrCat("state ", std::string(ToString(t.state)),
                        " is not terminal"));
      continue;
    }
    if (t.state == TrialState::kCancelled) {
      skip("CANCELLED, which says nothing about its parameters");
      continue;
    }
    absl::StatusOr<std::vector<double>> x = encoding_.Encode(t.parameters);
    if (!x.ok()) {
      skip(std::string(x.status().message()));
      continue;
    }
    Row row{*std::move(x), 0.0, false};
    if (t.state == TrialState::kSucceeded) {
      const std::optional<double> value = t.FinalObjective(metric);
      if (value.has_value() && !std::isfinite(*value)) {
        skip(absl::StrCat("non-finite value ", *value, " of metric \"", metric,
                          "\""));
        continue;
      }
      if (value.has_value()) {
        row.value = spec_.goal == Goal::kMaximize ? *value : -*value;
        row.feasible = true;
      }
    }
    keyed.push_back(
        {t.end_time.value_or(Timestamp{}), t.number, std::move(row)});
  }
  // Completion order, so that a longer history extends a shorter one.
  std::stable_sort(
      keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
        return a.end != b.end ? a.end < b.end : a.number < b.number;
      });
  rows_.clear();
  for (Keyed& k : keyed) rows_.push_back(std::move(k.row));
  pending_.clear();
  for (const Trial& t : active) {
    absl::StatusOr<std::vector<double>> x = encoding_.Encode(t.parameters);
    if (x.ok()) {
      pending_.push_back(*std::move(x));
    } else {
      skipped_.push_back(
          absl::StrCat("pending trial ", t.number, ": ", x.status().message()));
    }
  }
  return absl::OkStatus();
}

std::optional<Suggestion> GpDesigner::QuasiRandom(const std::string& origin,
                                                  AssignmentSet& used) {
  auto next_point = [&]() {
    UnitPoint point{halton_.Point(state_.halton_index), origin};
    ++state_.halton_index;
    return point;
  };
  std::vector<Suggestion> s =
      SampleUnique(spec_.search_space, grid_, used, 1, next_point);
  if (s.empty()) return std::nullopt;
  used.Insert(s.front().parameters);
  return std::move(s.front());
}

std::vector<double> GpDesigner::Targets() const {
  std::vector<double> values;
  for (const Row& r : rows_) {
    if (r.feasible) values.push_back(r.value);
  }
  const std::vector<double> warped = WarpObjectives(values);
  const auto [lo, hi] = std::minmax_element(warped.begin(), warped.end());
  // Failed points sit at the worst value (one unit below when all agree).
  const double worst = *lo < *hi ? *lo : *lo - 1;
  std::vector<double> targets;
  size_t next = 0;
  for (const Row& r : rows_) {
    targets.push_back(r.feasible ? warped[next++] : worst);
  }
  Standardise(targets);
  return targets;
}

std::vector<int> GpDesigner::ModelRows(
    const std::vector<double>& targets) const {
  const auto n = static_cast<int>(rows_.size());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (n <= kMaxModelPoints) return all;
  std::vector<char> keep(n, 0);
  const int quarter = kMaxModelPoints / 4;
  std::vector<int> by_value = all;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&](int a, int b) { return targets[a] > targets[b]; });
  for (int i = 0; i < quarter; ++i) keep[by_value[i]] = 1;
  for (int i = n - quarter; i < n; ++i) keep[i] = 1;
  std::vector<int> rest;
  for (int i = 0; i < n; ++i) {
    if (!keep[i]) rest.push_back(i);
  }
  const auto kept = static_cast<int>(std::count(keep.begin(), keep.end(), 1));
  const int room = kMaxModelPoints - kept;
  for (int k = 0; k < room; ++k) {
    keep[rest[static_cast<size_t>(k) * rest.size() / room]] = 1;
  }
  std::vector<int> chosen;
  for (int i = 0; i < n; ++i) {
    if (keep[i]) chosen.push_back(i);
  }
  return chosen;
}

absl::StatusOr<std::unique_ptr<GpDesigner::Model>> GpDesigner::BuildModel() {
  const int d = encoding_.dimension();
  const std::vector<double> targets = Targets();
  const std::vector<int> model_rows = ModelRows(targets);
  TrainingData data;
  data.kinds = encoding_.kinds();
  data.x.resize(static_cast<Eigen::Index>(model_rows.size()), d);
  data.y.resize(static_cast<Eigen::Index>(model_rows.size()));
  for (size_t k = 0; k < model_rows.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    for (int j = 0; j < d; ++j) data.x(i, j) = rows_[model_rows[k]].x[j];
    data.y[i] = targets[model_rows[k]];
  }

  const auto n = static_cast<uint64_t>(rows_.size());
  const auto interval = std::max<uint64_t>(
      1, static_cast<uint64_t>(kRefitGrowth *
                               static_cast<double>(state_.fit_rows)));
  if (state_.theta.empty() || n < state_.fit_rows ||
      n >= state_.fit_rows + interval) {
    HyperparameterFitOptions options;
    options.warm_start = state_.theta;
    options.random_starts = state_.theta.empty() ? 3 : 1;
    options.max_evaluations_per_start = 100;
    options.seed = DeriveSeed(seed_, kFitSalt, n);
    absl::StatusOr<HyperparameterFit> fit =
        FitHyperparameters(data, MakePrior(encoding_.features()), options);
    if (!fit.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("gp_fit_failed(", fit.status().message(), ")"));
    }
    state_.theta = fit->theta;
    state_.fit_rows = n;
    refitted_ = true;
  }
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(std::move(data), state_.theta, last_model_.get());
  if (!gp.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("gp_model_failed(", gp.status().message(), ")"));
  }
  extended_ = gp->reused_rows() > 0;
  last_model_ = std::make_unique<GaussianProcess>(*gp);

  auto model = std::unique_ptr<Model>(new Model{.gp = *std::move(gp)});
  model->incumbent = model->gp.MeanAtObservations().maxCoeff();
  std::vector<int> order;
  for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
    if (rows_[r].feasible) order.push_back(r);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return targets[a] > targets[b]; });
  for (int r : order) {
    if (static_cast<int>(model->anchors.size()) >= kAnchors) break;
    model->anchors.push_back(rows_[r].x);
  }
  for (const auto& p : pending_) model->Believe(p);
  return model;
}

std::optional<Suggestion> GpDesigner::FromModel(Model& model, int index,
                                                AssignmentSet& used) {
  // One stream per (call, suggestion), so each is reproducible on its own.
  const uint64_t stream = state_.suggest_calls * 1024 + index;
  // The first model suggestion of a call explores with a probability; the
  // later members of a batch always do (step 4 of the header).
  const bool explore =
      index > 0 || SplitMix64(seed_ ^ kExplorationSalt, stream).NextUnit() <
                       kExplorationProbability;
  const LogExpectedImprovementAcquisition ei(model.gp, model.incumbent);
  std::optional<PureExplorationAcquisition> pe;
  if (explore) pe.emplace(model.gp, model.ExplorationThreshold());
  const AcquisitionFunction& acquisition =
      explore ? static_cast<const AcquisitionFunction&>(*pe) : ei;
  const AcquisitionOptimizerOptions whole_space =
      OptimizerOptions(model.gp.num_observations(), encoding_.dimension());
  AcquisitionOptimizerOptions options = whole_space;
  // Log EI searches only near the best observations (step 4 of the
  // header).
  if (!explore && !model.anchors.empty()) {
    options.random_candidates = 0;
    options.local_radius = LogEiRadius(state_.theta, encoding_.kinds());
  }
  const uint64_t seed = DeriveSeed(seed_, kAcquisitionSalt, stream);
  auto first_unused = [&](const AcquisitionOptimizerOptions& o) {
    std::optional<Suggestion> found;
    for (const ScoredPoint& p :
         MaximizeAcquisition(acquisition, encoding_, model.anchors, seed, o)) {
      ParameterAssignment a = encoding_.Decode(p.x);
      if (used.Insert(a)) {
        found = Suggestion{std::move(a), explore ? "gp-pe" : "gp-logei"};
        break;
      }
    }
    return found;
  };
  std::optional<Suggestion> s = first_unused(options);
  // In a finite space the neighbourhood of the best observations can be
  // used up while the rest of it is not.
  if (!s.has_value() && options.random_candidates == 0) {
    s = first_unused(whole_space);
  }
  if (!s.has_value()) {
    s = QuasiRandom("quasi_random:gp_found_only_used_points", used);
  }
  if (s.has_value()) {
    absl::StatusOr<std::vector<double>> x = encoding_.Encode(s->parameters);
    if (x.ok()) model.Believe(*x);
  }
  return s;
}

absl::StatusOr<std::vector<Suggestion>> GpDesigner::Suggest(int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GP designer: count must be >= 0, got ", count));
  }
  ++state_.suggest_calls;
  refitted_ = false;
  extended_ = false;
  const int initial = InitialPoints(encoding_.dimension());
  const auto total = static_cast<int>(rows_.size());
  const auto feasible = static_cast<int>(std::count_if(
      rows_.begin(), rows_.end(), [](const Row& r) { return r.feasible; }));
  AssignmentSet used = used_;
  std::vector<Suggestion> suggestions;
  std::unique_ptr<Model> model;
  std::string model_error;
  int from_model = 0;
  for (int i = 0; i < count; ++i) {
    const int known = total + static_cast<int>(pending_.size()) + i;
    std::optional<Suggestion> s;
    if (encoding_.dimension() == 0) {
      s = QuasiRandom("quasi_random:single_point_space", used);
    } else if (known < initial) {
      s = QuasiRandom(absl::StrCat("gp:seeding(", known + 1, " of ", initial,
                                   " initial points)"),
                      used);
    } else if (feasible == 0) {
      s = QuasiRandom(absl::StrCat("quasi_random:no_feasible_results(", total,
                                   " trials without a usable value)"),
                      used);
    } else {
      if (model == nullptr && model_error.empty()) {
        absl::StatusOr<std::unique_ptr<Model>> built = BuildModel();
        if (built.ok()) {
          model = *std::move(built);
        } else {
          model_error = std::string(built.status().message());
        }
      }
      s = model != nullptr
              ? FromModel(*model, from_model++, used)
              : QuasiRandom(absl::StrCat("quasi_random:", model_error), used);
    }
    if (!s.has_value()) break;  // The space is exhausted.
    suggestions.push_back(*std::move(s));
  }
  return suggestions;
}

std::string GpDesigner::SaveState() const { return FormatGpState(state_); }

absl::Status GpDesigner::RestoreState(std::string_view state) {
  ASSIGN_OR_RETURN(state_,
                   ParseGpState(state, PackedSize(encoding_.dimension())));
  return absl::OkStatus();
}

}  // namespace hptune::algorithms::gp
