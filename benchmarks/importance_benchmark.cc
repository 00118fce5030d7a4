// Time for PED-ANOVA parameter importance
// (algorithms/importance/ped_anova.h) over n finished trials of a
// 20-parameter study: 14 linear and 2 log-scaled DOUBLE, 2 INTEGER (one
// log-scaled), 2 CATEGORICAL. Only the computation is timed, from trials
// already in memory (a store read is not).
//
//   importance_benchmark                       Google Benchmark: n = 1k, 10k,
//   100k (with the default 200 bootstrap resamples, and without)
//   importance_benchmark --small_n
//       small studies with a zero-effect parameter (below, SmallN): for 20,
//       30, 50 and 100 random-search trials over 20 seeds (with intervals)
//       and 1000 seeds (point estimates), how often the zero-effect x3 ranks
//       above x1, with hptune's floor on the top set and with Optuna's, as
//       a table on stdout
//   importance_benchmark --importance_of=F.json [--repeats=N]
//       the importances of the study in F (written by
//       benchmarks/importance_compare.py) as JSON on stdout, with the median
//       time of N runs: the same data Optuna is timed on, and the check that
//       both compute the same numbers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/importance/ped_anova.h"
#include "nlohmann/json.hpp"

namespace hptune {
namespace {

ParameterSpec Numeric(std::string name, ParameterType type, double min,
                      double max, ScaleType scale = ScaleType::kLinear) {
  return {.name = std::move(name),
          .type = type,
          .min_value = min,
          .max_value = max,
          .scale = scale};
}

StudySpec TwentyParameters() {
  std::vector<ParameterSpec> parameters;
  for (int d = 0; d < 14; ++d) {
    parameters.push_back(
        Numeric("x" + std::to_string(d), ParameterType::kDouble, 0, 1));
  }
  parameters.push_back(
      Numeric("lr", ParameterType::kDouble, 1e-5, 1, ScaleType::kLog));
  parameters.push_back(
      Numeric("decay", ParameterType::kDouble, 1e-6, 1e-2, ScaleType::kLog));
  parameters.push_back(Numeric("layers", ParameterType::kInteger, 1, 8));
  parameters.push_back(
      Numeric("batch", ParameterType::kInteger, 1, 1024, ScaleType::kLog));
  parameters.push_back({.name = "optimizer",
                        .type = ParameterType::kCategorical,
                        .categorical_values = {"sgd", "adam", "rmsprop"}});
  parameters.push_back(
      {.name = "activation",
       .type = ParameterType::kCategorical,
       .categorical_values = {"relu", "gelu", "tanh", "silu"}});
  StudySpec spec;
  spec.search_space = SearchSpace(std::move(parameters));
  spec.SetSingleMetric("loss", Goal::kMinimize);
  return spec;
}

// Uniform draws in each parameter's scale; the loss depends on a few.
std::vector<Trial> RandomTrials(const StudySpec& spec, int64_t count) {
  std::mt19937_64 random(1);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<Trial> trials(count);
  for (int64_t i = 0; i < count; ++i) {
    Trial& trial = trials[i];
    trial.number = i + 1;
    trial.state = TrialState::kSucceeded;
    for (const ParameterSpec& p : spec.search_space.parameters()) {
      const double u = uniform(random);
      ParameterValue value;
      if (p.type == ParameterType::kCategorical) {
        const auto index = static_cast<size_t>(u * p.categorical_values.size());
        value = ParameterValue::Categorical(p.categorical_values[index]);
      } else if (p.scale == ScaleType::kLog) {
        const double x = std::exp(std::log(p.min_value) +
                                  u * std::log(p.max_value / p.min_value));
        value = p.type == ParameterType::kInteger
                    ? ParameterValue::Integer(std::llround(x))
                    : ParameterValue::Double(x);
      } else {
        const double x = p.min_value + u * (p.max_value - p.min_value);
        value = p.type == ParameterType::kInteger
                    ? ParameterValue::Integer(std::llround(x))
                    : ParameterValue::Double(x);
      }
      trial.parameters[p.name] = value;
    }
    const auto& x = trial.parameters;
    const double loss = 10 * x.at("x0").AsDouble() + 3 * x.at("x1").AsDouble() +
                        std::pow(std::log10(x.at("lr").AsDouble()) + 3, 2) +
                        (x.at("optimizer").AsString() == "adam" ? 0 : 1) +
                        0.1 * uniform(random);
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{spec.metric_tag(), loss}}};
  }
  return trials;
}

