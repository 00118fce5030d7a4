// EnvelopeStoppingPolicy ("envelope"): stop a running trial when even an
// optimistic forecast of its final value, learned from the study's own
// curves, is worse than the best final value found so far. Used through the
// stopping registry (stopping_registry.h); docs/designers.md, "Early
// stopping", says when it helps.
//
// For an ACTIVE trial t whose latest report is value v at step s, with
// improvement measured in the goal's direction (for MINIMIZE, a fall):
//   G(s)  = max over ended curves c that went past s of
//           [ v_c(s) - v_c(end) ],  v_c(s) = c's value at its largest
//           step <= s and v_c(end) its value at its largest step: the most
//           any curve of this study improved after step s (stopped trials
//           count too: a late bloomer that was stopped at step 8 still shows
//           how steeply curves can fall between s and 8);
//   m     = t's own improvement per step over its latest k report
//           intervals, (v_{n-1-k} - v_{n-1}) / (s_{n-1} - s_{n-1-k});
//   R     = L - s, with L the longest ended curve;
//   bound = v - max(0, G(s), m * R),
// and t is stopped when `bound` is worse than B, the best final value of the
// ended trials. The bound carries the better of two optimistic forecasts: the
// best recovery this study has seen from step s on (an envelope of observed
// curves, in the spirit of Domhan et al., "Speeding up automatic
// hyperparameter optimization of deep neural networks by extrapolation of
// learning curves", IJCAI 2015, which stop when the forecast is unlikely to
// beat the best), and the trial's recent slope held to the end, which an
// improving curve that decelerates (convex for a loss) never exceeds
// (the bound behind Vertex's convexAutomatedStoppingSpec). A steep late
// bloomer keeps a large slope and survives; a plateau has slope near 0 and is
// judged by G alone; a diverging curve has a negative slope, and one that
// reports a NaN or an infinity is stopped at once (LearningCurve::diverged).
//
// Warm-up: no trial is judged before min_full_curves ended trials ran to the
// longest step (their curves are what G learns from), nor before it
// reported min_measurements values (its slope needs k intervals).
//
// Pure and stateless, like MedianStoppingPolicy. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_ENVELOPE_STOPPING_POLICY_H_
#define HPTUNE_ALGORITHMS_STOPPING_ENVELOPE_STOPPING_POLICY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

struct EnvelopeStoppingOptions {
  // Ended trials that reached the longest step, needed before judging.
  // In [1, 1000].
  int min_full_curves = 5;
  // Values a trial must have reported before it is judged; at least
  // slope_intervals + 1. In [2, 1000].
  int min_measurements = 3;
  // k: report intervals the trial's own slope is measured over.
  // In [1, 100].
  int slope_intervals = 2;
};

class EnvelopeStoppingPolicy : public CurveStoppingPolicy {
 public:
  // InvalidArgument naming the option and its value when one is out of range.
  static absl::StatusOr<std::unique_ptr<EnvelopeStoppingPolicy>> Create(
      EnvelopeStoppingOptions options);

  // InvalidArgument when the study has no metric tag. Reasons name the
  // numbers, e.g. "forecast 0.52 at step 24 (latest 0.61 improved by at most
  // 0.09: ...) is worse than the best completed final value 0.40".
  absl::StatusOr<std::vector<StoppingDecision>> DecideOnCurves(
      const Problem& problem, std::span<const TrialCurve> trials) override;

 private:
  explicit EnvelopeStoppingPolicy(EnvelopeStoppingOptions options)
      : options_(options) {}

  // The bound of the header for one trial past its warm-up.
  StoppingDecision Judge(const Problem& problem, const LearningCurve& curve,
                         std::span<const LearningCurve* const> ended,
                         int64_t longest) const;

  EnvelopeStoppingOptions options_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_ENVELOPE_STOPPING_POLICY_H_
