// The learning-curve benchmark's replay of hptune's engine: for each task,
// designer, stopping rule and seed, a study of the real TuningEngine whose
// trials replay tabulated curves of real training (replay.h), printed as
// one tab-separated row per run; summarize_curves.py turns these rows, and
// optuna_curves.py's for Optuna, into the table in benchmarks/RESULTS.md.
//
//   curve_replay [--data=DIR] [--tasks=gbm,mlp,sgd] [--designers=random,gp]
//                (also mf-gp: MULTI_FIDELITY_GP)
//                [--rules=none,median,median_at_step,asha] [--seeds=N]
//                (also decay-curve, convex: any built-in rule name)
//                [--first_seed=K] [--workers=W] [--budget=B]
//                [--checkpoints=20,50] [--max_trials=N] [--configs=N]
//                [--seeded=1]
//
// Budgets and checkpoints are in full trainings of a task (its steps).
// --configs=N offers only a table's first N configurations (the table of N
// that generate_curves.py makes with the same seed); 0, all of them.
// --seeded=1 reads the seed-averaged tables too (<task>.seeds.csv.gz,
// generate_seed_curves.py): each trial trains one seed's curve, drawn per
// trial, and regret is on its configuration's mean final value over the
// seeds (seed_curves.h); the rows' regrets are then of that scoring.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "benchmarks/curves/curve_table.h"
#include "benchmarks/curves/replay.h"
#include "benchmarks/curves/seed_curves.h"
#include "hptune/algorithms/stopping_registry.h"

namespace {

using namespace hptune;  // NOLINT: a benchmark program.

struct Flags {
  std::string data = HPTUNE_CURVES_DATA;
  std::vector<std::string> tasks = {"gbm", "mlp", "sgd"};
  std::vector<std::string> designers = {"random", "gp"};
  std::vector<std::string> rules = {"none", "median", "median_at_step", "asha"};
  int seeds = 5;
  int first_seed = 1;
  int workers = 4;
  double budget = 50;
  std::vector<double> checkpoints = {20, 50};
  int max_trials = 0;
  int configs = 0;
  int seeded = 0;
};

bool ParseNumber(const std::string& name, const std::string& text, double& out,
                 double min) {
  if (!absl::SimpleAtod(text, &out) || !(out >= min) || out > 1e6) {
    std::fprintf(stderr, "--%s: expected a number in [%g, 1e6], got \"%s\"\n",
                 name.c_str(), min, text.c_str());
    return false;
  }
  return true;
}

bool ParseInt(const std::string& name, const std::string& text, int& out,
              int min) {
  double v = 0;
  if (!ParseNumber(name, text, v, min) || v != static_cast<int>(v)) {
    std::fprintf(stderr, "--%s: expected an integer, got \"%s\"\n",
                 name.c_str(), text.c_str());
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

bool ParseFlag(const std::string& name, const std::string& value, Flags& f) {
  auto list = [&] {
    return std::vector<std::string>(absl::StrSplit(value, ','));
  };
  if (name == "data")
    f.data = value;
  else if (name == "tasks")
    f.tasks = list();
  else if (name == "designers")
    f.designers = list();
  else if (name == "rules")
    f.rules = list();
  else if (name == "seeds")
    return ParseInt(name, value, f.seeds, 1);
  else if (name == "first_seed")
    return ParseInt(name, value, f.first_seed, 0);
  else if (name == "workers")
    return ParseInt(name, value, f.workers, 1);
  else if (name == "max_trials")
    return ParseInt(name, value, f.max_trials, 0);
  else if (name == "configs")
    return ParseInt(name, value, f.configs, 0);
  else if (name == "seeded")
    return ParseInt(name, value, f.seeded, 0);
  else if (name == "budget")
    return ParseNumber(name, value, f.budget, 1e-3);
  else if (name == "checkpoints") {
    f.checkpoints.clear();
    for (const std::string& c : list()) {
      if (!ParseNumber(name, c, f.checkpoints.emplace_back(), 1e-3)) {
        return false;
      }
    }
  } else {
    std::fprintf(stderr, "unknown flag --%s\n", name.c_str());
    return false;
  }
  return true;
}

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      std::fprintf(stderr, "expected --name=value, got \"%s\"\n", arg.c_str());
      return false;
    }
    if (!ParseFlag(arg.substr(2, eq - 2), arg.substr(eq + 1), flags)) {
      return false;
    }
  }
  return true;
}

