// GpDesigner: Gaussian-process Bayesian optimisation, hptune's default
// designer (ALGORITHM_UNSPECIFIED, as in AI Platform).
//
// Created by CreateDesigner; the engine builds one per SuggestTrials call,
// restores its state, calls Update(completed, pending) and Suggest(n). Each
// suggestion:
//  1. Data. A SUCCEEDED trial with a finite value of the study's metric in
//     its final measurement (an early-stopped trial's last one) is an
//     observation, oriented so that higher is better. INFEASIBLE and FAILED
//     trials, and SUCCEEDED ones that reported no value, are observations at
//     the worst warped value: the model learns to avoid their region.
//     CANCELLED trials (ended by a user, not by their parameters), trials
//     with a non-finite value and trials whose parameters do not fit the
//     space are skipped, each with a reason (skipped_reasons()). Pending
//     trials condition the variance (kriging believer). Every trial's
//     parameters, whatever its state, are never suggested again.
//  2. Seeding. Until observations plus pending trials reach
//     InitialPoints(D) = clamp(2 (D + 1), 4, 20) (D = number of features,
//     the usual 2 (D + 1) space-filling start), points come from a scrambled
//     Halton sequence ("gp:seeding(i of n initial points)"). With no usable
//     value yet the designer stays quasi-random
//     ("quasi_random:no_feasible_results(...)").
//  3. Model. Targets are warped and standardised (gp/output_warping.h); a
//     GP with the Matérn-5/2 ARD kernel, constant mean and learned noise
//     (gp/gaussian_process.h) has MAP hyperparameters (gp/hyperparameters.h,
//     gp/hyperparameter_fit.h). A full fit (warm start from the saved
//     hyperparameters plus a restart) runs when the number of observations
//     has grown by 10% (at least 1) since the last one; in between the saved
//     hyperparameters are reused, which costs one Cholesky factorisation.
//  4. Acquisition, after OSS Vizier's GP-UCB-PE with log expected
//     improvement in UCB's place (gp/acquisition.h): a suggestion maximises
//     log EI ("gp-logei"), except that the later members of a batch, and
//     any suggestion with probability kExplorationProbability, maximise pure
//     exploration ("gp-pe"): the posterior deviation inside the region whose
//     optimistic value can still reach the best. EI alone, once it has
//     refined the incumbent, spends its exploration where the variance is
//     largest, i.e. on far corners of the box; PE explores around the good
//     region instead (quality suite, 20 seeds, 100 trials: Levy-4 median
//     regret 0.09 with Vizier's 10% of PE, 0.02-0.03 with 30%; Ackley-5
//     2.2 and 1.7). Pending trials and earlier members of the batch are
//     believed at their posterior mean (kriging believer: they lower the
//     variance around them and can raise the incumbent), so parallel
//     suggestions spread out. gp/acquisition_optimizer.h does the
//     maximisation. Log EI searches only near the best observations:
//     its starts are perturbations of them, and neither the starts nor
//     L-BFGS leave the box of half-width kLogEiRadius around the
//     observation they came from (the whole space is searched only when
//     every point found there is used, as happens in finite spaces). Pure
//     exploration also starts from quasi-random points over the whole
//     space. Without the box, log EI spent about half of its trials at the
//     far edges of the space, where the warped model's variance is
//     largest, once it had refined the incumbent; such trials almost never
//     improved the best (quality suite, 40 seeds, trials after the best
//     was within the global basin), while refinement near the incumbent,
//     where the warping leaves little improvement to expect, stalled.
//     With it (benchmarks/RESULTS.md, 40 seeds, 100 trials, paired mean
//     change of log10 regret) sequential Branin -0.8, Levy-4 -1.1,
//     Rosenbrock-4 -0.13, Ackley-5 -0.23, mixed -0.35; with 4 parallel
//     trials Branin -0.9, Levy-4 -0.8, Rosenbrock-4 -0.23. A radius of 0.1
//     refined faster sequentially but, with trials pending, left Levy-4 in
//     local minima (-0.15); 0.3 gained less everywhere (Levy-4 in parallel
//     -0.35). This is the trust region of TuRBO (Eriksson et al., "Scalable
//     Global Optimization via Local Bayesian Optimization", NeurIPS 2019)
//     without its adaptive size, exploration being pure exploration's job
//     here. Like TuRBO's, the box is sized by the fitted lengthscales:
//     once their geometric mean over the continuous features falls below
//     0.27, the half-width is kLogEiLengthscales of it (LogEiRadius). The
//     model says little about what lies a lengthscale beyond the best
//     points, and there log EI's largest values are mostly its variance:
//     believed pending trials pushed it out to Ackley-5's neighbouring
//     cells, and a dense cluster leaves it the gaps beside the cluster.
//     Sized so, it refines faster in both modes (benchmarks/RESULTS.md,
//     40 seeds, 100 trials, sequential / parallel4: Branin -0.92 / -0.80,
//     Goldstein-Price -1.17 in parallel, six-hump camel -1.20 in parallel,
//     mixed -0.17 / -0.40; no function worse beyond noise, held-out ones
//     included). Half a lengthscale refined faster still but left more
//     Shekel runs outside its global basin (10 of 40 sequential runs found
//     it, against 19 with the fixed box and 15 with 0.75).
//  5. Fallbacks, never a failed call: when the fit or the factorisation
//     fails the suggestion is quasi-random with the reason in its origin
//     ("quasi_random:gp_fit_failed(...)", "quasi_random:gp_model_failed
//     (...)"); when the optimiser finds only used points, quasi-random too;
//     a finite space whose every point is used is exhausted (fewer
//     suggestions).
// Cost control: the model uses at most kMaxModelPoints observations: beyond
// that, the best quarter (by warped value), the most recent quarter and an
// evenly spaced subsample of the rest, so a suggestion's cost stops growing
// (O(kMaxModelPoints^3) per fit, O(kMaxModelPoints^2) per acquisition
// evaluation) and memory is O(n D + kMaxModelPoints^2). The acquisition
// optimiser's candidate count shrinks as the model grows.
// Determinism: suggestions are a function of (seed, history, state). A
// designer object reused across calls (Update with a longer history) keeps
// its last factorisation and extends it with the new rows
// (gp/bordered_cholesky.h), which gives the same bits as a fresh designer
// restored from the saved state.
// State: gp/gp_state.h. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_
#define HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/gp_state.h"
#include "algorithms/quasi_random/halton.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::algorithms::gp {

