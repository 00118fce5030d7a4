// Maximum a posteriori hyperparameters for the GP designer's model: the
// packed theta of gp/hyperparameters.h that maximises LogPosterior
// (gp/marginal_likelihood.h), by L-BFGS with analytic gradients from several
// starts, keeping the best.
//
// Starts, in order: the warm start (the last fit, carried in the designer's
// state) when given, the prior's mode, then `random_starts` draws from the
// prior (clamped to its box), from a SplitMix64 stream of `seed`. A start
// whose objective cannot be evaluated is skipped; the fit fails only when
// every start does. Deterministic for its inputs. Stateless; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_HYPERPARAMETER_FIT_H_
#define HPTUNE_ALGORITHMS_GP_HYPERPARAMETER_FIT_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "algorithms/gp/hyperparameters.h"
#include "algorithms/gp/marginal_likelihood.h"

namespace hptune::algorithms::gp {

struct HyperparameterFitOptions {
  std::vector<double> warm_start;  // Empty, or PackedSize(D) entries.
  int random_starts = 2;
  int max_evaluations_per_start = 100;
  uint64_t seed = 0;
  // When set and it becomes true, the fit stops within an evaluation and
  // answers Cancelled (a background fit at shutdown).
  const std::atomic<bool>* cancelled = nullptr;
};

struct HyperparameterFit {
  std::vector<double> theta;
  double log_posterior = 0;
  int evaluations = 0;  // Objective evaluations over all starts.
};

// InvalidArgument for no data or a warm start of the wrong size;
// FailedPrecondition (with the last start's error) when no start could be
// evaluated.
absl::StatusOr<HyperparameterFit> FitHyperparameters(
    const TrainingData& data, const HyperparameterPrior& prior,
    const HyperparameterFitOptions& options);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_HYPERPARAMETER_FIT_H_
