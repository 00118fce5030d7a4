// MedianStoppingPolicy: the median stopping rule of Google Vizier (Golovin et
// al., "Google Vizier: A Service for Black-Box Optimization", KDD 2017,
// section 3.2.2), as Vertex AI Vizier and Katib's medianstop apply it.
//
// Reference population: the SUCCEEDED trials (stopped-early ones included)
// with at least one finite value of the study's metric. Each ACTIVE trial t
// with such a value is judged at its latest step s (the largest step it
// reported) against the running averages of the reference trials up to s:
//   avg_c(s) = mean { y_c,i : step_i <= s }   over completed trial c,
//   best_t   = max (MAXIMIZE) or min (MINIMIZE) of t's values so far,
// and t is stopped when best_t is strictly worse than median_c avg_c(s).
// The space is the metric's raw values. Vizier writes the average as
// (1/s) sum_{i<=s} y_i, one report per step; with arbitrary report schedules
// it is the mean of the reports at steps <= s. As in Vizier, every completed
// trial counts, also one that ended before s (its whole curve is then
// averaged): keeping only trials that reached s (as Ray Tune does) would
// raise the bar as stopped trials drop out of the population. A completed
// trial with no report at or before s is left out.
//
// A trial is kept, without being judged, until (options below):
//  - at least min_completed_trials reference trials have a value at or
//    before s;
//  - it reported at least min_measurements values;
//  - s >= min_step_fraction * L, with L the largest step any reference trial
//    reported, and s >= 1: step 0 carries no progress (cloudml-hypertune
//    writes global_step "0" when the program gives none), so curves without
//    steps are never compared;
//  - s >= warmup_steps (Optuna MedianPruner's n_warmup_steps: a fixed step
//    for curves whose early values mislead, whatever the longest curve).
// Only intermediate measurements form a curve; the final measurement of a
// completed trial is not added to it.
//
// With reference = kValueAtStep the median is of the reference trials'
// values at step s (each one's value at the largest step <= s) instead of
// their running averages, among the reference trials that reached s (a trial
// stopped before s has no value there): Optuna's MedianPruner (Akiba et al.,
// "Optuna: A Next-generation Hyperparameter Optimization Framework", KDD
// 2019). A
// running average carries a curve's early values, which for a decaying loss
// sit far above its later ones, so Vizier's rule stops a trial only when it
// is much worse than the others; the value at the step compares like with
// like and stops more, at the risk of stopping a slow starter.
//
// Pure and stateless: Decide depends only on its arguments, so the engine
// may create a policy per call. Not thread-safe (no shared state, but the
// interface makes no promise).
#ifndef HPTUNE_ALGORITHMS_STOPPING_MEDIAN_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_MEDIAN_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/stopping_settings.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

inline constexpr int64_t kMaxMedianWarmupSteps = 1'000'000'000'000;

struct MedianStoppingOptions {
  enum class Reference {
    kRunningAverage,  // Vizier: the mean of a curve's values up to s.
    kValueAtStep,     // Optuna's MedianPruner: a curve's value at s.
  };
  Reference reference = Reference::kRunningAverage;
  // Completed trials with a value at or before the judged step needed before
  // any trial is stopped (Optuna's MedianPruner also waits for 5). >= 1.
  int min_completed_trials = 5;
  // A trial is judged only once its latest step reaches this fraction of the
  // longest completed curve: early values say little about the end of a
  // curve. In [0, 1].
  double min_step_fraction = 0.25;
  // Values of the metric a trial must have reported before it is judged.
  // >= 1; the default leaves the decision to min_step_fraction.
  int min_measurements = 1;
  // The step a trial's latest step must reach before it is judged; the
  // study's `warmupSteps`. In [0, kMaxMedianWarmupSteps]; 0: none.
  int64_t warmup_steps = 0;
};

// The options of the median rule by `reference` with a study's settings
// block (EarlyStoppingSettings::stopping_settings) in their place: what the
// registry's "median" and "median-at-step" factories create. Settings:
// warmupSteps (warmup_steps). InvalidArgument "NAME: PROBLEM" for a bad value
// or a name the rule lacks (settings_decoder.h).
absl::StatusOr<MedianStoppingOptions> MedianOptionsFromSettings(
    MedianStoppingOptions::Reference reference,
    const StoppingSettings& settings);

class MedianStoppingPolicy : public CurveStoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of range.
  static absl::StatusOr<std::unique_ptr<MedianStoppingPolicy>> Create(
      MedianStoppingOptions options);

  // InvalidArgument when the study has no metric tag. Reasons name the
  // numbers, e.g. "best 0.41 by step 300 is worse than the median 0.62 of
  // the running averages of 5 completed trials up to step 300".
  absl::StatusOr<std::vector<StoppingDecision>> DecideOnCurves(
      const Problem& problem, std::span<const TrialCurve> trials) override;

  const MedianStoppingOptions& options() const { return options_; }

 private:
  explicit MedianStoppingPolicy(MedianStoppingOptions options)
      : options_(options) {}

  MedianStoppingOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_MEDIAN_STOPPING_POLICY_H_
