// Parameter importance: how much each parameter of a study mattered for
// reaching its best trials, by PED-ANOVA (Watanabe, Bansal and Hutter,
// IJCAI 2023) with a floor on the top set so that it holds on small
// studies, and a bootstrap interval on every importance. The method, its
// densities and conditional parameters are described where it is
// implemented, algorithms/importance/ped_anova.h; the interval in
// algorithms/importance/bootstrap.h.
//
// The public door to it for every frontend (`hptune studies importance`,
// the gRPC GetParameterImportance, the dashboard) and for embedders. Pure
// functions of their arguments; thread-safe.
#ifndef HPTUNE_ALGORITHMS_IMPORTANCE_H_
#define HPTUNE_ALGORITHMS_IMPORTANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

struct ParameterImportance {
  std::string parameter;
  double importance = 0;  // >= 0; the list sums to 1 (all 0 when nothing can
                          // be said)
  // Of the usable trials, those where the parameter is active: all of them
  // for a parameter without a condition.
  int64_t active_trials = 0;
  // The bootstrap interval (ImportanceOptions::bootstrap_resamples): the
  // 5th and 95th percentiles of the importance over resampled trials,
  // widened where needed to hold `importance`. Both equal `importance`
  // when there are no resamples or fewer than 2 usable trials.
  double lower = 0;
  double upper = 0;
};

struct ImportanceOptions {
  // gamma': the importance is of reaching this best fraction of the trials.
  double top_quantile = 0.1;
  // Grid points of a continuous parameter (Optuna's n_steps).
  int grid_points = 50;
  // Weight of the prior kernel in each density, against one per trial.
  double prior_weight = 1.0;
  // The top set holds at least min(min_top_trials, ceil(n / 2)) of the n
  // usable trials. 15, not Optuna's 2 (min_n_top_trials): a top set of 2 or
  // 3 trials lets the chance clustering of an irrelevant parameter outrank
  // the one that decides (benchmarks/RESULTS.md, "Importance on small
  // studies"). Ranking needs 2 * min_top_trials trials (trials_needed).
  int min_top_trials = 15;
  // Bootstrap resamples for the intervals; 0: none (lower = upper =
  // importance). At most kMaxBootstrapResamples. Above 10,000 trials a
  // study gets fewer, at least 25 (2,000,000 trial draws in all; the
  // report says how many).
  int bootstrap_resamples = 200;
  // Seed of the resampling: the same trials give the same intervals.
  uint64_t bootstrap_seed = 1;
};

inline constexpr int kMaxBootstrapResamples = 10'000;

// Importance of each parameter of problem.search_space for
// problem.metric_tag() and problem.goal(), from the trials that have a final
// objective (Trial::FinalObjective(problem.metric_tag()); SUCCEEDED trials,
// and trials stopped early that have a final measurement). Trials with a
// non-finite objective or with parameters that do not fit the space
// (outside it, missing an active one, or with one the trial's values leave
// inactive) are left out too. Most important first (ties by parameter order
// in the space). Fewer than 2 usable trials: every parameter with importance 0.
// InvalidArgument, naming the field and value, for a bad option (e.g.
// top_quantile outside (0, 1]) or a search space that cannot be encoded.
absl::StatusOr<std::vector<ParameterImportance>> PedAnovaImportance(
    const Problem& problem, const std::vector<Trial>& trials,
    const ImportanceOptions& options = {});

// The same, with how many trials it rests on, for callers that show it.
struct ImportanceReport {
  std::vector<ParameterImportance> importances;
  int64_t trials = 0;      // usable trials (above)
  int64_t top_trials = 0;  // of them, the top ones (0 when trials < 2)
  // Usable trials needed to rank the parameters: 2 * min_top_trials, so
  // that the top set is at most half of them.
  int64_t trials_needed = 0;
  int bootstrap_resamples = 0;  // how many the intervals rest on
  // "" when trials >= trials_needed; else a sentence for people that says
  // how many trials there are and how many are needed.
  std::string note;
};
absl::StatusOr<ImportanceReport> PedAnovaImportanceReport(
    const Problem& problem, const std::vector<Trial>& trials,
    const ImportanceOptions& options = {});

// The report every frontend shows for a stored study (TuningEngine::
// ParameterImportance, the CLI on a database file, the dashboard), with
// errors mapped one way: each names the study, and an InvalidArgument
// becomes Internal, since a stored study's space always encodes and the
// callers' options are fixed: it is hptune's bug, not the caller's.
absl::StatusOr<ImportanceReport> StudyImportance(
    const StudyRecord& study, const std::vector<Trial>& trials,
    const ImportanceOptions& options = {});

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_IMPORTANCE_H_
