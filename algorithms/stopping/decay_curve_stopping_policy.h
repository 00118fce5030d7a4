// DecayCurveStoppingPolicy: the rule of Vertex AI's decayCurveStoppingSpec
// ("decay-curve"): forecast each running trial's final value from a decaying
// curve fitted to its measurements, and stop it when even an optimistic
// forecast is worse than the best final value of the completed trials.
//
// Vertex documents the rule as a regression that predicts a trial's final
// objective from its intermediate measurements, stopping the trial when it
// has a very low probability of beating the best value so far. hptune fits
// the power-law decay "pow3" of Domhan, Springenberg and Hutter ("Speeding
// up Automatic Hyperparameter Optimization of Deep Neural Networks by
// Extrapolation of Learning Curves", IJCAI 2015), by least squares with the
// exponent chosen from a grid:
//   y(s) = a + b * s^(-c),   c in {0.25, 0.5, 1, 2} (least SSE wins),
// over the trial's points (s_i, y_i) with s_i >= 1. With S the largest step
// of any completed curve (at least the trial's own), the forecast is
//   f = a + b * S^(-c)             when the fit improves with s,
//   f = the trial's latest value   when it is flat or worsening,
// and the optimistic forecast is f moved by optimism_sigmas residual
// standard deviations in the improving direction. The trial is stopped when
// that is worse than B, the best final value (the value at the largest step)
// of the SUCCEEDED trials. So a plateau below B stops, and so does an
// exploding loss (its latest value), while a curve still falling steeply
// enough to reach B is kept. A curve that reported a NaN or an infinity is
// stopped at once, without warm-up (LearningCurve::diverged).
//
// Warm-up: no trial is judged before min_completed_trials trials completed
// with a curve, before it reported min_measurements values, or before its
// latest step reaches min_step_fraction of the longest completed curve.
//
// Pure and stateless, like MedianStoppingPolicy. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_DECAY_CURVE_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_DECAY_CURVE_STOPPING_POLICY_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

struct DecayCurveOptions {
  // Completed trials with a curve needed before any trial is judged. >= 1.
  int min_completed_trials = 5;
  // Values a trial must have reported before it is judged. >= 3 (a fit of
  // two parameters and an exponent).
  int min_measurements = 3;
  // As MedianStoppingOptions::min_step_fraction. In [0, 1].
  double min_step_fraction = 0.25;
  // How many residual standard deviations the forecast is moved towards
  // better before it is compared. In [0, 10].
  double optimism_sigmas = 2;
};

class DecayCurveStoppingPolicy : public CurveStoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of range.
  static absl::StatusOr<std::unique_ptr<DecayCurveStoppingPolicy>> Create(
      DecayCurveOptions options);

  // InvalidArgument when the study has no metric tag.
  absl::StatusOr<std::vector<StoppingDecision>> DecideOnCurves(
      const Problem& problem, std::span<const TrialCurve> trials) override;

 private:
  explicit DecayCurveStoppingPolicy(DecayCurveOptions options)
      : options_(options) {}

  DecayCurveOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_DECAY_CURVE_STOPPING_POLICY_H_
