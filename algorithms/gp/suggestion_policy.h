// The GP designer's suggestion policy: where each suggestion of a Suggest
// call comes from, and how a suggestion is drawn from the model.
//
// Per suggestion, with `known` = observations + pending trials + the
// earlier suggestions of the call (PickSource):
//  1. A space with no parameters has one point ("quasi_random:
//     single_point_space").
//  2. Seeding: while known < InitialPoints(D, T) =
//       min(clamp(2 (D + 1), 4, 20), max(4, T / 4, min(10, T / 3)))
//     (D = number of features, T = the study's maxTrials: the usual
//     2 (D + 1) space-filling start, cut to a share of a small budget as
//     Optuna's fixed n_startup_trials and Vizier's single seed are; below
//     40 trials up to Optuna's 10 startup trials, a third of T at most),
//     points of a scrambled Halton sequence ("gp:seeding(i of n)"); the
//     study's seedingTrials, when given, in place of InitialPoints.
//  3. With no feasible observation yet, or all of them of one value (a
//     plateau: a decision tree scores the same wherever every split is
//     forbidden), the model has nothing to fit: quasi-random
//     ("quasi_random:no_feasible_results(...)", "quasi_random:plateau(n
//     results, all equal)").
//  4. Otherwise the model (SuggestFromModel), after OSS Vizier's GP-UCB-PE
//     (Contal et al., ECML 2013; Song et al., "The Vizier Gaussian Process
//     Bandit Algorithm", 2024) with log expected improvement in UCB's place
//     (acquisition.h): a suggestion maximises log EI ("gp-logei"), except
//     that the later members of a batch, and any suggestion with
//     probability kExplorationProbability, maximise pure exploration
//     ("gp-pe"). Log EI searches only near the best observations (the
//     model's anchors): its starts are perturbations of them, and neither
//     the starts nor L-BFGS leave the box of half-width
//       r = min(kLogEiRadius, kLogEiLengthscales (prod_i l_i)^(1/m))
//     around the anchor they came from (l_i the fitted lengthscales of the
//     m continuous features), the trust region of TuRBO (Eriksson et al.,
//     "Scalable Global Optimization via Local Bayesian Optimization",
//     NeurIPS 2019) without its adaptive size, exploration being pure
//     exploration's job here. Why: log EI alone, once the incumbent is
//     refined, spends its trials at the far edges of the space, where the
//     warped model's variance is largest, and rarely improves there; pure
//     exploration explores around the good region instead. Pure
//     exploration searches the whole space.
//     When the box holds only used points (a finite space), log EI searches
//     the whole space too. acquisition_optimizer.h does the maximisation.
//     A categorical value due a turn (category_turns.h) takes a call's
//     first suggestion instead: log EI on its branch, around that branch's
//     best observations ("gp-logei-category"), or, where the branch's trials
//     span little of the model's range, a sweep of one coordinate from the
//     branch's best ("gp-category-sweep").
//     A tied best (a single metric, no constraints): while at least
//     kTiedBestTrials feasible observations share the best value exactly,
//     each suggestion is quasi-random with probability kTiedBestExploration
//     instead ("quasi_random:tied_best(n trials share the best value)"). Real
//     models' metrics move in steps (an accuracy on 178 samples, a tree
//     that does not change), and once several trials hold the incumbent's
//     value the model sees a flat top: log EI keeps refining inside it
//     while a better step lies elsewhere, often in a region random search
//     hits every few draws (a 64-trial SVM run held one value from its
//     first trial to its last, which 99.6% of random 64-trial runs beat).
//     Random trials interleaved with the model's, as SMAC does at every step
//     (Hutter, Hoos & Leyton-Brown, "Sequential Model-Based Optimization for
//     General Algorithm Configuration", LION 2011), here only while the
//     model cannot tell the best points apart. Continuous objectives
//     (no ties) are not affected.
//  5. Fallbacks, never a failed call: when there is no model (its fit or
//     factorisation failed) the suggestion is quasi-random with the reason
//     in its origin ("quasi_random:gp_fit_failed(...)"); when the optimiser
//     finds only used points, quasi-random too
//     ("quasi_random:gp_found_only_used_points"); a finite space whose
//     every point is used is exhausted (fewer suggestions).
// The benchmarks behind the constants are in benchmarks/RESULTS.md ("GP
// designer: design history"). Used by GpDesigner. Pure functions;
// thread-compatible (a model is changed by SuggestFromModel).
#ifndef HPTUNE_ALGORITHMS_GP_SUGGESTION_POLICY_H_
#define HPTUNE_ALGORITHMS_GP_SUGGESTION_POLICY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/gp_features.h"

