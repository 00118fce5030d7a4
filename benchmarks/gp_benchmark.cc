// Latency of the GP designer (ALGORITHM_UNSPECIFIED), the way the engine
// pays for it: each TuningEngine::SuggestTrials call builds a fresh designer,
// restores its saved state, gives it the history and asks for suggestions,
// on an in-memory store. Full hyperparameter fits happen when the schedule
// says so (every 10% growth of the history), so the per-call times mix
// cheap calls and refits as a real study does.
//
//   BM_GpSuggest/<n>/<d>        one suggestion after n completed trials in a
//                               d-dimensional DOUBLE space, each call adding
//                               its trial to the history.
//                               Counters: p50_ms, p90_ms, max_ms, mean_ms
//                               (the amortised cost), refits, max_rss_mb.
//   BM_GpSuggestBatch8/<n>/<d>  the same with 8 suggestions per call.
//   BM_GpSuggestTail/n:<n>/d:<d>/background:<0|1>
//                               one suggestion per call for 100 calls,
//                               refits inline (0) or on the engine's
//                               worker (1); adds p99_ms.
//   BM_GpFit/<n>/<d>            one full hyperparameter fit on n points as a
//                               refit runs it (warm start + one restart);
//                               the model never holds more than
//                               kMaxModelPoints (300) points.
//   BM_ForecastStoppedTrials/n:<n>/refit:<0|1>
//                               MULTI_FIDELITY_GP's forecast of the stopped
//                               trials' finals before a suggestion, with a
//                               full fit of its curve model or without.
//   BM_GpPredictBatch/n:<n>/d:<d>
//                               the posterior at 2,048 random points, as the
//                               acquisition search scores its candidates.
//   BM_GpPredictWithGradient/n:<n>/d:<d>
//                               the posterior and its gradient at one point,
//                               as each L-BFGS step of the search asks.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/curve_model.h"
#include "algorithms/gp/gaussian_process.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/gp/hyperparameter_fit.h"
#include "algorithms/gp/hyperparameters.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"

namespace hptune {
namespace {

constexpr char kMetric[] = "m";
// The acquisition search's largest candidate batch (suggestion_policy.cc).
constexpr int kPredictCandidates = 2048;

// With k > 1, k objectives m1..mk (Metrics below), all minimised.
StudySpec Spec(int d, int k = 1) {
  StudySpec spec;
  std::vector<ParameterSpec> params;
  for (int i = 0; i < d; ++i) {
    params.push_back({.name = "x" + std::to_string(i),
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 1});
  }
  spec.search_space = SearchSpace(params);
  spec.SetSingleMetric(kMetric, Goal::kMinimize);
  spec.max_trials = 1'000'000;
  spec.max_parallel_trials = kMaxParallelTrials;
  spec.algorithm = Algorithm::kUnspecified;
  spec.seed = 1;
  if (k > 1) {
    std::vector<MetricSpec> metrics;
    for (int i = 1; i <= k; ++i) {
      metrics.push_back(
          {.id = "m" + std::to_string(i), .goal = Goal::kMinimize});
    }
    spec.SetMetrics(std::move(metrics));
  }
  return spec;
}

// A smooth multimodal objective (sum of shifted cosines and a bowl).
double Objective(const ParameterAssignment& a) {
  double sum = 0;
  int i = 0;
  for (const auto& [name, value] : a) {
    const double x = value.AsDouble();
    sum += (x - 0.3) * (x - 0.3) + 0.1 * std::cos(7 * x + i++);
  }
  return sum;
}

// The trial's metrics: Objective, or with k > 1 objectives conflicting
// bowls, m_i = sum_j (x_j - i / k)^2.
std::map<std::string, double> Metrics(const ParameterAssignment& a, int k) {
  if (k == 1) return {{kMetric, Objective(a)}};
  std::map<std::string, double> metrics;
  for (int i = 1; i <= k; ++i) {
    double sum = 0;
    for (const auto& [name, value] : a) {
      const double x = value.AsDouble() - static_cast<double>(i) / k;
      sum += x * x;
    }
    metrics["m" + std::to_string(i)] = sum;
  }
  return metrics;
}

// n completed trials at random points, added as users' finished trials.
void AddHistory(engine::TuningEngine& engine, int n, int d, int k) {
  algorithms::SplitMix64 rng(42);
  for (int i = 0; i < n; ++i) {
    Trial t;
    for (int j = 0; j < d; ++j) {
      t.parameters["x" + std::to_string(j)] =
          ParameterValue::Double(rng.NextUnit());
    }
    t.state = TrialState::kSucceeded;
    t.final_measurement =
        Measurement{.step = 1, .metrics = Metrics(t.parameters, k)};
    (void)engine.CreateTrial("s", std::move(t));
  }
}

double MaxRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// Args: n trials, d parameters and, with `objectives`, k objectives; with
// `background`, the engine defers refits to its worker (EngineOptions::
// background_designer_work), as the server does.
void RunSuggest(benchmark::State& state, int count, bool objectives = false,
                bool background = false) {
  const int n = static_cast<int>(state.range(0));
  const int d = static_cast<int>(state.range(1));
  const int k = objectives ? static_cast<int>(state.range(2)) : 1;
  store::MemoryStore store{hptune::SystemClock()};
  engine::TuningEngine engine(
      store, engine::EngineOptions{.background_designer_work = background},
      hptune::SystemClock());
  if (auto created = engine.CreateStudy("s", Spec(d, k)); !created.ok()) {
    state.SkipWithError(std::string(created.status().message()).c_str());
    return;
  }
  AddHistory(engine, n, d, k);
  auto complete = [&](const std::vector<Trial>& trials) {
    for (const Trial& t : trials) {
      (void)engine.CompleteTrial(
          "s", t.number,
          Measurement{.step = 1, .metrics = Metrics(t.parameters, k)});
    }
  };
  // The designer's saved state says when it refitted ("fit_rows=<n>").
  auto fit_rows = [&]() -> std::string {
    const std::string saved = store.GetDesignerState("s").value_or("");
    const size_t at = saved.find("fit_rows=");
    return at == std::string::npos ? ""
                                   : saved.substr(at, saved.find(';', at) - at);
  };
  // The first call fits from scratch (no saved state): not timed.
  complete(engine.SuggestTrials("s", count, "c")->trials);
  std::string last_fit = fit_rows();
  int refits = 0;
  std::vector<double> ms;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto response = engine.SuggestTrials("s", count, "c");
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count());
    state.PauseTiming();
    if (!response.ok() || static_cast<int>(response->trials.size()) != count) {
      state.SkipWithError("SuggestTrials failed");
      break;
    }
    complete(response->trials);
    if (const std::string fit = fit_rows(); fit != last_fit) {
      ++refits;
      last_fit = fit;
    }
    state.ResumeTiming();
  }
  if (ms.empty()) return;
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  const double p50 = Percentile(ms, 0.5);
  state.counters["p50_ms"] = p50;
  state.counters["p90_ms"] = Percentile(ms, 0.9);
  state.counters["p99_ms"] = Percentile(ms, 0.99);
  state.counters["max_ms"] = *std::max_element(ms.begin(), ms.end());
  state.counters["mean_ms"] = mean;
  state.counters["refits"] = refits;
  state.counters["max_rss_mb"] = MaxRssMb();
}

