#include "algorithms/gp/curve_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/gp_history.h"
#include "algorithms/gp/gp_model.h"
#include "algorithms/gp/hyperparameters.h"
#include "algorithms/gp/streams.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/core/status.h"

namespace hptune::algorithms::gp {
namespace {

// How many steps below L the finished trials' curves are read at: the
// model's points are at most trials + kCurveLevels * kCurveModelTrials.
constexpr int kCurveLevels = 3;

bool StoppedBefore(const Trial& t, int64_t last_step) {
  const int64_t step = t.LastStep().value_or(0);
  return t.state == TrialState::kSucceeded && t.stopped_early && step > 0 &&
         step < last_step;
}

// The space with one more DOUBLE in [0, 1], the step's z, named apart from
// every parameter.
struct StepSpace {
  Problem problem;
  std::string name;
};
StepSpace WithStep(const Problem& problem) {
  StepSpace result{problem, "step_z"};
  auto taken = [&](const std::string& name) {
    for (const ParameterSpec& p : problem.search_space.parameters()) {
      if (p.name == name) return true;
    }
    return false;
  };
  while (taken(result.name)) result.name += "_";
  std::vector<ParameterSpec> parameters = problem.search_space.parameters();
  ParameterSpec z{.name = result.name, .min_value = 0, .max_value = 1};
  z.scale = ScaleType::kLinear;
  parameters.push_back(std::move(z));
  result.problem.search_space = SearchSpace(std::move(parameters));
  return result;
}

// The steps where the trials that ran to L are also read (kCurveLevels
// quantiles of the stopped trials' last steps): where forecasts start.
std::vector<int64_t> StopLevels(const std::vector<Trial>& completed,
                                int64_t last_step) {
  std::vector<int64_t> stops;
  for (const Trial& t : completed) {
    if (StoppedBefore(t, last_step)) stops.push_back(*t.LastStep());
  }
  std::sort(stops.begin(), stops.end());
  std::vector<int64_t> levels;
  if (stops.empty()) return levels;
  for (int i = 0; i < kCurveLevels; ++i) {
    const int64_t s = stops[(2 * i + 1) * stops.size() / (2 * kCurveLevels)];
    if (levels.empty() || levels.back() != s) levels.push_back(s);
  }
  return levels;
}

// `t` read at `step` as `value`: its parameters with z(step), the value as
// its final measurement.
Trial PointAt(const Trial& t, const std::string& metric, int64_t step,
              double value, double log_last, const std::string& z_name) {
  Trial point = t;
  point.measurements.clear();
  point.parameters[z_name] =
      ParameterValue::Double(std::log(static_cast<double>(step)) / log_last);
  point.final_measurement =
      Measurement{.step = step, .metrics = {{metric, value}}};
  return point;
}

bool HasValue(const Trial& t, const std::string& metric) {
  return t.state == TrialState::kSucceeded && t.final_measurement &&
         t.final_measurement->Get(metric).has_value();
}

// One point per SUCCEEDED trial with a value, at its last report; and, for
// the latest kCurveModelTrials that ran to L and came with their curves
// (Designer::CurvesWanted), one at each stop level.
std::vector<Trial> CurvePoints(const std::vector<Trial>& completed,
                               const std::string& metric, int64_t last_step,
                               const std::string& z_name) {
  auto with_curve = [&](const Trial& t) {
    return HasValue(t, metric) && !t.measurements.empty() &&
           t.LastStep().value_or(0) == last_step;
  };
  const auto curves =
      std::count_if(completed.begin(), completed.end(), with_curve);
  const double log_last = std::log(static_cast<double>(last_step));
  const std::vector<int64_t> levels = StopLevels(completed, last_step);
  std::vector<Trial> points;
  int64_t curves_seen = 0;
  for (const Trial& t : completed) {
    if (!HasValue(t, metric)) continue;
    const int64_t step = std::max<int64_t>(t.LastStep().value_or(0), 1);
    points.push_back(PointAt(t, metric, step, *t.final_measurement->Get(metric),
                             log_last, z_name));
    if (!with_curve(t) || curves - curves_seen++ > kCurveModelTrials) continue;
    const LearningCurve curve(t, metric);
    for (int64_t level : levels) {
      const std::optional<double> at = curve.ValueAtOrBefore(level);
      if (at)
        points.push_back(PointAt(t, metric, level, *at, log_last, z_name));
    }
  }
  return points;
}

// The inverse of the warp from values to targets (output_warping.h) as a
// monotone piecewise-linear map through the observed (target, value)
// pairs, held at the extreme values beyond them.
class WarpInverse {
 public:
  WarpInverse(const std::vector<double>& targets,
              const std::vector<double>& values) {
    for (size_t i = 0; i < targets.size(); ++i)
      pairs_.emplace_back(targets[i], values[i]);
    std::sort(pairs_.begin(), pairs_.end());
  }
  double operator()(double target) const {
    auto above = std::lower_bound(
        pairs_.begin(), pairs_.end(), target,
        [](const auto& pair, double t) { return pair.first < t; });
    if (above == pairs_.begin()) return pairs_.front().second;
    if (above == pairs_.end()) return pairs_.back().second;
    const auto& [t1, v1] = *above;
    const auto& [t0, v0] = *std::prev(above);
    return t1 > t0 ? v0 + (v1 - v0) * (target - t0) / (t1 - t0) : v1;
  }

