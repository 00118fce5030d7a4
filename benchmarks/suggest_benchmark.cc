// Time for the engine to produce one suggestion after n completed trials, per
// designer, on an in-memory store (designer + engine cost, no disk); and
// what reading a define-by-run study's branches adds to each suggestion.
#include <benchmark/benchmark.h>

#include "hptune/algorithms/inferred_branches.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"

namespace hptune {
namespace {

StudySpec SixDimensional(Algorithm algorithm) {
  StudySpec spec;
  std::vector<ParameterSpec> params;
  for (int i = 0; i < 6; ++i) {
    params.push_back({.name = "x" + std::to_string(i),
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 1});
  }
  spec.search_space = SearchSpace(params);
  spec.SetSingleMetric("m");
  spec.max_trials = 1'000'000;
  spec.max_parallel_trials = kMaxParallelTrials;
  spec.algorithm = algorithm;
  spec.seed = 1;
  return spec;
}

void BM_Suggest(benchmark::State& state) {
  store::MemoryStore store{hptune::SystemClock()};
  engine::TuningEngine engine(store, hptune::SystemClock());
  auto algorithm = static_cast<Algorithm>(state.range(0));
  if (auto created = engine.CreateStudy("s", SixDimensional(algorithm));
      !created.ok()) {
    state.SkipWithError(std::string(created.status().message()).c_str());
    return;
  }
  for (int64_t i = 0; i < state.range(1); ++i) {
    auto t = engine.SuggestTrials("s", 1, "c")->trials.front();
    (void)engine.CompleteTrial("s", t.number,
                               Measurement{.step = 1, .metrics = {{"m", 0.5}}});
  }
  for (auto _ : state) {
    auto t = engine.SuggestTrials("s", 1, "c")->trials.front();
    state.PauseTiming();
    (void)engine.CompleteTrial("s", t.number,
                               Measurement{.step = 1, .metrics = {{"m", 0.5}}});
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Suggest)
    ->ArgNames({"algorithm", "n"})
    ->Args({static_cast<int>(Algorithm::kRandomSearch), 100})
    ->Args({static_cast<int>(Algorithm::kRandomSearch), 1000})
    ->Args({static_cast<int>(Algorithm::kQuasiRandomSearch), 100})
    ->Args({static_cast<int>(Algorithm::kQuasiRandomSearch), 1000})
    ->Unit(benchmark::kMicrosecond);

// A define-by-run study of `kinds` branches with two parameters each, and
// `n` SUCCEEDED trials that took the branches in turn: what the engine
// does before each of its suggestions (TuningEngine::SuggestTrials): infer
// the tree, copy the trials, keep their active parameters.
void BM_InferBranches(benchmark::State& state) {
  const int kinds = static_cast<int>(state.range(0));
  ParameterSpec kind{
      .name = "kind", .type = ParameterType::kCategorical, .first_trial = 1};
  for (int k = 0; k < kinds; ++k) {
    kind.categorical_values.push_back("k" + std::to_string(k));
  }
  std::vector<ParameterSpec> params = {kind};
  for (int k = 0; k < 2 * kinds; ++k) {
    params.push_back({.name = "p" + std::to_string(k),
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 1,
                      .first_trial = 1 + k / 2});
  }
  std::vector<Trial> trials(state.range(1));
  for (size_t i = 0; i < trials.size(); ++i) {
    const int k = static_cast<int>(i) % kinds;
    trials[i].number = static_cast<int64_t>(i) + 1;
    trials[i].state = TrialState::kSucceeded;
    trials[i].parameters = {
        {"kind", ParameterValue::Categorical(kind.categorical_values[k])},
        {"p" + std::to_string(2 * k), ParameterValue::Double(0.5)},
        {"p" + std::to_string(2 * k + 1), ParameterValue::Double(0.5)}};
  }
  const SearchSpace space(params);
  for (auto _ : state) {
    std::optional<SearchSpace> tree = algorithms::InferBranches(space, trials);
    std::vector<Trial> seen = trials;
    algorithms::KeepActiveParameters(*tree, seen);
    benchmark::DoNotOptimize(seen);
  }
}
BENCHMARK(BM_InferBranches)
    ->ArgNames({"kinds", "n"})
    ->Args({3, 100})
    ->Args({3, 1000})
    ->Args({10, 1000})
    ->Args({10, 10000})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace hptune

BENCHMARK_MAIN();
