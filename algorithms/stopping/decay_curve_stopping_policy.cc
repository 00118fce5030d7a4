#include "algorithms/stopping/decay_curve_stopping_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/stopping/forecast.h"
#include "algorithms/stopping/warm_up.h"
#include "hptune/algorithms/learning_curve.h"

namespace hptune::algorithms {
namespace {

struct Forecast {
  double value = 0;
  double optimistic = 0;
  std::string how;
};

// The header's forecast of `curve` at step `target`.
Forecast ForecastDecay(const LearningCurve& curve, Goal goal, int64_t target,
                       double sigmas) {
  std::vector<double> steps, values;
  for (const LearningCurve::Point& p : curve.points()) {
    if (p.step < 1) continue;
    steps.push_back(static_cast<double>(p.step));
    values.push_back(p.value);
  }
  std::optional<LineFit> best;
  double best_c = 0;
  for (double c : {0.25, 0.5, 1.0, 2.0}) {
    std::vector<double> x;
    for (double s : steps) x.push_back(std::pow(s, -c));
    std::optional<LineFit> fit = FitLine(x, values);
    if (fit && (!best || fit->sse < best->sse)) {
      best = fit;
      best_c = c;
    }
  }
  Forecast f;
  const double latest = *curve.ValueAtOrBefore(curve.max_step());
  // s^(-c) falls as s grows, so the curve improves when -b does.
  if (best && Improves(goal, -best->slope)) {
    f.value = best->intercept +
              best->slope * std::pow(static_cast<double>(target), -best_c);
    f.how = absl::StrCat("fit ", best->intercept, " + ", best->slope, " * s^-",
                         best_c);
  } else {
    f.value = latest;
    f.how = "not improving: its latest value";
  }
  const double spread = sigmas * (best ? best->residual_sd : 0);
  f.optimistic = goal == Goal::kMaximize ? f.value + spread : f.value - spread;
  absl::StrAppend(&f.how, ", optimistic ", f.optimistic);
  return f;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DecayCurveStoppingPolicy>>
DecayCurveStoppingPolicy::Create(DecayCurveOptions options) {
  auto invalid = [](const char* field, auto value, const char* want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "decay-curve stopping: ", field, " must be ", want, ", got ", value));
  };
  if (options.min_completed_trials < 1) {
    return invalid("min_completed_trials", options.min_completed_trials,
                   "at least 1");
  }
  if (options.min_measurements < 3) {
    return invalid("min_measurements", options.min_measurements, "at least 3");
  }
  if (!(options.min_step_fraction >= 0 && options.min_step_fraction <= 1)) {
    return invalid("min_step_fraction", options.min_step_fraction, "in [0, 1]");
  }
  if (!(options.optimism_sigmas >= 0 && options.optimism_sigmas <= 10)) {
    return invalid("optimism_sigmas", options.optimism_sigmas, "in [0, 10]");
  }
  return std::unique_ptr<DecayCurveStoppingPolicy>(
      new DecayCurveStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>>
DecayCurveStoppingPolicy::DecideOnCurves(const Problem& problem,
                                         std::span<const TrialCurve> trials) {
  const std::string& metric = problem.metric_tag();
  if (metric.empty()) {
    return absl::InvalidArgumentError(
        "decay-curve stopping: the study has no metric tag");
  }
  const SplitCurves split = Split(trials);
  const int64_t longest = LongestCurve(split.completed);
  const int64_t first_step =
      FirstJudgedStep(options_.min_step_fraction, longest);
  const int completed = static_cast<int>(split.completed.size());
  std::vector<StoppingDecision> decisions;
  for (const LearningCurve* curve : split.active) {
    StoppingDecision decision{.trial = curve->trial()};
    if (auto pre =
            Prejudge(*curve, metric, options_.min_measurements, first_step)) {
      decision.stop = pre->stop;
      decision.reason = std::move(pre->reason);
    } else if (completed < options_.min_completed_trials) {
      decision.reason =
          absl::StrCat(completed, " completed trials, ",
                       options_.min_completed_trials, " needed before judging");
    } else {
      const double best = *BestFinalValue(problem.goal(), split.completed);
      const int64_t target = std::max(longest, curve->max_step());
      Forecast f = ForecastDecay(*curve, problem.goal(), target,
                                 options_.optimism_sigmas);
      decision.stop = problem.IsBetter(best, f.optimistic);
      decision.reason =
          ForecastReason(decision.stop, f.value, target, f.how, best);
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace hptune::algorithms
