// Reading a submitted job in the server: a TrainingInput read field by
// field (api::JobSpecFromProto), beside parsing the same job's canonical
// JSON (ParseJobConfig), the text path a request once took. The job is
// examples/configs/conditional.yaml. Run with `make bench`.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "hptune/core/config.h"
#include "src/api/conversion.h"

namespace hptune {
namespace {

JobSpec ExampleJob() {
  std::ifstream file(HPTUNE_SOURCE_DIR "/examples/configs/conditional.yaml");
  std::stringstream text;
  text << file.rdbuf();
  ConfigParseResult parsed =
      ParseJobConfig(text.str(), ConfigFormat::kYaml, "conditional");
  if (!parsed.job) std::abort();
  return *parsed.job;
}

void BM_JobSpecFromProto(benchmark::State& state) {
  const v1::TrainingInput proto = api::JobSpecToProto(ExampleJob());
  for (auto _ : state) {
    absl::StatusOr<JobSpec> job = api::JobSpecFromProto(proto, "conditional");
    if (!job.ok()) state.SkipWithError("the proto did not read");
    benchmark::DoNotOptimize(job);
  }
}
BENCHMARK(BM_JobSpecFromProto);

void BM_ParseJobConfigJson(benchmark::State& state) {
  const std::string json = TrainingInputToJson(ExampleJob());
  for (auto _ : state) {
    ConfigParseResult parsed =
        ParseJobConfig(json, ConfigFormat::kJson, "conditional");
    if (!parsed.job) state.SkipWithError("the JSON did not parse");
    benchmark::DoNotOptimize(parsed);
  }
}
BENCHMARK(BM_ParseJobConfigJson);

}  // namespace
}  // namespace hptune

BENCHMARK_MAIN();
