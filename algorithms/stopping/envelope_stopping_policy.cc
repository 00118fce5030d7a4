#include "algorithms/stopping/envelope_stopping_policy.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/stopping/forecast.h"
#include "hptune/algorithms/learning_curve.h"

namespace hptune::algorithms {
namespace {

// How much better `to` is than `from` for `goal`; negative when worse.
double Gain(Goal goal, double from, double to) {
  return goal == Goal::kMaximize ? to - from : from - to;
}

double LastValue(const LearningCurve& curve) {
  return *curve.ValueAtOrBefore(curve.max_step());
}

// G(s) of the header: the most an ended curve improved after step `step`;
// nullopt when no ended curve went past it.
std::optional<double> LargestRecovery(
    Goal goal, std::span<const LearningCurve* const> ended, int64_t step) {
  std::optional<double> largest;
  for (const LearningCurve* c : ended) {
    if (c->max_step() <= step) continue;
    std::optional<double> then = c->ValueAtOrBefore(step);
    if (!then) continue;
    const double gain = Gain(goal, *then, LastValue(*c));
    if (!largest || gain > *largest) largest = gain;
  }
  return largest;
}

// m of the header: the improvement per step over the latest `k` report
// intervals; 0 when they do not advance the step (a restarted trainer).
double RecentSlope(Goal goal, const LearningCurve& curve, int k) {
  const std::vector<LearningCurve::Point>& points = curve.points();
  const LearningCurve::Point& last = points.back();
  const LearningCurve::Point& first = points[points.size() - 1 - k];
  if (last.step <= first.step) return 0;
  return Gain(goal, first.value, last.value) /
         static_cast<double>(last.step - first.step);
}

int CountReaching(std::span<const LearningCurve* const> ended, int64_t step) {
  return static_cast<int>(std::count_if(
      ended.begin(), ended.end(),
      [step](const LearningCurve* c) { return c->max_step() >= step; }));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EnvelopeStoppingPolicy>>
EnvelopeStoppingPolicy::Create(EnvelopeStoppingOptions options) {
  auto invalid = [](const char* field, int value, const char* want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "envelope stopping: ", field, " must be ", want, ", got ", value));
  };
  if (options.min_full_curves < 1 || options.min_full_curves > 1000) {
    return invalid("min_full_curves", options.min_full_curves, "in [1, 1000]");
  }
  if (options.slope_intervals < 1 || options.slope_intervals > 100) {
    return invalid("slope_intervals", options.slope_intervals, "in [1, 100]");
  }
  if (options.min_measurements < options.slope_intervals + 1 ||
      options.min_measurements > 1000) {
    return invalid("min_measurements", options.min_measurements,
                   "in [slope_intervals + 1, 1000]");
  }
  return std::unique_ptr<EnvelopeStoppingPolicy>(
      new EnvelopeStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>>
EnvelopeStoppingPolicy::DecideOnCurves(const Problem& problem,
                                       std::span<const TrialCurve> trials) {
  const std::string& metric = problem.metric_tag();
  if (metric.empty()) {
    return absl::InvalidArgumentError(
        "envelope stopping: the study has no metric tag");
  }
  const SplitCurves split = Split(trials);
  const int64_t longest = LongestCurve(split.completed);
  const int full = CountReaching(split.completed, longest);
  std::vector<StoppingDecision> decisions;
  for (const LearningCurve* curve : split.active) {
    StoppingDecision decision{.trial = curve->trial()};
    if (auto pre = Prejudge(*curve, metric, options_.min_measurements, 1)) {
      decision.stop = pre->stop;
      decision.reason = std::move(pre->reason);
    } else if (full < options_.min_full_curves) {
      decision.reason =
          absl::StrCat(full, " trials ran to the longest step, ",
                       options_.min_full_curves, " needed before judging");
    } else {
      decisions.push_back(Judge(problem, *curve, split.completed, longest));
      continue;
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

StoppingDecision EnvelopeStoppingPolicy::Judge(
    const Problem& problem, const LearningCurve& curve,
    std::span<const LearningCurve* const> ended, int64_t longest) const {
  const int64_t step = curve.max_step();
  const double latest = LastValue(curve);
  const double recovery =
      LargestRecovery(problem.goal(), ended, step).value_or(0.0);
  const double slope =
      RecentSlope(problem.goal(), curve, options_.slope_intervals);
  const int64_t remaining = std::max<int64_t>(0, longest - step);
  const double headroom =
      std::max({0.0, recovery, slope * static_cast<double>(remaining)});
  const double bound =
      problem.goal() == Goal::kMaximize ? latest + headroom : latest - headroom;
  const double best = *BestFinalValue(problem.goal(), ended);
  StoppingDecision decision{.trial = curve.trial()};
  decision.stop = problem.IsBetter(best, bound);
  decision.reason = ForecastReason(
      decision.stop, bound, std::max(longest, step),
      absl::StrCat("latest ", latest, " improved by at most ", headroom,
                   ": the largest recovery of an ended curve after step ", step,
                   " is ", recovery, ", its own slope ", slope,
                   " per step over ", remaining, " steps"),
      best);
  return decision;
}

}  // namespace hptune::algorithms
