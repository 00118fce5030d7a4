// Time for PED-ANOVA parameter importance
// (src/algorithms/importance/ped_anova.h) over n finished trials of a
// 20-parameter study: 14 linear and 2 log-scaled DOUBLE, 2 INTEGER (one
// log-scaled), 2 CATEGORICAL. Only the computation is timed, from trials
// already in memory (a store read is not).
//
//   importance_benchmark                       Google Benchmark: n = 1k, 10k,
//   100k importance_benchmark --importance_of=F.json [--repeats=N]
//       the importances of the study in F (written by
//       benchmarks/importance_compare.py) as JSON on stdout, with the median
//       time of N runs: the same data Optuna is timed on, and the check that
//       both compute the same numbers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "src/algorithms/importance/ped_anova.h"

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
  spec.goal = Goal::kMinimize;
  spec.metric_tag = "loss";
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
        Measurement{.step = 1, .metrics = {{spec.metric_tag, loss}}};
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
  spec.goal = study["goal"] == "MAXIMIZE" ? Goal::kMaximize : Goal::kMinimize;
  spec.metric_tag = "value";
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
        .step = 1, .metrics = {{spec.metric_tag, t["value"].get<double>()}}};
    trials.push_back(std::move(trial));
  }
  return trials;
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
    auto result = algorithms::PedAnovaImportance(spec, trials);
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