class GaussianProcess;

// The most observations the model is fitted to (see the header).
inline constexpr int kMaxModelPoints = 300;
// Probability that a suggestion explores (step 4 of the header).
inline constexpr double kExplorationProbability = 0.3;
// How far (unit-cube coordinates, per numeric feature) log EI's search may
// go from the best observation it starts at: the reach of the optimiser's
// largest local perturbation (step 4 of the header).
inline constexpr double kLogEiRadius = 0.2;
// Below that, the box's half-width in lengthscales (step 4 of the header).
inline constexpr double kLogEiLengthscales = 0.75;

// Half-width of log EI's box for packed hyperparameters `theta`:
// min(kLogEiRadius, kLogEiLengthscales * (prod_i l_i)^(1/m)), the
// geometric mean over the m continuous features (kinds as in
// FeatureEncoding::kinds()); kLogEiRadius when there are none.
double LogEiRadius(std::span<const double> theta,
                   std::span<const FeatureKind> kinds);

// Seeding points for D features.
int InitialPoints(int dimension);

class GpDesigner : public Designer {
 public:
  // InvalidArgument when the space fails ValidateForEncoding or has more
  // than ScrambledHalton::kMaxDimension parameters.
  static absl::StatusOr<std::unique_ptr<GpDesigner>> Create(
      const StudySpec& spec, uint64_t seed);
  ~GpDesigner() override;

  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) override;
  // InvalidArgument for a negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  std::string SaveState() const override;
  absl::Status RestoreState(std::string_view state) override;

  // Why trials of the last Update were left out of the model, one line
  // each ("trial 7: CANCELLED", ...).
  const std::vector<std::string>& skipped_reasons() const { return skipped_; }
  // The hyperparameters of the last model (empty before the first fit).
  const std::vector<double>& theta() const { return state_.theta; }
  // Whether the last Suggest ran a full hyperparameter fit.
  bool last_suggest_refitted() const { return refitted_; }
  // Whether the last Suggest extended the previous call's factorisation
  // instead of factoring afresh (only a reused object can).
  bool last_model_extended() const { return extended_; }

 private:
  // One completed trial as model data, in completion order.
  struct Row {
    std::vector<double> x;
    double value = 0;  // Higher is better; meaningless when !feasible.
    bool feasible = true;
  };
  // The model of one Suggest call and what its acquisitions need.
  struct Model;

  GpDesigner(StudySpec spec, uint64_t seed, FeatureEncoding encoding,
             ScrambledHalton halton, std::optional<FiniteGrid> grid);

  // A quasi-random suggestion labelled `origin`, or nullopt when the space
  // is exhausted.
  std::optional<Suggestion> QuasiRandom(const std::string& origin,
                                        AssignmentSet& used);
  // Suggestion `index` of this call from the model; falls back to
  // quasi-random when the optimiser finds only used points.
  std::optional<Suggestion> FromModel(Model& model, int index,
                                      AssignmentSet& used);
  // The model for the current data; an error (its message the origin's
  // reason) says why there is none.
  absl::StatusOr<std::unique_ptr<Model>> BuildModel();
  // Every row's standardised target (step 3 of the header).
  std::vector<double> Targets() const;
  // Indices of rows_ the model uses (all of them up to kMaxModelPoints).
  std::vector<int> ModelRows(const std::vector<double>& targets) const;

  StudySpec spec_;
  uint64_t seed_;
  FeatureEncoding encoding_;
  ScrambledHalton halton_;
  std::optional<FiniteGrid> grid_;
  GpState state_;

  std::vector<Row> rows_;
  std::vector<std::vector<double>> pending_;
  AssignmentSet used_;
  std::vector<std::string> skipped_;
  bool refitted_ = false;
  bool extended_ = false;
  // The last model (observed rows only), reused when the next one has the
  // same hyperparameters and extends its rows.
  std::unique_ptr<GaussianProcess> last_model_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_DESIGNER_H_
