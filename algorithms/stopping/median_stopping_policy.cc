#include "algorithms/stopping/median_stopping_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/stopping/settings_decoder.h"
#include "algorithms/stopping/warm_up.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

// Why `curve` is not judged yet (the header's warm-ups), or nullopt:
// `first_step` is the fraction's step of the `longest` completed curve.
std::optional<std::string> WarmingUp(const MedianStoppingOptions& options,
                                     const LearningCurve& curve,
                                     const std::string& metric,
                                     int64_t first_step, int64_t longest) {
  const int reported = static_cast<int>(curve.points().size());
  if (reported < options.min_measurements) {
    return absl::StrCat(reported, " values of ", metric, " reported, ",
                        options.min_measurements, " needed before judging");
  }
  const int64_t step = curve.max_step();
  if (step < options.warmup_steps) {
    return absl::StrCat("step ", step, " is before the warm-up's step ",
                        options.warmup_steps);
  }
  if (step < first_step) {
    return TooEarlyReason(step, first_step, options.min_step_fraction, longest);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<MedianStoppingOptions> MedianOptionsFromSettings(
    MedianStoppingOptions::Reference reference,
    const StoppingSettings& settings) {
  MedianStoppingOptions options{.reference = reference};
  SettingsDecoder decoder(settings);
  decoder.Integer("warmupSteps", int64_t{0}, kMaxMedianWarmupSteps,
                  &options.warmup_steps);
  HPTUNE_RETURN_IF_ERROR(decoder.Finish());
  return options;
}

absl::StatusOr<std::unique_ptr<MedianStoppingPolicy>>
MedianStoppingPolicy::Create(MedianStoppingOptions options) {
  if (options.min_completed_trials < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("median stopping: min_completed_trials must be at least "
                     "1, got ",
                     options.min_completed_trials));
  }
  if (!(options.min_step_fraction >= 0 && options.min_step_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("median stopping: min_step_fraction must be in [0, 1], "
                     "got ",
                     options.min_step_fraction));
  }
  if (options.warmup_steps < 0 ||
      options.warmup_steps > kMaxMedianWarmupSteps) {
    return absl::InvalidArgumentError(
        absl::StrCat("median stopping: warmup_steps must be in [0, 1e12], "
                     "got ",
                     options.warmup_steps));
  }
  if (options.min_measurements < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("median stopping: min_measurements must be at least 1, "
                     "got ",
                     options.min_measurements));
  }
  return std::unique_ptr<MedianStoppingPolicy>(
      new MedianStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>>
MedianStoppingPolicy::DecideOnCurves(const Problem& problem,
                                     std::span<const TrialCurve> trials) {
  const std::string& metric = problem.metric_tag();
  if (metric.empty()) {
    return absl::InvalidArgumentError(
        "median stopping: the study has no metric tag");
  }
  std::vector<const LearningCurve*> completed;
  std::vector<const LearningCurve*> active;
  for (const TrialCurve& trial : trials) {
    if (trial.state == TrialState::kSucceeded) {
      if (!trial.curve->empty()) completed.push_back(trial.curve);
    } else if (trial.state == TrialState::kActive) {
      active.push_back(trial.curve);
    }
  }
  std::sort(active.begin(), active.end(),
            [](const LearningCurve* a, const LearningCurve* b) {
              return a->trial() < b->trial();
            });
  int64_t longest = 0;
  for (const LearningCurve* c : completed) {
    longest = std::max(longest, c->max_step());
  }
  // The first step at which a trial may be judged; see the header.
  const int64_t first_step =
      FirstJudgedStep(options_.min_step_fraction, longest);

  std::vector<StoppingDecision> decisions;
  for (const LearningCurve* judged : active) {
    const LearningCurve& curve = *judged;
    StoppingDecision decision{.trial = curve.trial()};
    if (curve.empty()) {
      decision.reason = absl::StrCat("no value of ", metric, " reported yet");
      decisions.push_back(std::move(decision));
      continue;
    }
    const int64_t step = curve.max_step();
    const double best = *curve.Best(problem.goal());
    if (std::optional<std::string> why =
            WarmingUp(options_, curve, metric, first_step, longest)) {
      decision.reason = *std::move(why);
      decisions.push_back(std::move(decision));
      continue;
    }
    const bool at_step =
        options_.reference == MedianStoppingOptions::Reference::kValueAtStep;
    std::vector<double> averages;
    for (const LearningCurve* c : completed) {
      // At the step, only curves that got there compare: a trial stopped
      // before s has no value at s, and its last one is from a worse time.
      if (at_step && c->max_step() < step) continue;
      if (std::optional<double> value =
              at_step ? c->ValueAtOrBefore(step) : c->MeanUpTo(step)) {
        averages.push_back(*value);
      }
    }
    const int count = static_cast<int>(averages.size());
    if (count < options_.min_completed_trials) {
      decision.reason = absl::StrCat(
          count, " completed trials have ", metric, " by step ", step, ", ",
          options_.min_completed_trials, " needed before judging");
      decisions.push_back(std::move(decision));
      continue;
    }
    const double median = Median(std::move(averages));
    decision.stop = problem.IsBetter(median, best);
    decision.reason = absl::StrCat(
        "best ", best, " by step ", step, decision.stop ? " is" : " is not",
        " worse than the median ", median,
        at_step ? " of the values of " : " of the running averages of ", count,
        " completed trials ", at_step ? "at" : "up to", " step ", step);
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace hptune::algorithms
