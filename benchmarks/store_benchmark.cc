// Store throughput: durable measurement writes, trial and study reads, for
// SqliteStore on a file and MemoryStore. Run with `make bench`.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "src/store/memory_store.h"
#include "src/store/sqlite_store.h"

namespace hptune {
namespace {

StudyRecord BenchStudy() {
  StudyRecord study;
  study.name = "bench";
  study.spec.search_space = SearchSpace({{.name = "x",
                                          .type = ParameterType::kDouble,
                                          .min_value = 0,
                                          .max_value = 1}});
  study.spec.SetSingleMetric("m");
  study.spec.max_trials = 1000000;
  return study;
}

std::unique_ptr<store::Store> MakeStore(bool sqlite, std::string* dir) {
  if (!sqlite)
    return std::make_unique<store::MemoryStore>(hptune::SystemClock());
  std::string pattern = "/tmp/hptune_bench_XXXXXX";
  *dir = mkdtemp(pattern.data());
  return *store::SqliteStore::Open(*dir + "/bench.db", hptune::SystemClock());
}

// Adds trials ACTIVE trials to the bench study.
void AddActiveTrials(store::Store& s, int trials) {
  std::vector<Trial> batch(trials);
  for (Trial& t : batch) {
    t.parameters = {{"x", ParameterValue::Double(0.5)}};
    t.state = TrialState::kActive;
  }
  (void)s.AddTrials("bench", batch, std::nullopt);
}

void BM_AddMeasurement(benchmark::State& state) {
  std::string dir;
  auto s = MakeStore(state.range(0) == 1, &dir);
  (void)s->CreateStudy(BenchStudy());
  AddActiveTrials(*s, 1);
  int64_t step = 0;
  for (auto _ : state) {
    Measurement m{.step = ++step, .metrics = {{"m", 0.5}}};
    benchmark::DoNotOptimize(s->AddMeasurement("bench", 1, m));
  }
  state.SetItemsProcessed(state.iterations());
  s.reset();
  if (!dir.empty()) std::filesystem::remove_all(dir);
}
BENCHMARK(BM_AddMeasurement)->ArgName("sqlite")->Arg(0)->Arg(1);

void BM_ListTrials(benchmark::State& state) {
  std::string dir;
  auto s = MakeStore(state.range(0) == 1, &dir);
  (void)s->CreateStudy(BenchStudy());
  AddActiveTrials(*s, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(s->ListTrials("bench"));
  }
  s.reset();
  if (!dir.empty()) std::filesystem::remove_all(dir);
}
BENCHMARK(BM_ListTrials)
    ->ArgNames({"sqlite", "trials"})
    ->Args({0, 100})
    ->Args({1, 100})
    ->Args({1, 1000});

// One study's row and its spec, as GetStudy, SuggestTrials and
// CompleteTrial read it.
void BM_GetStudy(benchmark::State& state) {
  std::string dir;
  auto s = MakeStore(state.range(0) == 1, &dir);
  (void)s->CreateStudy(BenchStudy());
  for (auto _ : state) {
    benchmark::DoNotOptimize(s->GetStudy("bench"));
  }
  s.reset();
  if (!dir.empty()) std::filesystem::remove_all(dir);
}
BENCHMARK(BM_GetStudy)->ArgName("sqlite")->Arg(0)->Arg(1);

}  // namespace
}  // namespace hptune

BENCHMARK_MAIN();
