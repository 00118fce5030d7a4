// Early stopping on a workload with known learning curves: how many trainer
// steps each stopping rule saves, and what it costs in the best result.
//
// Each run is a real job through the JobRunner (SQLite file, local launcher)
// of tests/testdata/curve_trainer.py, whose loss decays from 1 towards
// 0.1 + 0.5((x-0.3)^2 + (y-0.7)^2) with a time constant that depends on x and
// y, plus noise. Random search with a fixed seed proposes the same points
// whatever the rule, so the rules are compared on the same trials. A trial's
// steps are the last step it reported (a stopped trial stops reporting); the
// trainer keeps a checkpoint, so asha-resume's continuations go on from
// their trial's step, and their steps count once (ComputeStoppingSavings).
//
//   early_stopping_benchmark [--trials N] [--parallel P] [--seeds S]
//                            [--steps K] [--noise A]
// prints, per rule, total steps over all seeds, steps saved against no
// stopping, and the median over seeds of the best final loss and its change.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/savings.h"
#include "hptune/engine/engine.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/runner/job_runner.h"
#include "src/store/sqlite_store.h"

namespace {

using namespace hptune;  // NOLINT: a benchmark program.

struct Flags {
  int trials = 30;
  int parallel = 3;
  int seeds = 3;
  int steps = 100;
  std::string noise = "0.01";
};

struct Outcome {
  int64_t steps = 0;
  double best = 0;
  int stopped = 0;
  double seconds = 0;
};

absl::StatusOr<Outcome> RunJob(const std::filesystem::path& dir,
                               const std::string& job_id,
                               const std::optional<std::string>& rule,
                               uint64_t seed, const Flags& flags) {
  const std::string yaml = absl::StrCat(
      "trainingInput:\n"
      "  hyperparameters:\n"
      "    goal: MINIMIZE\n"
      "    hyperparameterMetricTag: loss\n"
      "    algorithm: RANDOM_SEARCH\n"
      "    maxTrials: ",
      flags.trials, "\n    maxParallelTrials: ", flags.parallel,
      "\n    enableTrialEarlyStopping: ", rule ? "true" : "false",
      rule ? absl::StrCat("\n    earlyStoppingRule: ", *rule) : "",
      "\n"
      "    params:\n"
      "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"
      "    - {parameterName: y, type: DOUBLE, minValue: 0, maxValue: 1}\n");
  ConfigParseResult parsed = ParseJobConfig(yaml, ConfigFormat::kYaml, job_id);
  if (!parsed.job) return FieldErrorsToStatus(parsed.errors);
  JobSpec job = *parsed.job;
  job.study->seed = seed;
  job.command = {"python3",
                 HPTUNE_SOURCE_DIR "/tests/testdata/curve_trainer.py",
                 absl::StrCat("--steps=", flags.steps),
                 "--step_seconds=0.005",
                 "--noise=" + flags.noise,
                 "--checkpoint"};

  auto store = store::SqliteStore::Open((dir / "bench.db").string(),
                                        hptune::SystemClock());
  if (!store.ok()) return store.status();
  engine::TuningEngine engine(**store, hptune::SystemClock());
  launch::LocalLauncher launcher(
      launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  runner::JobRunnerOptions options;
  options.runs_dir = dir / "runs";
  options.max_poll_interval = std::chrono::milliseconds(20);
  runner::JobRunner runner(**store, engine, launcher, options,
                           hptune::DefaultEnv());
  const auto start = std::chrono::steady_clock::now();
  if (auto s = runner.Submit(job); !s.ok()) return s.status();
  auto record = runner.Run(job);
  if (!record.ok()) return record.status();
  if (record->state != JobState::kSucceeded) {
    return absl::InternalError(
        absl::StrCat(job_id, " ended ", std::string(ToString(record->state)),
                     ": ", record->error_message));
  }
  Outcome outcome;
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto trials = (*store)->ListTrials(job_id);
  if (!trials.ok()) return trials.status();
  // As the product counts them: a resumed trial's steps once, as its
  // continuation's.
  std::vector<const Trial*> pointers;
  for (const Trial& t : *trials) pointers.push_back(&t);
  const StoppingSavings counted = ComputeStoppingSavings(pointers, {});
  outcome.steps = counted.steps_run;
  outcome.stopped = static_cast<int>(counted.trials_stopped);
  outcome.best = 1e9;
  for (const Trial& t : *trials) {
    if (auto v = t.FinalObjective("loss")) {
      outcome.best = std::min(outcome.best, *v);
    }
  }
  return outcome;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name, int& out) {
      const std::string prefix = absl::StrCat("--", name, "=");
      if (arg.rfind(prefix, 0) != 0) return false;
      if (!absl::SimpleAtoi(arg.substr(prefix.size()), &out) || out < 1) {
        std::fprintf(stderr, "%s: expected a positive integer, got \"%s\"\n",
                     name, arg.substr(prefix.size()).c_str());
        std::exit(64);
      }
      return true;
    };
    if (value("trials", flags.trials) || value("parallel", flags.parallel) ||
        value("seeds", flags.seeds) || value("steps", flags.steps)) {
      continue;
    }
    if (arg.rfind("--noise=", 0) == 0) {
      flags.noise = arg.substr(8);
      continue;
    }
    std::fprintf(stderr, "unknown flag \"%s\"\n", arg.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 64;
  const auto dir = std::filesystem::temp_directory_path() /
                   absl::StrCat("hptune_early_stopping_", ::getpid());
  std::filesystem::create_directories(dir);

  struct Rule {
    std::string name;
    std::optional<std::string> rule;  // A registered rule's name.
  };
  const std::vector<Rule> rules = {{"none", std::nullopt},
                                   {"median", "median"},
                                   {"median_at_step", "median-at-step"},
                                   {"asha", "asha"},
                                   {"asha_resume", "asha-resume"},
                                   {"envelope", "envelope"}};
  std::map<std::string, std::vector<Outcome>> results;
  for (int seed = 1; seed <= flags.seeds; ++seed) {
    for (const Rule& rule : rules) {
      const std::string job_id = absl::StrCat(rule.name, "_seed", seed);
      auto outcome = RunJob(dir, job_id, rule.rule, seed, flags);
      if (!outcome.ok()) {
        std::fprintf(stderr, "%s: %s\n", job_id.c_str(),
                     std::string(outcome.status().message()).c_str());
        return 1;
      }
      std::fprintf(stderr, "%-19s steps %6lld  stopped %2d  best %.5f  %.1fs\n",
                   job_id.c_str(), static_cast<long long>(outcome->steps),
                   outcome->stopped, outcome->best, outcome->seconds);
      results[rule.name].push_back(*outcome);
    }
  }
  std::filesystem::remove_all(dir);

  std::printf(
      "%d trials (%d parallel) x %d seeds, %d steps a trial, noise %s\n\n",
      flags.trials, flags.parallel, flags.seeds, flags.steps,
      flags.noise.c_str());
  std::printf("%-15s %12s %12s %14s %16s %19s %18s\n", "rule", "total steps",
              "steps saved", "trials stopped", "median best loss",
              "median best change", "worst best change");
  int64_t baseline_steps = 0;
  std::vector<double> baseline_best;
  for (const Outcome& o : results["none"]) {
    baseline_steps += o.steps;
    baseline_best.push_back(o.best);
  }
  for (const Rule& rule : rules) {
    int64_t steps = 0;
    int stopped = 0;
    std::vector<double> best, change;
    for (size_t i = 0; i < results[rule.name].size(); ++i) {
      const Outcome& o = results[rule.name][i];
      steps += o.steps;
      stopped += o.stopped;
      best.push_back(o.best);
      change.push_back(100.0 * (o.best - baseline_best[i]) / baseline_best[i]);
    }
    std::printf("%-15s %12lld %11.1f%% %14d %16.5f %18.2f%% %17.2f%%\n",
                rule.name.c_str(), static_cast<long long>(steps),
                100.0 * (1.0 - static_cast<double>(steps) / baseline_steps),
                stopped, Median(best), Median(change),
                *std::max_element(change.begin(), change.end()));
  }
  return 0;
}
