#include "benchmarks/quality/harness_flags.h"

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "benchmarks/quality/conditional_problems.h"
#include "hptune/core/status.h"

namespace hptune::quality {
namespace {

constexpr int kMaxSeeds = 10'000;
constexpr int kMaxBudget = 100'000;
constexpr int kMaxWorkers = 1'000;
constexpr int kMaxThreads = 1'024;

struct NamedDesigner {
  std::string_view name;
  Algorithm algorithm;
};
constexpr NamedDesigner kDesigners[] = {
    {"gp", Algorithm::kUnspecified},
    {"random", Algorithm::kRandomSearch},
    {"quasi_random", Algorithm::kQuasiRandomSearch},
};

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

absl::Status FlagError(std::string_view flag, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("flag --", std::string(flag), ": ", why));
}

// Non-empty, comma-separated, no empty items, no repeats.
absl::StatusOr<std::vector<std::string>> ParseList(std::string_view flag,
                                                   std::string_view value) {
  std::vector<std::string> items = absl::StrSplit(std::string(value), ',');
  std::set<std::string> seen;
  for (const std::string& item : items) {
    if (item.empty()) {
      return FlagError(flag, absl::StrCat("empty item in ", Quoted(value)));
    }
    if (!seen.insert(item).second) {
      return FlagError(flag, absl::StrCat(Quoted(item), " is listed twice"));
    }
  }
  return items;
}

absl::StatusOr<int> ParseCount(std::string_view flag, std::string_view value,
                               int max) {
  int n = 0;
  if (!absl::SimpleAtoi(std::string(value), &n) || n < 1 || n > max) {
    return FlagError(flag, absl::StrCat("expected an integer in 1..", max,
                                        ", got ", Quoted(value)));
  }
  return n;
}

absl::Status SetFlag(std::string_view name, std::string_view value,
                     HarnessOptions& options) {
  if (name == "designers") {
    HPTUNE_ASSIGN_OR_RETURN(options.designers, ParseList(name, value));
    for (const std::string& d : options.designers) {
      if (absl::Status s = DesignerAlgorithm(d).status(); !s.ok()) {
        return FlagError(name, std::string(s.message()));
      }
    }
  } else if (name == "functions") {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                            ParseList(name, value));
    options.functions.clear();
    for (const std::string& f : names) {
      const std::vector<TestFunction>* group =
          f == kHoldoutGroup       ? &HoldoutSuite()
          : f == kNoisyGroup       ? &NoisySuite()
          : f == kConditionalGroup ? &ConditionalSuite()
                                   : nullptr;
      if (group != nullptr) {
        for (const TestFunction& g : *group) options.functions.push_back(&g);
        continue;
      }
      auto function = FindTestFunction(f);
      if (!function.ok()) {
        if (auto conditional = FindConditionalProblem(f); conditional.ok()) {
          function = *conditional;
        }
      }
      if (!function.ok()) {
        return FlagError(
            name,
            absl::StrCat(
                function.status().message(), "; \"", std::string(kHoldoutGroup),
                "\" names the held-out six, \"", std::string(kNoisyGroup),
                "\" the noisy seven, \"", std::string(kConditionalGroup),
                "\" the conditional jenatton, optimizer_choice and ",
                "model_tree"));
      }
      options.functions.push_back(*function);
    }
    std::set<const TestFunction*> distinct(options.functions.begin(),
                                           options.functions.end());
    if (distinct.size() != options.functions.size()) {
      return FlagError(
          name, absl::StrCat("a function named twice in ", Quoted(value),
                             " (a group includes each of its functions)"));
    }
  } else if (name == "seeds") {
    HPTUNE_ASSIGN_OR_RETURN(options.seeds, ParseCount(name, value, kMaxSeeds));
  } else if (name == "budgets") {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<std::string> items,
                            ParseList(name, value));
    options.budgets.clear();
    for (const std::string& item : items) {
      HPTUNE_ASSIGN_OR_RETURN(int budget, ParseCount(name, item, kMaxBudget));
      options.budgets.push_back(budget);
    }
    std::sort(options.budgets.begin(), options.budgets.end());
  } else if (name == "modes") {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<std::string> items,
                            ParseList(name, value));
    options.modes.clear();
    for (const std::string& item : items) {
      auto mode = ParseWorkerMode(item);
      if (!mode.ok())
        return FlagError(name, std::string(mode.status().message()));
      options.modes.push_back(*std::move(mode));
    }
  } else if (name == "format") {
    if (value == "table") {
      options.format = OutputFormat::kTable;
    } else if (value == "csv") {
      options.format = OutputFormat::kCsv;
    } else if (value == "runs") {
      options.format = OutputFormat::kRuns;
    } else if (value == "trials") {
      options.format = OutputFormat::kTrials;
    } else {
      return FlagError(name,
                       absl::StrCat("expected table, csv, runs or trials, got ",
                                    Quoted(value)));
    }
  } else if (name == "threads") {
    HPTUNE_ASSIGN_OR_RETURN(options.threads,
                            ParseCount(name, value, kMaxThreads));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown flag --", std::string(name), " (see --help)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Algorithm> DesignerAlgorithm(std::string_view designer) {
  std::vector<std::string> names;
  for (const NamedDesigner& d : kDesigners) {
    if (d.name == designer) return d.algorithm;
    names.push_back(std::string(d.name));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown designer ", Quoted(designer),
                   " (known: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<WorkerMode> ParseWorkerMode(std::string_view mode) {
  if (mode == "sequential") return WorkerMode{"sequential", 1};
  constexpr std::string_view kParallel = "parallel";
  int workers = 0;
  if (mode.starts_with(kParallel) &&
      absl::SimpleAtoi(std::string(mode.substr(kParallel.size())), &workers) &&
      workers >= 2 && workers <= kMaxWorkers &&
      mode == absl::StrCat(std::string(kParallel), workers)) {
    return WorkerMode{std::string(mode), workers};
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown mode ", Quoted(mode),
      " (expected sequential or parallelN, N in 2..", kMaxWorkers, ")"));
}

absl::StatusOr<HarnessOptions> ParseHarnessFlags(
    std::span<const std::string> args) {
  HarnessOptions options;
  for (const TestFunction& f : TestSuite()) options.functions.push_back(&f);
  options.threads = std::clamp(
      static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
  for (const std::string& arg : args) {
    if (!arg.starts_with("--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument ", Quoted(arg), " (see --help)"));
    }
    const size_t equals = arg.find('=');
    if (equals == std::string::npos) {
      const std::string name = arg.substr(2);
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", name, " needs a value: --", name, "=VALUE"));
    }
    HPTUNE_RETURN_IF_ERROR(SetFlag(std::string_view(arg).substr(2, equals - 2),
                                   std::string_view(arg).substr(equals + 1),
                                   options));
  }
  return options;
}

std::string HarnessUsage() {
  return R"(Usage: quality_harness [--flag=value ...]

Runs hptune designers on a suite of test functions over seeds, the way the
engine runs them, and prints the simple regret (best value found - known
minimum) per function, budget and worker mode: median [min, max] over seeds.

  --designers=gp,random   gp (ALGORITHM_UNSPECIFIED), random, quasi_random
  --functions=LIST        branin, hartmann6, ackley5, rosenbrock4, levy4,
                          styblinski_tang8, mixed (default: these), or the
                          held-out goldstein_price, six_hump_camel,
                          hartmann3, shekel4, dixon_price6, powell8
                          ("holdout": all six), or the noisy suite,
                          branin_noisy, ..., mixed_noisy ("noisy": all
                          seven; each trial reports f plus Gaussian
                          noise, and regret is f at the trial reported
                          best), or the conditional problems
                          (tree-shaped spaces) jenatton, optimizer_choice,
                          model_tree ("conditional": all three), or
                          narrow_category (a category best only in a
                          tenth of another parameter's range)
  --seeds=20              runs per cell, with seeds 1..N
  --budgets=50,100        trials per run
  --modes=sequential,parallel4
                          sequential: one trial at a time; parallelN: N
                          asynchronous workers, N trials pending
  --format=table          table or csv (median [min, max] per cell), or
                          runs (CSV, one line per seed: the input of
                          benchmarks/quality/paired_compare.py), or
                          trials (CSV, one line per trial of each run at
                          the largest budget: origin, regret, reported
                          regret, parameters)
  --threads=N             runs in parallel (default: hardware threads)
Progress goes to stderr.
)";
}

}  // namespace hptune::quality
