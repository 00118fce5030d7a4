// Command-line flags of quality_harness: which designers, functions, seeds,
// budgets and worker modes to run, and how to print the result.
//
// Called by quality_harness's main (and tests). Every error names the flag and
// the value it got. Pure functions; thread-safe.
#ifndef HPTUNE_BENCHMARKS_QUALITY_HARNESS_FLAGS_H_
#define HPTUNE_BENCHMARKS_QUALITY_HARNESS_FLAGS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/quality/test_functions.h"
#include "hptune/core/study.h"

namespace hptune::quality {

// "sequential" (1 worker) or "parallelN" (N asynchronous workers, N >= 2).
struct WorkerMode {
  std::string name;
  int workers = 1;

  bool operator==(const WorkerMode&) const = default;
};

// kTable and kCsv: median [min, max] per cell; kRuns: one CSV line per run;
// kTrials: one CSV line per trial of each run at the largest budget.
enum class OutputFormat { kTable, kCsv, kRuns, kTrials };

// In --functions, the whole held-out suite and the whole noisy suite
// (test_functions.h).
inline constexpr std::string_view kHoldoutGroup = "holdout";
inline constexpr std::string_view kNoisyGroup = "noisy";

struct HarnessOptions {
  std::vector<std::string> designers = {"gp", "random"};
  std::vector<const TestFunction*> functions;  // TestSuite() by default.
  int seeds = 20;                              // Seeds 1..seeds.
  std::vector<int> budgets = {50, 100};        // Increasing, no repeats.
  std::vector<WorkerMode> modes = {{"sequential", 1}, {"parallel4", 4}};
  OutputFormat format = OutputFormat::kTable;
  int threads = 1;  // Default: the machine's hardware threads.
};

// The algorithm behind a designer name: "gp" is ALGORITHM_UNSPECIFIED (the
// service's Bayesian optimisation), "random" RANDOM_SEARCH, "quasi_random"
// QUASI_RANDOM_SEARCH. InvalidArgument naming the designer otherwise.
absl::StatusOr<Algorithm> DesignerAlgorithm(std::string_view designer);

// "sequential" or "parallelN"; InvalidArgument naming the mode otherwise.
absl::StatusOr<WorkerMode> ParseWorkerMode(std::string_view mode);

// Parses argv[1..] (`--name=value` flags only; see HarnessUsage). Lists are
// comma-separated. InvalidArgument for an unknown flag, a flag without a
// value, a positional argument, or a bad value (naming the flag and value).
absl::StatusOr<HarnessOptions> ParseHarnessFlags(
    std::span<const std::string> args);

// The --help text.
std::string HarnessUsage();

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_HARNESS_FLAGS_H_