 private:
  std::vector<std::pair<double, double>> pairs_;
};

}  // namespace

absl::StatusOr<int> CurveModelPackedSize(const Problem& problem) {
  HPTUNE_ASSIGN_OR_RETURN(
      FeatureEncoding encoding,
      FeatureEncoding::Create(WithStep(problem).problem.search_space));
  return PackedSize(encoding.dimension());
}

absl::StatusOr<std::vector<Trial>> ForecastStoppedTrials(
    const Problem& problem, const std::vector<Trial>& completed, uint64_t seed,
    GpState& fit, std::optional<CurveRefit>* deferred) {
  int64_t last_step = 0;
  int at_last = 0;
  for (const Trial& t : completed) {
    if (t.state != TrialState::kSucceeded) continue;
    const int64_t step = t.LastStep().value_or(0);
    if (step > last_step) at_last = 0;
    last_step = std::max(last_step, step);
    if (step == last_step) ++at_last;
  }
  const bool any_stopped =
      std::any_of(completed.begin(), completed.end(),
                  [&](const Trial& t) { return StoppedBefore(t, last_step); });
  if (!any_stopped || at_last < 2 || last_step < 2 ||
      problem.AllMetrics().size() != 1) {
    return completed;
  }
  const MetricSpec metric = problem.Objectives().front();
  const StepSpace space = WithStep(problem);
  HPTUNE_ASSIGN_OR_RETURN(FeatureEncoding encoding,
                          FeatureEncoding::Create(space.problem.search_space));
  const GpHistory history =
      ReadHistory(space.problem, encoding,
                  CurvePoints(completed, metric.id, last_step, space.name), {});
  std::vector<double> values;
  for (const Observation& o : history.observations) values.push_back(o.value);
  const std::vector<double> targets = Targets(history.observations);
  const auto rows = static_cast<uint64_t>(history.observations.size());
  const bool refit = NeedsRefit(fit, rows);
  GpModelBuilder builder;
  std::optional<FitJob> job;
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<GpModel> model,
      builder.Build(history, targets, encoding,
                    DeriveSeed(seed, kCurveFitSalt, rows), refit, fit.theta,
                    deferred != nullptr ? &job : nullptr));
  if (builder.refitted()) fit.fit_rows = rows;
  if (job) *deferred = CurveRefit{.job = *std::move(job), .rows = rows};
  const WarpInverse to_value(targets, values);
  std::vector<Trial> result = completed;
  for (Trial& t : result) {
    if (!StoppedBefore(t, last_step)) continue;
    ParameterAssignment at_end = t.parameters;
    at_end[space.name] = ParameterValue::Double(1.0);
    absl::StatusOr<std::vector<double>> x = encoding.Encode(at_end);
    if (!x.ok()) continue;  // Left as the GP reads it.
    const double oriented = to_value(model->gp.Predict(*x).mean);
    Measurement forecast = t.final_measurement.value_or(Measurement{});
    forecast.step = last_step;
    forecast.metrics = {
        {metric.id, metric.goal == Goal::kMaximize ? oriented : -oriented}};
    t.final_measurement = std::move(forecast);
  }
  return result;
}

}  // namespace hptune::algorithms::gp
