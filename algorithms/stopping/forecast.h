// What the forecasting stopping rules (decay_curve_stopping_policy.h,
// convex_stopping_policy.h) share: the bar a trial's forecast must reach,
// the step it is forecast at, and least-squares line fits. Pure functions;
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_FORECAST_H_
#define HPTUNE_ALGORITHMS_STOPPING_FORECAST_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hptune/algorithms/learning_curve.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

// The best final value of `completed`: each curve's value at its largest
// step, the best of those for `goal`. nullopt when `completed` is empty.
std::optional<double> BestFinalValue(
    Goal goal, std::span<const LearningCurve* const> completed);

// The largest step of `completed`'s curves: where a running trial is
// forecast when no final step is configured.
int64_t LongestCurve(std::span<const LearningCurve* const> completed);

// y = intercept + slope * x by least squares, with the residuals' standard
// deviation (sqrt(SSE / n)). Needs two distinct x; nullopt otherwise.
struct LineFit {
  double intercept = 0;
  double slope = 0;
  double residual_sd = 0;
  double sse = 0;
};
std::optional<LineFit> FitLine(std::span<const double> x,
                               std::span<const double> y);

// Whether a change of `delta` in the metric is an improvement for `goal`.
inline bool Improves(Goal goal, double delta) {
  return goal == Goal::kMaximize ? delta > 0 : delta < 0;
}

// A study's curves split by state: SUCCEEDED ones with a value, and ACTIVE
// ones in trial order.
struct SplitCurves {
  std::vector<const LearningCurve*> completed;
  std::vector<const LearningCurve*> active;
};
SplitCurves Split(std::span<const TrialCurve> trials);

// A forecasting rule's judgement of one ACTIVE trial: stop a diverged curve
// at once; keep one with fewer than `min_measurements` values or before
// `first_step`; otherwise nullopt (judge it). `reason` says why.
struct Prejudged {
  bool stop = false;
  std::string reason;
};
std::optional<Prejudged> Prejudge(const LearningCurve& curve,
                                  const std::string& metric,
                                  int min_measurements, int64_t first_step);

// The reason of a judged trial: "forecast 0.61 at step 1000 (how) is worse
// than the best completed final value 0.83".
std::string ForecastReason(bool stop, double forecast, int64_t step,
                           const std::string& how, double best);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_FORECAST_H_
