// The replay of hptune's engine on tabulated learning curves: a study of
// the real TuningEngine (MemoryStore, a simulated clock) whose trials are
// "trained" by reading their nearest tabulated configuration's curve one
// step at a time, on several workers in parallel, each step taking the
// simulated time it took when the table was made. After each step the
// engine gets the measurement and is asked (CheckEarlyStopping) whether to
// stop that trial, as Optuna's should_prune judges the reporting trial (a
// runner asks about every running trial). A run of a thousand steps takes
// tens of milliseconds of CPU, ASHA's about a second (RESULTS.md).
//
// Used by curve_replay and its test; optuna_curves.py does the same for
// Optuna's samplers and pruners. Not thread-safe: one replay per thread.
#ifndef HPTUNE_BENCHMARKS_CURVES_REPLAY_H_
#define HPTUNE_BENCHMARKS_CURVES_REPLAY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/curves/curve_table.h"
#include "benchmarks/curves/seed_curves.h"
#include "hptune/core/study.h"

namespace hptune::curves {

struct ReplayOptions {
  // kRandomSearch, kUnspecified for the GP, or kMultiFidelityGp.
  Algorithm algorithm = Algorithm::kRandomSearch;
  // A StoppingRuleRegistry name ("median-at-step", "decay-curve", ...);
  // nullopt: no stopping.
  std::optional<std::string> rule;
  uint64_t seed = 1;
  int workers = 4;
  // The spend at which the run ends, in full trainings (table.steps steps
  // each); the run also ends after max_trials trials (0: no such limit).
  double budget = 50;
  int max_trials = 0;
  // Spends, in full trainings, at which the best result so far is noted.
  std::vector<double> checkpoints = {20, 50};
  // The table's configurations trained with several seeds (seed_curves.h),
  // or null: each trial then trains the table's one curve. With them, each
  // trial draws one seed's curve (a continuation keeps its trial's), and
  // regret is its configuration's mean final value over the seeds minus
  // the lowest such mean. Must outlive the replay.
  const SeedCurves* seeds = nullptr;
};

struct ReplayResult {
  // Trials that ended (completed or stopped), continuations not counted.
  int trials = 0;
  int stopped = 0;  // Of them, stopped early and not resumed.
  // Continuations of paused trials started (freeze-thaw, "asha-resume"):
  // each trains on from the step its trial stopped at.
  int resumed = 0;
  int64_t steps = 0;       // Steps trained, all trials together.
  double sim_seconds = 0;  // Simulated time from the start to the end.
  // The best result of the ended trials minus table.BestValue() (a trial's
  // result is its last value, as the engine's final measurement), at the
  // end and at each checkpoint (NaN where no trial had ended yet). With
  // seeds: the mean-final regret of the best trial's configuration.
  double final_regret = 0;
  std::vector<double> regret_at;
};

absl::StatusOr<ReplayResult> Replay(const CurveTable& table,
                                    const ReplayOptions& options);

}  // namespace hptune::curves

#endif  // HPTUNE_BENCHMARKS_CURVES_REPLAY_H_