// The registry name of a --rules entry: the engine's rule names
// (StoppingRuleRegistry), with "median_at_step" for "median-at-step" as the
// tables in RESULTS.md spell it; nullopt for "none".
std::optional<std::string> RuleOf(const std::string& name, bool& ok) {
  ok = true;
  if (name == "none") return std::nullopt;
  const std::string rule = name == "median_at_step" ? "median-at-step" : name;
  ok = algorithms::StoppingRuleRegistry::WithBuiltins().Contains(rule);
  return rule;
}

std::string Header(const Flags& flags) {
  std::string h =
      "side\ttask\tconfigs\tdesigner\trule\tseed\tworkers\ttrials\tstopped\t"
      "steps\tfull_steps\tsim_seconds\tfinal_regret";
  for (double c : flags.checkpoints) absl::StrAppend(&h, "\tregret@", c);
  return h;
}

// The algorithm a --designers name stands for.
std::optional<Algorithm> DesignerOf(const std::string& name) {
  if (name == "random") return Algorithm::kRandomSearch;
  if (name == "gp") return Algorithm::kUnspecified;
  if (name == "mf-gp") return Algorithm::kMultiFidelityGp;
  return std::nullopt;
}

// One run's row; false (having said why) on an error.
bool RunOne(const curves::CurveTable& table, const curves::SeedCurves* seeds,
            const std::string& designer, const std::string& rule, int seed,
            const Flags& flags) {
  curves::ReplayOptions options;
  bool ok = true;
  options.rule = RuleOf(rule, ok);
  const std::optional<Algorithm> algorithm = DesignerOf(designer);
  if (!ok || !algorithm.has_value()) {
    std::fprintf(stderr, "unknown designer \"%s\" or rule \"%s\"\n",
                 designer.c_str(), rule.c_str());
    return false;
  }
  options.algorithm = *algorithm;
  options.seed = seed;
  options.workers = flags.workers;
  options.budget = flags.budget;
  options.checkpoints = flags.checkpoints;
  options.max_trials = flags.max_trials;
  options.seeds = seeds;
  auto r = curves::Replay(table, options);
  if (!r.ok()) {
    std::fprintf(stderr, "%s %s %s seed %d: %s\n", table.task.c_str(),
                 designer.c_str(), rule.c_str(), seed,
                 std::string(r.status().message()).c_str());
    return false;
  }
  std::string row = absl::StrCat(
      "hptune\t", table.task, "\t", table.configs.size(), "\t", designer, "\t",
      rule, "\t", seed, "\t", flags.workers, "\t", r->trials, "\t", r->stopped,
      "\t", r->steps, "\t", table.steps, "\t",
      absl::StrFormat("%.3f\t%.6g", r->sim_seconds, r->final_regret));
  for (double v : r->regret_at)
    absl::StrAppend(&row, "\t", absl::StrFormat("%.6g", v));
  std::printf("%s\n", row.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 64;
  std::printf("%s\n", Header(flags).c_str());
  for (const std::string& task : flags.tasks) {
    auto table = curves::LoadCurveTable(flags.data, task);
    absl::Status kept = table.status();
    if (kept.ok() && flags.configs > 0) {
      kept = curves::KeepFirstConfigurations(flags.configs, *table);
    }
    std::optional<curves::SeedCurves> seeds;
    if (kept.ok() && flags.seeded) {
      auto loaded = curves::LoadSeedCurves(flags.data, *table);
      kept = loaded.status();
      if (loaded.ok()) seeds = *std::move(loaded);
    }
    if (!kept.ok()) {
      std::fprintf(stderr, "%s\n", std::string(kept.message()).c_str());
      return 1;
    }
    for (const std::string& designer : flags.designers) {
      for (const std::string& rule : flags.rules) {
        for (int s = 0; s < flags.seeds; ++s) {
          if (!RunOne(*table, seeds ? &*seeds : nullptr, designer, rule,
                      flags.first_seed + s, flags)) {
            return 1;
          }
        }
      }
    }
  }
  return 0;
}