void BM_GpSuggest(benchmark::State& state) { RunSuggest(state, 1); }
void BM_GpSuggestObjectives(benchmark::State& state) {
  RunSuggest(state, 1, true);
}
void BM_GpSuggestBatch8(benchmark::State& state) { RunSuggest(state, 8); }
// Arg 2: 1 defers refits to the engine's worker, 0 refits inline.
void BM_GpSuggestTail(benchmark::State& state) {
  RunSuggest(state, 1, false, state.range(2) == 1);
}

// Iterations: one refit interval (n / 10 calls) plus one, so the mean
// includes exactly one full fit; at n = 10,000 (a refit every 1,000 calls)
// a few calls show the steady state and the memory.
// A tiny space (Optuna's examples are often 2-D), beside 6-D.
BENCHMARK(BM_GpSuggest)
    ->Args({100, 2})
    ->Iterations(11)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpSuggest)
    ->Args({100, 6})
    ->Iterations(11)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpSuggest)
    ->Args({1000, 6})
    ->Iterations(101)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpSuggest)
    ->Args({10000, 6})
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Several objectives, one GP each: 3 objectives at 200 trials, 6-D, over
// one refit interval (20 calls) plus one.
BENCHMARK(BM_GpSuggestObjectives)
    ->Args({200, 6, 3})
    ->Iterations(21)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Each call adds 8 trials: refits every 2 calls at n = 100, every 13 at
// n = 1,000.
BENCHMARK(BM_GpSuggestBatch8)
    ->Args({100, 6})
    ->Iterations(6)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpSuggestBatch8)
    ->Args({1000, 6})
    ->Iterations(14)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Tail latency with refits inline and in the background, 6-D and 20-D, at
