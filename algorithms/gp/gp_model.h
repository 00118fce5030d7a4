// The GP designer's model for one Suggest call, and the schedule of its
// hyperparameter fits across calls.
//
// Model: a GP with the Matérn-5/2 ARD kernel, constant mean and learned
// noise (gaussian_process.h) on the standardised targets of the model's
// observations (gp_history.h), with maximum a posteriori hyperparameters
// (hyperparameters.h, hyperparameter_fit.h). Besides the posterior it holds
// what the acquisitions need: the incumbent (the best posterior mean at an
// observed or believed point), the anchors (the kAnchors best feasible
// observations, where log EI searches) and pure exploration's threshold.
// Kriging believer (Ginsbourger, Le Riche & Carraro, "Kriging is
// well-suited to parallelize optimization", 2010): pending trials and the
// earlier suggestions of a batch are believed at their posterior mean
// (Believe): they lower the variance around them and can raise the
// incumbent, so parallel suggestions spread out.
// Fit schedule (NeedsRefit): a full fit (warm start from the saved
// hyperparameters plus one random start; three random starts the first
// time) runs when the number of observations has grown by kRefitGrowth (at
// least one) since the last fit, or shrunk; in between the saved
// hyperparameters are reused,
// which costs one Cholesky factorisation. A builder kept across calls (a
// designer object reused with a longer history) extends its last
// factorisation with the new rows (bordered_cholesky.h), which gives the
// same bits as factoring afresh. A study of several metrics has one builder
// and one set of hyperparameters per metric, on the same schedule.
// Used by GpDesigner. GpModel is a value type and GpModelBuilder holds the
// last factorisation; both thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_GP_MODEL_H_
#define HPTUNE_ALGORITHMS_GP_GP_MODEL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/category_turns.h"
#include "algorithms/gp/gaussian_process.h"
#include "algorithms/gp/gp_history.h"
#include "algorithms/gp/gp_state.h"
#include "algorithms/gp/hyperparameter_fit.h"
#include "algorithms/gp/hyperparameters.h"

namespace hptune::algorithms::gp {

// A full fit when the observations grew by this fraction (at least one).
inline constexpr double kRefitGrowth = 0.1;
// Best observations the acquisition optimiser searches around.
inline constexpr int kAnchors = 5;

struct GpModel {
  GaussianProcess gp;  // Observed rows, then believed (pending) ones.
  // Best posterior mean at an observed or believed point.
  double incumbent = 0;
  // Pure exploration's threshold, computed on first use.
  std::optional<double> exploration_threshold;
  // The best feasible observations, best first (at most kAnchors).
  std::vector<std::vector<double>> anchors;
  // The categorical value due a turn (category_turns.h), if any, and the
  // best feasible observations that hold it (at most kAnchors).
  std::optional<CategoryTurn> category_turn;
  std::vector<std::vector<double>> turn_anchors;
  // The best posterior mean at an observed point of that branch: a turn
  // seeks to improve the branch, not to beat the incumbent at once.
  double turn_incumbent = 0;
  // Whether the turn is a sweep: the space has a coordinate to sweep, and
  // the branch, seen narrowly, has an anchor (category_turns.h).
  bool turn_sweeps = false;

  // Conditions the variance on x, believed at its posterior mean.
  void Believe(std::span<const double> x);
  // The posterior mean at the observed point of highest
  // mu + kThresholdCoefficient sigma (acquisition.h).
  double ExplorationThreshold();
};

// Whether a model of `n` observations is due a full fit (above); the
// caller then sets state.fit_rows to n.
bool NeedsRefit(const GpState& state, uint64_t n);

// A full hyperparameter fit with its own copy of the data: what Build runs
// inline, or what a deferred refit runs later on another thread.
struct FitJob {
  TrainingData data;
  HyperparameterPrior prior;
  HyperparameterFitOptions options;
};

// The fitted hyperparameters; FailedPrecondition "gp_fit_failed(...)", or
// Cancelled when `cancelled` (may be null) became true first.
absl::StatusOr<std::vector<double>> RunFitJob(
    const FitJob& job, const std::atomic<bool>* cancelled = nullptr);

class GpModelBuilder {
 public:
  GpModelBuilder();
  ~GpModelBuilder();

  // The model of `targets` (one per observation of `history`, which has a
  // feasible one), with the pending points believed. Runs a full fit first
  // when `refit` or `theta` is empty, replacing `theta`; the fit's random
  // starts come from `fit_seed`. With `deferred` and a non-empty `theta`, a
  // due refit is not run but stored in *deferred, and the model uses
  // `theta`. FailedPrecondition "gp_fit_failed(...)" or
  // "gp_model_failed(...)" when there can be no model.
  absl::StatusOr<std::unique_ptr<GpModel>> Build(
      const GpHistory& history, const std::vector<double>& targets,
      const FeatureEncoding& encoding, uint64_t fit_seed, bool refit,
      std::vector<double>& theta, std::optional<FitJob>* deferred = nullptr);

  // Whether a Build since the last ClearFlags ran a full fit, and whether
  // it extended the previous factorisation instead of factoring afresh.
  void ClearFlags() { refitted_ = extended_ = false; }
  bool refitted() const { return refitted_; }
  bool extended() const { return extended_; }

 private:
  // The last model (observed rows only), extended when the next one has the
  // same hyperparameters and extends its rows.
  std::unique_ptr<GaussianProcess> last_model_;
  bool refitted_ = false;
  bool extended_ = false;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_MODEL_H_
