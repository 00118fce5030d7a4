#include "algorithms/gp/hyperparameter_fit.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/lbfgs.h"
#include "algorithms/gp/normal_draw.h"

namespace hptune::algorithms::gp {

absl::StatusOr<HyperparameterFit> FitHyperparameters(
    const TrainingData& data, const HyperparameterPrior& prior,
    const HyperparameterFitOptions& options) {
  const size_t size = prior.mean.size();
  if (data.x.rows() == 0) {
    return absl::InvalidArgumentError("hyperparameter fit: no data");
  }
  if (!options.warm_start.empty() && options.warm_start.size() != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("hyperparameter fit: warm start has ",
                     options.warm_start.size(), " entries, expected ", size));
  }
  std::vector<std::vector<double>> starts;
  if (!options.warm_start.empty()) starts.push_back(options.warm_start);
  starts.push_back(prior.Mode());
  SplitMix64 rng(options.seed);
  for (int s = 0; s < options.random_starts; ++s) {
    std::vector<double> start(size);
    for (size_t k = 0; k < size; ++k) {
      start[k] = std::clamp(prior.mean[k] + std::sqrt(prior.variance[k]) *
                                                NextStandardNormal(rng),
                            prior.lower[k], prior.upper[k]);
    }
    starts.push_back(std::move(start));
  }

  auto cancelled = [&] {
    return options.cancelled != nullptr &&
           options.cancelled->load(std::memory_order_relaxed);
  };
  // L-BFGS minimises the negative log posterior. Once cancelled, a flat
  // objective ends each start at its next iteration.
  Objective objective = [&](std::span<const double> theta,
                            std::span<double> gradient) {
    if (cancelled()) {
      std::fill(gradient.begin(), gradient.end(), 0.0);
      return 0.0;
    }
    absl::StatusOr<double> value = LogPosterior(data, prior, theta, gradient);
    if (!value.ok()) return std::nan("");
    for (double& g : gradient) g = -g;
    return -*value;
  };
  LbfgsOptions lbfgs;
  lbfgs.max_evaluations = options.max_evaluations_per_start;
  lbfgs.relative_tolerance = 1e-7;

  HyperparameterFit best;
  bool found = false;
  absl::Status last_error = absl::OkStatus();
  for (const auto& start : starts) {
    if (cancelled()) break;
    absl::StatusOr<LbfgsResult> result =
        MinimizeLbfgs(objective, start, prior.lower, prior.upper, lbfgs);
    if (!result.ok()) {
      last_error = result.status();
      continue;
    }
    best.evaluations += result->evaluations;
    if (!found || -result->value > best.log_posterior) {
      found = true;
      best.theta = result->x;
      best.log_posterior = -result->value;
    }
  }
  if (cancelled()) return absl::CancelledError("hyperparameter fit cancelled");
  if (!found) {
    return absl::FailedPreconditionError(
        absl::StrCat("hyperparameter fit failed from all ", starts.size(),
                     " starts: ", last_error.message()));
  }
  return best;
}

}  // namespace hptune::algorithms::gp
