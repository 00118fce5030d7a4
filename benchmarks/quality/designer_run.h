// One optimisation run of an hptune designer on a test function, driven the
// way TuningEngine::SuggestTrials drives designers, with simulated workers.
//
// Used by quality_harness, one call per (function, designer, mode, seed).
// Each round builds a fresh designer with CreateDesigner(spec, seed), restores
// the state the previous round saved, gives it the history with
// Update(completed, pending), asks Suggest(k) and saves its state again,
// exactly as the engine does with its store. Workers evaluate trials in the
// order they were suggested:
//   workers = 1 (sequential): one suggestion per round, evaluated before the
//     next round.
//   workers = w > 1 (asynchronous parallel): the first round asks for w
//     suggestions; afterwards each round completes the oldest pending trial
//     and asks for one more with the other w - 1 still pending, until the
//     budget is suggested; then the pending trials are completed.
// A noisy function (noise_sd > 0) reports f + noise_sd * ObservationNoise(seed,
// trial number): the designer sees only that, the regret uses f.
// Designers are deterministic for a seed and a history, so a run with budget
// B makes the same first B suggestions as a longer run: the harness runs the
// largest budget once and reads the smaller ones off its prefix.
// Stateless functions; thread-safe as long as each call has its own
// arguments (every call builds its own designers).
#ifndef HPTUNE_BENCHMARKS_QUALITY_DESIGNER_RUN_H_
#define HPTUNE_BENCHMARKS_QUALITY_DESIGNER_RUN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/quality/test_functions.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::quality {

// Makes each round's designer; algorithms::CreateDesigner unless a test
// puts a recording fake in its place.
using DesignerFactory =
    std::function<absl::StatusOr<std::unique_ptr<algorithms::Designer>>(
        const StudySpec& spec, uint64_t seed)>;

struct DesignerRunOptions {
  Algorithm algorithm = Algorithm::kRandomSearch;
  uint64_t seed = 0;
  int budget = 0;           // Trials suggested and evaluated, >= 1.
  int workers = 1;          // Trials pending at a time, >= 1.
  DesignerFactory factory;  // Empty: algorithms::CreateDesigner.
};

// One trial of a run: what the engine's store would hold for it.
struct RunTrial {
  int number = 0;      // 1-based, in the order suggested (and completed).
  std::string origin;  // The designer's reason for it (Suggestion::origin).
  ParameterAssignment parameters;
  double value = 0;     // The function's value f(parameters).
  double reported = 0;  // What the trial reported: value plus any noise.
};

// The standard normal draw behind trial `number`'s noise in the run with
// `seed`: Box-Muller (gp/normal_draw.h) on outputs 2 number - 1 and
// 2 number of the SplitMix64 stream of seed ^ kObservationNoiseSalt
// (algorithms/common/splitmix64.h). A function of (seed, number) alone, so
// every designer and mode of a seed meets the same noise (paired
// comparisons stay paired) and benchmarks/optuna_compare.py draws the same.
inline constexpr uint64_t kObservationNoiseSalt = 0x6e6f697365ull;  // "noise"
double ObservationNoise(uint64_t seed, int number);

// The metric every simulated trial of a test function reports.
inline constexpr std::string_view kObjectiveMetric = "objective";

// What a simulated worker reports for a trial: its metrics.
using TrialEvaluator =
    std::function<std::map<std::string, double>(const Trial& trial)>;

// The protocol above on any study: the trials, each completed with the
// metrics `evaluate` gives, in the order they were suggested (budget of
// them). `label` names the problem in errors; `factory` empty:
// algorithms::CreateDesigner. Errors as RunDesigner's.
absl::StatusOr<std::vector<Trial>> RunStudy(const StudySpec& spec,
                                            std::string_view label,
                                            uint64_t seed, int budget,
                                            int workers,
                                            const DesignerFactory& factory,
                                            const TrialEvaluator& evaluate);

// The run's trials in the order they were suggested (budget of them). Errors
// as RunDesigner's.
absl::StatusOr<std::vector<RunTrial>> RunDesignerTrials(
    const TestFunction& function, const DesignerRunOptions& options);

// The objective values of the run's trials in the order they were suggested
// (budget of them), f without noise. InvalidArgument for a budget or worker
// count below 1 (or a space the designer rejects); Internal when the designer
// suggests fewer points than asked or an infeasible one, naming the designer,
// the function and the round.
absl::StatusOr<std::vector<double>> RunDesigner(
    const TestFunction& function, const DesignerRunOptions& options);

// Simple regret after the first `budget` trials: the value of the trial
// that reported the least (the first such) minus `optimum`. Without noise
// that is the best value found; with it, what a user who deploys the best
// reported trial gets, so a designer is not credited for a lucky draw.
// `budget` must be in 1..trials.size() (aborts otherwise).
double SimpleRegret(std::span<const RunTrial> trials, int budget,
                    double optimum);

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_DESIGNER_RUN_H_
