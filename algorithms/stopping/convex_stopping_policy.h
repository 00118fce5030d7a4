// ConvexStoppingPolicy: the rule of Vertex AI's convexAutomatedStoppingSpec
// ("convex"): stop a running trial when an overestimate of its value at the
// last step, from the slope of its curve, is worse than the best final value
// of the completed trials.
//
// Vertex documents the rule (ConvexAutomatedStoppingSpec) as: once enough
// trials completed, for each pending trial with enough measurements and
// steps, compute an overestimate of its objective at max_step_count from the
// slope of its curve (no prediction for a completely flat curve) and stop it
// when that is worse than the best objective of the completed trials. The
// bound rests on the curve being convex for a loss to minimise (concave for
// a metric to maximise), as the rule's name says: a convex curve lies above
// every line through two of its points beyond them, so that line's value at a
// later step overestimates what the trial can reach (Golovin et al., "Google
// Vizier", KDD 2017, section 3.2.1, stops by a regression of performance
// curves, of which this bound is the simplest; Vertex's reference:
// cloud.google.com/vertex-ai/docs/reference/
// rest/v1/StudySpec#convexautomatedstoppingspec). hptune implements:
//   window   = the latest max(2, n/2) of the trial's n points,
//   (a, m)   = least-squares line y = a + m s through the window (noise
//              makes a line through just two points unreliable),
//   S        = max_step_count, or the longest completed curve when 0,
//   bound    = a + m * S               when m improves,
//            = the trial's best value  when m worsens,
//   none     when the window is completely flat (kept, as Vertex says),
// and stops the trial when `bound` is worse than B, the best final value
// (the value at the largest step) of the SUCCEEDED trials. A curve that
// reported a NaN or an infinity is stopped at once (LearningCurve::diverged).
//
// Warm-up, Vertex's: no trial is judged before min_measurement_count + 1
// trials completed, before it reported min_measurement_count values, or
// while its latest step is not above min_step_count.
// Vertex's learningRateParameterName and updateAllStoppedTrials are not
// used: hptune neither models the learning rate nor rewrites stopped
// trials' final measurements.
//
// A study's settings block (`convexStopping:`,
// EarlyStoppingSettings::stopping_settings) names the options in Vertex's
// spelling; ConvexOptionsFromSettings reads it.
//
// Pure and stateless, like MedianStoppingPolicy. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_CONVEX_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_CONVEX_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/stopping_settings.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

inline constexpr int64_t kMaxStoppingStepCount = 1'000'000'000'000;
inline constexpr int kMinConvexMeasurements = 2;
inline constexpr int kMaxConvexMeasurements = 1000;

// Vertex's field names, in C++ spelling.
struct ConvexStoppingOptions {
  // The step a trial is forecast at; 0: the longest completed curve.
  // In [0, 1e12].
  int64_t max_step_count = 0;
  // A trial is judged once its latest step is above this. In [0, 1e12].
  int64_t min_step_count = 0;
  // Measurements a trial needs before it is judged, and one less than the
  // completed trials needed. In [2, 1000].
  int min_measurement_count = 5;
};

// The defaults with a study's settings (maxStepCount, minStepCount,
// minMeasurementCount) in their place; InvalidArgument "NAME: PROBLEM" for a
// value out of range or a name the rule lacks (settings_decoder.h).
absl::StatusOr<ConvexStoppingOptions> ConvexOptionsFromSettings(
    const StoppingSettings& settings);

class ConvexStoppingPolicy : public CurveStoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of range.
  static absl::StatusOr<std::unique_ptr<ConvexStoppingPolicy>> Create(
      ConvexStoppingOptions options);

  // InvalidArgument when the study has no metric tag.
  absl::StatusOr<std::vector<StoppingDecision>> DecideOnCurves(
      const Problem& problem, std::span<const TrialCurve> trials) override;

 private:
  explicit ConvexStoppingPolicy(ConvexStoppingOptions options)
      : options_(options) {}

  ConvexStoppingOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_CONVEX_STOPPING_POLICY_H_
