#include "algorithms/stopping/convex_stopping_policy.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/stopping/forecast.h"
#include "algorithms/stopping/settings_decoder.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

struct Bound {
  double value = 0;
  std::string how;
};

// The header's bound of `curve` at step `target`; nullopt for a flat window.
std::optional<Bound> Overestimate(const LearningCurve& curve, Goal goal,
                                  int64_t target) {
  const std::vector<LearningCurve::Point>& points = curve.points();
  const size_t window = std::max<size_t>(2, points.size() / 2);
  std::vector<double> steps, values;
  for (size_t i = points.size() - std::min(window, points.size());
       i < points.size(); ++i) {
    steps.push_back(static_cast<double>(points[i].step));
    values.push_back(points[i].value);
  }
  if (std::all_of(values.begin(), values.end(),
                  [&](double v) { return v == values.front(); })) {
    return std::nullopt;
  }
  std::optional<LineFit> fit = FitLine(steps, values);
  if (fit && Improves(goal, fit->slope)) {
    return Bound{
        .value = fit->intercept + fit->slope * static_cast<double>(target),
        .how =
            absl::StrCat("line ", fit->intercept, " + ", fit->slope,
                         " * s through the latest ", steps.size(), " values")};
  }
  return Bound{.value = *curve.Best(goal),
               .how = "not improving: its best value so far"};
}

}  // namespace

absl::StatusOr<ConvexStoppingOptions> ConvexOptionsFromSettings(
    const StoppingSettings& settings) {
  ConvexStoppingOptions options;
  SettingsDecoder decoder(settings);
  decoder.Integer("maxStepCount", int64_t{0}, kMaxStoppingStepCount,
                  &options.max_step_count);
  decoder.Integer("minStepCount", int64_t{0}, kMaxStoppingStepCount,
                  &options.min_step_count);
  decoder.Integer("minMeasurementCount", kMinConvexMeasurements,
                  kMaxConvexMeasurements, &options.min_measurement_count);
  HPTUNE_RETURN_IF_ERROR(decoder.Finish());
  return options;
}

absl::StatusOr<std::unique_ptr<ConvexStoppingPolicy>>
ConvexStoppingPolicy::Create(ConvexStoppingOptions options) {
  auto invalid = [](const char* field, int64_t value, const char* want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "convex stopping: ", field, " must be ", want, ", got ", value));
  };
  if (options.max_step_count < 0 ||
      options.max_step_count > kMaxStoppingStepCount) {
    return invalid("maxStepCount", options.max_step_count, "in [0, 1e12]");
  }
  if (options.min_step_count < 0 ||
      options.min_step_count > kMaxStoppingStepCount) {
    return invalid("minStepCount", options.min_step_count, "in [0, 1e12]");
  }
  if (options.min_measurement_count < kMinConvexMeasurements ||
      options.min_measurement_count > kMaxConvexMeasurements) {
    return invalid("minMeasurementCount", options.min_measurement_count,
                   "in [2, 1000]");
  }
  return std::unique_ptr<ConvexStoppingPolicy>(
      new ConvexStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>>
ConvexStoppingPolicy::DecideOnCurves(const Problem& problem,
                                     std::span<const TrialCurve> trials) {
  const std::string& metric = problem.metric_tag();
  if (metric.empty()) {
    return absl::InvalidArgumentError(
        "convex stopping: the study has no metric tag");
  }
  const ConvexStoppingOptions& options = options_;
  const SplitCurves split = Split(trials);
  const int completed = static_cast<int>(split.completed.size());
  const int needed = options.min_measurement_count + 1;
  std::vector<StoppingDecision> decisions;
  for (const LearningCurve* curve : split.active) {
    StoppingDecision decision{.trial = curve->trial()};
    const int64_t target =
        std::max(options.max_step_count > 0 ? options.max_step_count
                                            : LongestCurve(split.completed),
                 curve->max_step());
    std::optional<Bound> bound;
    if (auto pre = Prejudge(*curve, metric, options.min_measurement_count,
                            options.min_step_count + 1)) {
      decision.stop = pre->stop;
      decision.reason = std::move(pre->reason);
    } else if (completed < needed) {
      decision.reason = absl::StrCat(completed, " completed trials, ", needed,
                                     " needed before judging");
    } else if (!(bound = Overestimate(*curve, problem.goal(), target))) {
      decision.reason = "the latest values are flat: no forecast";
    } else {
      const double best = *BestFinalValue(problem.goal(), split.completed);
      decision.stop = problem.IsBetter(best, bound->value);
      decision.reason =
          ForecastReason(decision.stop, bound->value, target, bound->how, best);
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace hptune::algorithms