void BM_PedAnova(benchmark::State& state) {
  const StudySpec spec = TwentyParameters();
  const std::vector<Trial> trials = RandomTrials(spec, state.range(0));
  for (auto _ : state) {
    auto importances = algorithms::PedAnovaImportance(spec, trials);
    benchmark::DoNotOptimize(importances);
  }
  state.counters["params"] =
      static_cast<double>(spec.search_space.parameters().size());
}
BENCHMARK(BM_PedAnova)
    ->ArgName("trials")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);

// The point estimates alone, without the bootstrap's resamples.
void BM_PedAnovaWithoutIntervals(benchmark::State& state) {
  const StudySpec spec = TwentyParameters();
  const std::vector<Trial> trials = RandomTrials(spec, state.range(0));
  for (auto _ : state) {
    auto importances = algorithms::PedAnovaImportance(
        spec, trials, {.bootstrap_resamples = 0});
    benchmark::DoNotOptimize(importances);
  }
}
BENCHMARK(BM_PedAnovaWithoutIntervals)
    ->ArgName("trials")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);

// The study written by importance_compare.py: {"goal", "params": [{"name",
// "type", "min", "max", "log", "values"}], "trials": [{"params", "value"}]}.
StudySpec SpecFromJson(const nlohmann::json& study) {
  std::vector<ParameterSpec> parameters;
  for (const auto& p : study["params"]) {
    const std::string type = p["type"];
    if (type == "CATEGORICAL") {
      parameters.push_back({.name = p["name"],
                            .type = ParameterType::kCategorical,
                            .categorical_values = p["values"]});
    } else {
      parameters.push_back(Numeric(
          p["name"],
          type == "INTEGER" ? ParameterType::kInteger : ParameterType::kDouble,
          p["min"], p["max"],
          p.value("log", false) ? ScaleType::kLog : ScaleType::kLinear));
    }
  }
  StudySpec spec;
  spec.search_space = SearchSpace(std::move(parameters));
  spec.SetSingleMetric(
      "value", study["goal"] == "MAXIMIZE" ? Goal::kMaximize : Goal::kMinimize);
  return spec;
}

std::vector<Trial> TrialsFromJson(const StudySpec& spec,
                                  const nlohmann::json& study) {
  std::vector<Trial> trials;
  for (const auto& t : study["trials"]) {
    Trial trial;
    trial.state = TrialState::kSucceeded;
    for (const ParameterSpec& p : spec.search_space.parameters()) {
      const auto& v = t["params"][p.name];
      trial.parameters[p.name] = p.type == ParameterType::kCategorical
                                     ? ParameterValue::Categorical(v)
                                 : p.type == ParameterType::kInteger
                                     ? ParameterValue::Integer(v.get<int64_t>())
                                     : ParameterValue::Double(v.get<double>());
    }
    trial.final_measurement = Measurement{
        .step = 1, .metrics = {{spec.metric_tag(), t["value"].get<double>()}}};
    trials.push_back(std::move(trial));
  }
  return trials;
}

// Issue 66's study: random search over x1, x2, x3 in [0, 1] of
// 10 (x1 - 0.7)^2 + 0.5 (x2 - 0.2)^2. x1 explains 99.5% of the variance
// (1.889 of 1.898), x3 none.
std::vector<Trial> SmallStudy(int count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<Trial> trials(count);
  for (int i = 0; i < count; ++i) {
    const double x1 = uniform(random), x2 = uniform(random),
                 x3 = uniform(random);
    Trial& trial = trials[i];
    trial.number = i + 1;
    trial.state = TrialState::kSucceeded;
    trial.parameters = {{"x1", ParameterValue::Double(x1)},
                        {"x2", ParameterValue::Double(x2)},
                        {"x3", ParameterValue::Double(x3)}};
    const double loss =
        10 * (x1 - 0.7) * (x1 - 0.7) + 0.5 * (x2 - 0.2) * (x2 - 0.2);
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{"loss", loss}}};
  }
  return trials;
}

