// The multi-fidelity designer's model of learning curves: one Gaussian
// process over (configuration, training step), fitted to each trial's last
// report at its step, which forecasts the final value of each trial its
// stopping rule stopped.
//
// Why: a stopped trial's last value is a value at an early step, and a GP
// over configurations alone reads it as a final one. A model over
// configuration and step learns from the trials that ran on how values at
// one step relate to those at the last, and near which configurations, so
// a stopped trial is read at the value it would likely have reached
// (Swersky, Snoek & Adams, "Freeze-Thaw Bayesian Optimization", 2014, and
// Kandasamy et al., "Multi-fidelity Bayesian Optimisation with Continuous
// Approximations", ICML 2017, model the same joint space).
//
// Model. Features: the configuration's GP features (gp_features.h) and
//   z(s) = log(s) / log(L),  s >= 1 the step of the trial's final
//   measurement, L the largest such step of a SUCCEEDED trial,
// so z = 1 at the end of training, and the log spacing follows curves'
// fast early change. Observations: each SUCCEEDED trial's final measurement
// (a stopped trial's last report) of the first objective, at its z: a
// designer reads trial summaries, without their intermediate reports
// (store.h, ListTrialSummaries), so a stopped trial is one point at z < 1
// and a finished one a point at z = 1. The GP is the designer's own
// (Matérn-5/2 ARD kernel, constant mean, learned noise, MAP
// hyperparameters; gp_model.h) on the warped, standardised values
// (output_warping.h).
// Forecast of a trial stopped early at a step s < L: the posterior mean at
// its configuration and z = 1, mapped back to the metric's units through
// the observed (target, value) pairs (piecewise linear, so never beyond the
// values observed).
//
// Used by MultiFidelityDesigner. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_CURVE_MODEL_H_
#define HPTUNE_ALGORITHMS_GP_CURVE_MODEL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "algorithms/gp/gp_model.h"
#include "algorithms/gp/gp_state.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms::gp {

// The most trials that ran to L whose curves the model reads (the latest).
inline constexpr int kCurveModelTrials = 50;

// `completed` with the final measurement of each SUCCEEDED trial stopped
// early (Trial::stopped_early) before L replaced by its forecast (above),
// at that step; the trial is otherwise unchanged. `completed` as it is when
// no trial was stopped early, when the study has more than one metric, or
// when fewer than 2 trials reached that step.
// `fit` carries the model's hyperparameters from one call to the next
// (fit.theta, fit.fit_rows; its other fields unused): a full fit runs on the
// GP's schedule (gp_model.h, NeedsRefit), its random starts seeded by
// `seed`, else the saved ones are used. With `deferred` and a saved fit, a
// due refit is not run but stored in *deferred (designer.h, "Deferred
// work"), and the saved hyperparameters are used. FailedPrecondition when
// the model cannot be fitted.
struct CurveRefit {
  FitJob job;
  uint64_t rows = 0;  // The fit_rows it is for.
};
absl::StatusOr<std::vector<Trial>> ForecastStoppedTrials(
    const Problem& problem, const std::vector<Trial>& completed, uint64_t seed,
    GpState& fit, std::optional<CurveRefit>* deferred = nullptr);

// The number of hyperparameters of the model's fit for `problem`
// (ParseGpState's packed_size); InvalidArgument as FeatureEncoding::Create.
absl::StatusOr<int> CurveModelPackedSize(const Problem& problem);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_CURVE_MODEL_H_