namespace hptune::algorithms::gp {

struct GpModel;                      // gp_model.h
struct AcquisitionOptimizerOptions;  // acquisition_optimizer.h

// Probability that a batch's first model suggestion explores (step 4).
inline constexpr double kExplorationProbability = 0.3;
// How far (unit-cube coordinates, per numeric feature) log EI's search may
// go from the best observation it starts at: the reach of the optimiser's
// largest local perturbation (step 4).
inline constexpr double kLogEiRadius = 0.2;
// Below that, the box's half-width in lengthscales (step 4).
inline constexpr double kLogEiLengthscales = 0.75;

// The acquisition optimiser's effort for `models` GPs of n points over d
// features: a candidate costs O(n^2) per model to score, so their number
// falls as n and the number of models grow.
AcquisitionOptimizerOptions OptimizerOptions(int n, int d, int models = 1);

// Seeding points for D features and a budget of `max_trials` (step 2).
inline constexpr int kMinInitialPoints = 4;
inline constexpr int kBudgetPerInitialPoint = 4;
// A small budget seeds up to Optuna's n_startup_trials, a third of it at most.
inline constexpr int kStartupPoints = 10;
inline constexpr int kBudgetPerStartupPoint = 3;
int InitialPoints(int dimension, int max_trials);
// The study's seeding_trials when set, else InitialPoints of its trial
// budget.
int SeedingTrials(int dimension, const DesignerOptions& options);

// A tied best (step 4): how many observations must share the best value,
// and the probability that a suggestion is then quasi-random.
inline constexpr int kTiedBestTrials = 3;
inline constexpr double kTiedBestExploration = 0.5;
// Whether a model suggestion is quasi-random instead when `tied_best`
// feasible observations share the best value; `draw` is uniform in [0, 1)
// (from the study's seed).
bool LeavesTiedBest(int tied_best, double draw);

// Half-width of log EI's box for packed hyperparameters `theta` (step 4):
// kLogEiRadius when there is no continuous feature (kinds as in
// FeatureEncoding::kinds()).
double LogEiRadius(std::span<const double> theta,
                   std::span<const FeatureKind> kinds);

enum class SuggestionSource {
  kSinglePoint,  // Step 1.
  kSeeding,      // Step 2.
  kNoFeasible,   // Step 3.
  kPlateau,      // Step 3.
  kModel,        // Step 4.
};

// Where a suggestion comes from when `known` trials are known (see above),
// `feasible` observations have a value (`values_differ`: not all the same
// one), the space has `dimension` features and the first `initial_points`
// trials seed.
SuggestionSource PickSource(int dimension, int initial_points, int known,
                            int feasible, bool values_differ);

// A quasi-random suggestion labelled with the given origin, or nullopt when
// the space is exhausted; it marks its point used.
using QuasiRandomSuggestion =
    std::function<std::optional<Suggestion>(const std::string& origin)>;

// Suggestion `index` (0 for the first) of the model suggestions of Suggest
// call `call` (1 for a designer's first), from `model` whose
// hyperparameters are `theta`, among points not in `used` (to which it is
// added); then believed in the model. Falls back to `quasi_random` when the
// optimiser finds only used points; nullopt when that finds none either.
std::optional<Suggestion> SuggestFromModel(
    GpModel& model, const FeatureEncoding& encoding,
    std::span<const double> theta, uint64_t seed, uint64_t call, int index,
    AssignmentSet& used, const QuasiRandomSuggestion& quasi_random);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_SUGGESTION_POLICY_H_