// How often, over seeds 1..seeds, x3 ranks above x1 and above x2, x3's
// largest importance, and how often x1's interval lies wholly above x3's.
struct SmallNCounts {
  int above_x1 = 0, above_x2 = 0, separated = 0;
  double x3_max = 0;
};

SmallNCounts CountSmallN(const StudySpec& spec, int count, uint32_t seeds,
                         const algorithms::ImportanceOptions& options) {
  SmallNCounts counts;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    auto report = algorithms::PedAnovaImportanceReport(
        spec, SmallStudy(count, seed), options);
    if (!report.ok()) {
      std::cerr << report.status() << "\n";
      std::exit(1);
    }
    std::map<std::string, algorithms::ParameterImportance> by_name;
    for (const auto& e : report->importances) by_name[e.parameter] = e;
    const auto &x1 = by_name["x1"], &x2 = by_name["x2"], &x3 = by_name["x3"];
    counts.above_x1 += x3.importance >= x1.importance;
    counts.above_x2 += x3.importance >= x2.importance;
    counts.separated += x1.lower > x3.upper;
    counts.x3_max = std::max(counts.x3_max, x3.importance);
  }
  return counts;
}

// One row: 20 seeds with intervals, then 1000 seeds' point estimates.
void SmallNRow(const StudySpec& spec, int count, const char* floor,
               algorithms::ImportanceOptions options) {
  const SmallNCounts twenty = CountSmallN(spec, count, 20, options);
  options.bootstrap_resamples = 0;
  const SmallNCounts thousand = CountSmallN(spec, count, 1000, options);
  std::printf("%6d  %-12s  %8d/20  %8d/20  %7.3f  %9d/20  %10d/1000  %8.3f\n",
              count, floor, twenty.above_x1, twenty.above_x2, twenty.x3_max,
              twenty.separated, thousand.above_x1, thousand.x3_max);
}

int SmallN() {
  StudySpec spec;
  spec.search_space =
      SearchSpace({Numeric("x1", ParameterType::kDouble, 0, 1),
                   Numeric("x2", ParameterType::kDouble, 0, 1),
                   Numeric("x3", ParameterType::kDouble, 0, 1)});
  spec.SetSingleMetric("loss", Goal::kMinimize);
  std::printf("%6s  %-12s  %11s  %11s  %7s  %12s  %15s  %8s\n", "trials",
              "top floor", "x3 >= x1", "x3 >= x2", "x3 max", "x1 > x3 90%",
              "x3 >= x1", "x3 max");
  for (int count : {20, 30, 50, 100}) {
    SmallNRow(spec, count, "15 (hptune)", {});
    SmallNRow(spec, count, "2 (Optuna)", {.min_top_trials = 2});
  }
  return 0;
}

int ImportanceOf(const std::string& path, int repeats) {
  std::ifstream file(path);
  if (!file) {
    std::cerr << "importance_benchmark: cannot read " << path << "\n";
    return 2;
  }
  const nlohmann::json study = nlohmann::json::parse(file);
  const StudySpec spec = SpecFromJson(study);
  const std::vector<Trial> trials = TrialsFromJson(spec, study);
  std::vector<double> seconds;
  nlohmann::json importances = nlohmann::json::object();
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    // Optuna's floor on the top set, no intervals: what Optuna computes.
    auto result = algorithms::PedAnovaImportance(
        spec, trials, {.min_top_trials = 2, .bootstrap_resamples = 0});
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    if (!result.ok()) {
      std::cerr << "importance_benchmark: " << result.status() << "\n";
      return 1;
    }
    for (const auto& entry : *result) {
      importances[entry.parameter] = entry.importance;
    }
  }
  std::sort(seconds.begin(), seconds.end());
  std::cout << nlohmann::json{{"importances", importances},
                              {"seconds", seconds[seconds.size() / 2]}}
                   .dump()
            << "\n";
  return 0;
}

}  // namespace
}  // namespace hptune

int main(int argc, char** argv) {
  std::string importance_of;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--importance_of=")) {
      importance_of = arg.substr(arg.find('=') + 1);
    } else if (arg == "--small_n") {
      return hptune::SmallN();
    } else if (arg.starts_with("--repeats=")) {
      repeats = std::max(1, std::stoi(std::string(arg.substr(10))));
    }
  }
  if (!importance_of.empty()) {
    return hptune::ImportanceOf(importance_of, repeats);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
