// Time for the engine to produce one suggestion after n completed trials, per
// designer, on an in-memory store (designer + engine cost, no disk).
#include <benchmark/benchmark.h>

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

}  // namespace
}  // namespace hptune

BENCHMARK_MAIN();
