// PED-ANOVA: how much each parameter mattered for reaching a study's best
// trials (Watanabe, Bansal and Hutter, "PED-ANOVA: Efficiently Quantifying
// Hyperparameter Importance in Arbitrary Subspaces", IJCAI 2023,
// arXiv:2304.10255), after Optuna's PedAnovaImportanceEvaluator (two
// deliberate differences, below: the floor on the top set and the
// categorical kernel), with bootstrap intervals (bootstrap.h).
//
// Declared in hptune/algorithms/importance.h, which `hptune studies
// importance`, the gRPC GetParameterImportance and the dashboard include.
// A pure function of its arguments; thread-safe.
//
// The method. Take the usable trials (below) and, among them, the top ones:
// those whose objective is at least as good as the k-th best, with
//   k = max(ceil(gamma' n), min(min_top_trials, ceil(n / 2)))
// (gamma' = top_quantile; ties at the cut-off are all kept). The floor is
// hptune's: with Optuna's (2), the top set of 30 trials is 3, and whether
// 3 random values of an irrelevant parameter happen to cluster outweighs
// the parameter that decides (benchmarks/RESULTS.md, "Importance on small
// studies"); a floor of 15 trials, capped at half of them, keeps its
// density estimate steady. From 150 trials on (gamma' = 10%) the floor no
// longer binds and the method is the paper's. Fewer than 2 min_top_trials
// trials are reported as too few to rank (ImportanceReport::note).
// For each parameter d build two 1-D densities on a grid
// of its values: p_top from the top trials and p_all from all the usable
// trials (the paper's gamma = 1, the "global" space). By the paper's
// Theorem 1, the variance over x_d of the marginal of the indicator
// b(x) = 1[x is in the top gamma'] is gamma'^2 times the Pearson divergence
//   D_d = sum_j p_all(j) (p_top(j) / p_all(j) - 1)^2
// over the grid points j; the importance is D_d normalised to sum to 1 over
// the parameters (the common factor gamma'^2 cancels). A parameter whose values
// are spread in the top trials as in all of them gets 0; one whose top trials
// crowd into a part of its range gets a large share.
//
// The densities (Optuna's choices, optuna/importance/_ped_anova/):
//  - Grid. A DOUBLE parameter is cut into grid_points points over its
//    unit-interval encoding (algorithms/encoding/unit_cube.h: log for
//    UNIT_LOG_SCALE, reverse log for UNIT_REVERSE_LOG_SCALE); a value counts
//    at its nearest point. An INTEGER or DISCRETE parameter with at most
//    grid_points values has one point per value; a log-scaled INTEGER has
//    ceil(log2(count)) + 1 points in log space, as Optuna's IntDistribution
//    with log=True; larger ones are cut like a DOUBLE. A CATEGORICAL one has
//    one point per category.
//  - Ordered grids (all but CATEGORICAL). A Parzen estimator over the grid
//    index: one Gaussian per occupied grid point, weighted by its count,
//    truncated to [-1/2, G - 1/2] and integrated over each point's cell, so
//    each kernel is a probability mass function on the G points. Bandwidth
//    by Scott's rule, sigma = 1.059 min(IQR / 1.34, std) n^(-1/5), at
//    least 0.5 / 1.64 (a grid cell holds 90% of the narrowest kernel), plus a
//    prior kernel of weight prior_weight at the middle with sigma = G.
//  - CATEGORICAL. TPE's categorical kernel: each trial's kernel puts 1 on
//    its category and prior_weight / (n + 1) on every category, n the
//    number of trials, normalised; the prior kernel is uniform. This is the
//    one place hptune departs from Optuna's PED-ANOVA, which divides by the
//    number of categories observed + 1 (its counts per grid point become
//    one kernel each): there a category all the top trials chose gets at
//    most (1 + prior_weight / 2) / (1 + c prior_weight / 2) of the density
//    (0.6 of c = 3 categories) however many trials there are, so a
//    categorical parameter that decides the result can rank below numeric
//    ones that matter less. Everything else equals Optuna's: on a study
//    without CATEGORICAL parameters, with min_top_trials = 2, the
//    importances agree to rounding (benchmarks/RESULTS.md, "Parameter
//    importance").
//  - Both densities get 1e-12 added at every point, so the ratio is finite.
//
// Conditional parameters (a space that is a tree). A trial has values for
// its active parameters only. The top set is chosen over all the usable
// trials, as above; a conditional parameter d's densities are built from the
// n_d of them where d is active (its top trials: those of the top set among
// them, a share gamma'_d of the n_d), and its D_d is weighed by
//   (n_d / n) (gamma'_d / gamma')^2,
// so that, as gamma'^2 D_d is for a parameter active everywhere, it is the
// variance over x_d of the marginal of b within d's branch, times the share
// of the trials in that branch (Theorem 1 within the local space where d is
// active; the weight is 1 for a parameter active in every trial, so a space
// without conditions is unaffected). A branch that fewer than 2 trials took,
// or none of the top trials, gives d importance 0. How much choosing a
// branch matters is the parent's importance.
//
// Every kernel sits on an integer grid point with one bandwidth, so a
// density is its grid counts convolved with one kernel: O(n) to count and
// O(G^2) to convolve, per parameter, independent of n.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_PED_ANOVA_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_PED_ANOVA_H_

// The functions' declarations are public: hptune/algorithms/importance.h.
#include "hptune/algorithms/importance.h"

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_PED_ANOVA_H_