// n = 100, 300 and 1,000: 100 calls each (at least one refit interval, so
// every refit that falls due is paid as it really is).
BENCHMARK(BM_GpSuggestTail)
    ->ArgNames({"n", "d", "background"})
    ->ArgsProduct({{100, 300, 1000}, {6, 20}, {0, 1}})
    ->Iterations(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// n uniform points in [0, 1]^d with Objective's values, standardised.
algorithms::gp::TrainingData RandomData(int n, int d) {
  algorithms::gp::TrainingData data;
  data.kinds.assign(d, algorithms::FeatureKind::kContinuous);
  data.x.resize(n, d);
  data.y.resize(n);
  algorithms::SplitMix64 rng(7);
  for (int i = 0; i < n; ++i) {
    ParameterAssignment a;
    for (int j = 0; j < d; ++j) {
      data.x(i, j) = rng.NextUnit();
      a["x" + std::to_string(j)] = ParameterValue::Double(data.x(i, j));
    }
    data.y[i] = -Objective(a);
  }
  data.y = (data.y.array() - data.y.mean()) /
           std::sqrt((data.y.array() - data.y.mean()).square().mean());
  return data;
}

void BM_GpFit(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int d = static_cast<int>(state.range(1));
  const algorithms::gp::TrainingData data = RandomData(n, d);
  const algorithms::gp::HyperparameterPrior prior =
      algorithms::gp::MakePrior(d);
  // The warm start a refit gets: the fit of a slightly smaller history.
  algorithms::gp::HyperparameterFitOptions options;
  options.random_starts = 1;
  options.warm_start =
      algorithms::gp::FitHyperparameters(data, prior, {})->theta;
  int evaluations = 0;
  for (auto _ : state) {
    auto fit = algorithms::gp::FitHyperparameters(data, prior, options);
    if (!fit.ok()) {
      state.SkipWithError("fit failed");
      break;
    }
    evaluations = fit->evaluations;
  }
  state.counters["evaluations"] = evaluations;
}
BENCHMARK(BM_GpFit)->Args({50, 6})->Args({100, 6})->Args({300, 6})->Unit(
    benchmark::kMillisecond);

// MULTI_FIDELITY_GP's forecast before each suggestion
// (algorithms/gp/curve_model.h): n trials in 6-D, two of three stopped at
// step 4 of 24, each with its curve as the engine hands it. refit 1: a refit of
// the curve model warm-started from its saved hyperparameters (due when its
// rows grew by a tenth); refit 0: the saved hyperparameters, one factorisation
// (the calls in between).
void BM_ForecastStoppedTrials(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool refit = state.range(1) != 0;
  const StudySpec spec = Spec(6);
  algorithms::SplitMix64 rng(5);
  std::vector<Trial> trials(n);
  for (int i = 0; i < n; ++i) {
    Trial& t = trials[i];
    t.number = i + 1;
    t.state = TrialState::kSucceeded;
    double loss = 0;
    for (int k = 0; k < 6; ++k) {
      const double x = rng.NextUnit();
      t.parameters["x" + std::to_string(k)] = ParameterValue::Double(x);
      loss += (x - 0.3) * (x - 0.3);
    }
    t.stopped_early = i % 3 != 0;
    const int step = t.stopped_early ? 4 : 24;
    for (int s = 1; s <= step; ++s) {
      t.measurements.push_back(
          Measurement{.step = s, .metrics = {{kMetric, loss + 1.0 / s}}});
    }
    t.final_measurement = t.measurements.back();
  }
  algorithms::gp::GpState saved;
  (void)algorithms::gp::ForecastStoppedTrials(spec, trials, 1, saved);
  for (auto _ : state) {
    algorithms::gp::GpState fit = saved;
    if (refit) fit.fit_rows = 0;  // Due: a warm-started refit.
    auto read = algorithms::gp::ForecastStoppedTrials(spec, trials, 1, fit);
    if (!read.ok()) {
      state.SkipWithError(std::string(read.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(read->data());
  }
}
BENCHMARK(BM_ForecastStoppedTrials)
    ->ArgNames({"n", "refit"})
    ->Args({100, 1})
    ->Args({100, 0})
    ->Args({300, 1})
    ->Args({300, 0})
    ->Args({1000, 0})
    ->Unit(benchmark::kMillisecond);

// The GP fitted to n points, as the acquisition search uses it.
algorithms::gp::GaussianProcess FittedGp(int n, int d) {
  algorithms::gp::TrainingData data = RandomData(n, d);
  auto fit = algorithms::gp::FitHyperparameters(
      data, algorithms::gp::MakePrior(d), {});
  return *algorithms::gp::GaussianProcess::Create(std::move(data), fit->theta);
}

void BM_GpPredictBatch(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int d = static_cast<int>(state.range(1));
  const algorithms::gp::GaussianProcess gp = FittedGp(n, d);
  algorithms::SplitMix64 rng(11);
  algorithms::gp::RowMatrix xs(kPredictCandidates, d);
  for (Eigen::Index i = 0; i < xs.size(); ++i) xs.data()[i] = rng.NextUnit();
  Eigen::VectorXd mean, variance;
  for (auto _ : state) {
    gp.PredictBatch(xs, mean, variance);
    benchmark::DoNotOptimize(variance.data());
  }
}
BENCHMARK(BM_GpPredictBatch)
    ->ArgNames({"n", "d"})
    ->ArgsProduct({{100, 300}, {2, 6}})
    ->Unit(benchmark::kMillisecond);

void BM_GpPredictWithGradient(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int d = static_cast<int>(state.range(1));
  const algorithms::gp::GaussianProcess gp = FittedGp(n, d);
  algorithms::SplitMix64 rng(11);
  std::vector<double> x(d), d_mean(d), d_variance(d);
  for (auto _ : state) {
    for (double& v : x) v = rng.NextUnit();
    benchmark::DoNotOptimize(gp.PredictWithGradient(x, d_mean, d_variance));
  }
}
BENCHMARK(BM_GpPredictWithGradient)
    ->ArgNames({"n", "d"})
    ->ArgsProduct({{100, 300}, {2, 6}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace hptune

BENCHMARK_MAIN();
