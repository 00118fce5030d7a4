// GpDesigner: Gaussian-process Bayesian optimisation, hptune's default
// designer (ALGORITHM_UNSPECIFIED, as in AI Platform).
//
// Each suggestion maximises an acquisition function of a GP posterior over
// the study's results (Snoek, Larochelle & Adams, "Practical Bayesian
// Optimization of Machine Learning Algorithms", NeurIPS 2012), in three
// parts:
//   gp_history.h         trials to observations (higher is better; failed
//                        trials at the worst value) and standardised,
//                        warped targets, at most kMaxModelPoints of them;
//   gp_model.h           the GP (Matérn-5/2 ARD kernel, MAP
//                        hyperparameters refitted as the data grow) with
//                        pending trials believed at their posterior mean;
//   suggestion_policy.h  Halton seeding for the first InitialPoints(D, T)
//                        trials, then log expected improvement near the
//                        best observations or, for later members of a batch
//                        and 30% of the rest, pure exploration (GP-UCB-PE).
// For a maximised target with posterior mean mu and deviation sigma at x,
// incumbent best:
//   mu(x) = m + k^T A^-1 (y - m),  sigma^2(x) = s2 - k^T A^-1 k
//     (Rasmussen & Williams 2006, eqs. 2.25-2.26; gaussian_process.h);
//   logEI(x) = log sigma + log h((mu - best) / sigma),
//     h(z) = phi(z) + z Phi(z)  (Ament et al., NeurIPS 2023; acquisition.h);
//   PE(x) = sigma - c max(0, threshold - (mu + kappa sigma))
//     (Contal et al., ECML 2013, as in OSS Vizier; acquisition.h).
// The measurements behind the constants are in benchmarks/RESULTS.md, "GP
// designer: design history".
// Conditional spaces (search_space.h): inactive parameters are imputed
// with constants in the features (encoding/gp_features.h, after Levesque et
// al., IJCNN 2017), the acquisition is maximised over active subspaces
// (acquisition_optimizer.h), and every suggestion holds exactly the active
// parameters of its point.
// Several metrics (objectives and constraints; study.h) have one GP each
// and the acquisitions of multi_metric_acquisition.h: constrained log EI
// for one objective, random hypervolume scalarisations of UCB for several
// (multi_metric_policy.h).
//
// Created by the designer registry; the engine builds one per SuggestTrials
// call, restores its state (gp_state.h), calls Update(completed, pending)
// and Suggest(n); the quality harness and gp_benchmark drive it the same
// way. Suggestions are a function of (seed, history, state): an object
// reused across calls (Update with a longer history) extends its last
// factorisation and gives the same bits as a fresh designer restored from
// the saved state. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_
#define HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/gp_history.h"
#include "algorithms/gp/gp_state.h"
#include "algorithms/gp/suggestion_policy.h"
#include "algorithms/quasi_random/halton.h"

namespace hptune::algorithms::gp {

class GpModelBuilder;  // gp_model.h
struct GpModel;        // gp_model.h
struct FitJob;         // gp_model.h

class GpDesigner : public Designer {
 public:
  // InvalidArgument when the space fails ValidateForEncoding or has more
  // than ScrambledHalton::kMaxDimension parameters.
  static absl::StatusOr<std::unique_ptr<GpDesigner>> Create(
      const Problem& problem, const DesignerOptions& options, uint64_t seed);
  ~GpDesigner() override;

  [[nodiscard]] absl::Status Update(const std::vector<Trial>& completed,
                                    const std::vector<Trial>& active) override;
  // InvalidArgument for a negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  std::string SaveState() const override;
  [[nodiscard]] absl::Status RestoreState(std::string_view state) override;
  // Deferred refits (designer.h): a due hyperparameter refit of a model
  // that has hyperparameters already is handed over as deferred work (a
  // GpFit, gp_state.h) and the suggestion uses the saved ones. The first
  // fit, on SeedingTrials(D, options) observations, stays inline.
  void DeferWork() override { defer_ = true; }
  std::optional<DeferredWork> TakeDeferredWork() override;
  // Keeps the fit's hyperparameters when it saw more observations than the
  // restored state's fit; call after RestoreState.
  [[nodiscard]] absl::Status AcceptDeferredResult(
      std::string_view result) override;

  // Why trials of the last Update were left out of the model, one line
  // each ("trial 7: CANCELLED", ...).
  const std::vector<std::string>& skipped_reasons() const {
    return history_.skipped;
  }
  // The hyperparameters of the last model (empty before the first fit).
  const std::vector<double>& theta() const { return state_.theta; }
  // Whether the last Suggest ran a full hyperparameter fit.
  bool last_suggest_refitted() const;
  // Whether the last Suggest extended the previous call's factorisation
  // instead of factoring afresh (only a reused object can).
  bool last_model_extended() const;

 private:
  GpDesigner(Problem problem, DesignerOptions options, uint64_t seed,
             FeatureEncoding encoding, ScrambledHalton halton,
             std::optional<FiniteGrid> grid);

  // A quasi-random suggestion labelled `origin`, or nullopt when the space
  // is exhausted.
  std::optional<Suggestion> QuasiRandom(const std::string& origin,
                                        AssignmentSet& used);
  // The model of a one-metric study, or why there is none.
  absl::StatusOr<std::unique_ptr<GpModel>> BuildModel();

  Problem problem_;
  DesignerOptions options_;
  uint64_t seed_;
  FeatureEncoding encoding_;
  ScrambledHalton halton_;
  std::optional<FiniteGrid> grid_;
  GpState state_;
  GpHistory history_;
  // One per model column (gp_history.h); [0] alone for one metric.
  std::vector<std::unique_ptr<GpModelBuilder>> builders_;
  bool defer_ = false;
  // The last Suggest's deferred fits, per model column, and their rows.
  std::vector<std::optional<FitJob>> deferred_;
  uint64_t deferred_rows_ = 0;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_
