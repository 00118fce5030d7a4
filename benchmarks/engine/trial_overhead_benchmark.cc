// Engine overhead per trial: what hptune adds to a trial beyond its
// processes' own start-up.
//
// BM_JobTrials runs a whole job through the JobRunner (SQLite file, local
// launcher) whose trainer exits at once: every trial is suggest, reserve
// ports, launch 4 replicas (1 master, 2 workers, 1 parameter server), collect
// their exits, stop, record. BM_LaunchOnly starts and reaps the same 4
// processes through the launcher alone. The difference of the two per-trial
// times is the engine's overhead. BM_LaunchOnlyContainer is BM_LaunchOnly
// with each replica in an OCI container (podman, the tests' image).
// BM_JobTrialsSlurm/N is BM_JobTrials with the Slurm launcher (N trials a
// job: a job's allocation and its release are shared by N trials) on the
// test cluster of scripts/start-slurm (SLURM_CONF, else that
// cluster's config): the trials as srun steps of one reused allocation;
// BM_JobTrialsSlurmPerTrial the same with a batch job per trial. Both report
// an error and skip when no cluster answers. BM_TrialGap measures how soon
// the next trial starts after a master exits. `make bench` runs it; figures
// are in benchmarks/RESULTS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/launch/replica_env.h"
#include "hptune/launch/slurm_launcher.h"
#include "hptune/runner/job_runner.h"
#include "src/store/sqlite_store.h"

namespace {

using namespace hptune;  // NOLINT: a benchmark program.

constexpr char kConfig[] = R"(trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerType: n1-standard-4
  workerCount: 2
  parameterServerType: n1-standard-4
  parameterServerCount: 1
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 20
    maxParallelTrials: 1
    algorithm: RANDOM_SEARCH
    params:
    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}
)";

std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() /
             absl::StrCat("hptune_overhead_", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

JobSpec TrueJob(const std::string& id) {
  JobSpec job = *ParseJobConfig(kConfig, ConfigFormat::kYaml, id).job;
  // A trial whose master reports no objective fails: each replica prints
  // it and exits (the hyperparameter flags go to sh as $0 and on).
  job.command = {"sh", "-c", "echo loss=0.5"};
  return job;
}

// Runs one job of `trials_per_job` trials of TrueJob per iteration through
// `launcher` and reports the wall time per trial.
void RunJobs(benchmark::State& state, launch::Launcher& launcher,
             const std::string& job_prefix, int trials_per_job) {
  const std::filesystem::path dir = TempDir();
  auto store = *store::SqliteStore::Open((dir / "hptune.db").string(),
                                         hptune::SystemClock());
  engine::TuningEngine engine(*store, hptune::SystemClock());
  runner::JobRunnerOptions options;
  options.runs_dir = dir / "runs";
  int jobs = 0;
  int64_t trials = 0;
  for (auto _ : state) {
    JobSpec job = TrueJob(absl::StrCat(job_prefix, ++jobs));
    if (trials_per_job > 0) job.study->max_trials = trials_per_job;
    runner::JobRunner runner(*store, engine, launcher, options,
                             hptune::DefaultEnv());
    if (!runner.Submit(job).ok()) state.SkipWithError("submit failed");
    auto record = runner.Run(job);
    if (!record.ok() || record->state != JobState::kSucceeded) {
      state.SkipWithError("the job did not succeed");
    }
    trials += job.study->max_trials;
  }
  // Seconds of wall time per trial (printed with an SI prefix: 5.1m = 5.1 ms).
  state.counters["per_trial"] = benchmark::Counter(
      static_cast<double>(trials),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  std::filesystem::remove_all(dir);
}

void BM_JobTrials(benchmark::State& state) {
  launch::LocalLauncher launcher(
      launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  RunJobs(state, launcher, "job", 0);
}
BENCHMARK(BM_JobTrials)->Unit(benchmark::kMillisecond)->UseRealTime();

// A job of state.range(0) trials an iteration through the Slurm launcher in
// `allocation` mode; an error and a skip when no cluster answers.
void JobTrialsSlurm(benchmark::State& state,
                    launch::SlurmAllocation allocation) {
  if (std::getenv("SLURM_CONF") == nullptr &&
      std::filesystem::exists("/tmp/hptune-slurm/etc/slurm.conf")) {
    setenv("SLURM_CONF", "/tmp/hptune-slurm/etc/slurm.conf", 1);
  }
  auto launcher = launch::SlurmLauncher::Create(
      launch::SlurmOptions{.allocation = allocation});
  if (!launcher.ok()) {
    state.SkipWithError(
        absl::StrCat("no Slurm cluster: ", launcher.status().message())
            .c_str());
    for (auto _ : state) {
    }
    return;
  }
  RunJobs(
      state, **launcher,
      absl::StrCat(
          "slurm_",
          allocation == launch::SlurmAllocation::kPerLane ? "lane" : "trial",
          "_", ::getpid(), "_"),
      static_cast<int>(state.range(0)));
}

// Each job's trials reuse one allocation (the default).
void BM_JobTrialsSlurm(benchmark::State& state) {
  JobTrialsSlurm(state, launch::SlurmAllocation::kPerLane);
}
BENCHMARK(BM_JobTrialsSlurm)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(5)
    ->Arg(20)
    ->Iterations(2);

// A batch job per trial.
void BM_JobTrialsSlurmPerTrial(benchmark::State& state) {
  JobTrialsSlurm(state, launch::SlurmAllocation::kPerTrial);
}
BENCHMARK(BM_JobTrialsSlurmPerTrial)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(5)
    ->Iterations(2);

// Starts and reaps the replicas of `job`, trial after trial, through the
// local launcher alone.
void LaunchOnly(benchmark::State& state, const JobSpec& job) {
  const std::filesystem::path dir = TempDir();
  // Replicas run in their trial's directory, which the job runner makes.
  std::filesystem::create_directories(dir / "trial");
  launch::LocalLauncher launcher(
      launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  const auto requests = launch::ReplicaRequests(job);
  int64_t trials = 0;
  for (auto _ : state) {
    auto placement = *launcher.Reserve(requests);
    launch::TrialContext context{
        .job = &job,
        .training_input_json = "{}",
        .trial = ++trials,
        .parameters = {{"x", ParameterValue::Double(0.5)}},
        .metric_tag = "loss",
        .job_dir = dir / "job-dir",
        .trial_dir = dir / "trial"};
    auto launch =
        *launch::BuildTrialLaunch(context, requests, placement->replicas());
    auto run = *launcher.Start(launch);
    size_t ended = 0;
    while (ended < launch.replicas.size()) {
      ended += run->Poll()->size();
      if (ended < launch.replicas.size()) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    run->Terminate(std::chrono::milliseconds(0));
  }
  state.counters["per_trial"] = benchmark::Counter(
      static_cast<double>(trials),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  std::filesystem::remove_all(dir);
}

void BM_LaunchOnly(benchmark::State& state) {
  LaunchOnly(state, TrueJob("launch_only"));
}
BENCHMARK(BM_LaunchOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

// BM_LaunchOnly with every replica in a container: `podman run` of the
// tests' image (tests/testdata/containers/build_test_image.sh) whose
// command is `sh -c "exit 0"`. The difference of the two per-trial times
// is what a container adds to a trial of 4 replicas started together.
void BM_LaunchOnlyContainer(benchmark::State& state) {
  const std::string image = "localhost/hptune-test/python:1";
  if (std::system(("podman image exists " + image).c_str()) != 0) {
    state.SkipWithError(
        "no podman, or no image localhost/hptune-test/python:1 "
        "(tests/testdata/containers/build_test_image.sh)");
    return;
  }
  JobSpec job = TrueJob("launch_container");
  job.command.clear();
  const ContainerSpec container{.image_uri = image,
                                .command = {"/bin/sh", "-c", "exit 0"}};
  for (TaskPool* pool : {&job.master, &job.worker, &job.parameter_server}) {
    pool->container = container;
  }
  LaunchOnly(state, job);
}
BENCHMARK(BM_LaunchOnlyContainer)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(10);

// The gap between one trial's master exiting and the next trial's master
// starting: a job of 20 sequential trials whose only replica is
// stamp_trainer, which records the time it started and the time it exits.
// Each gap is trial n+1's start minus trial n's exit, so it holds
// everything the runner does in between (seeing the exit, stopping the
// trial, storing it, suggesting and launching the next) plus the next
// process's exec, about a millisecond. Reported: the median and the largest
// gap over every trial pair of every iteration.
constexpr char kGapConfig[] = R"(trainingInput:
  scaleTier: BASIC
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 20
    maxParallelTrials: 1
    algorithm: RANDOM_SEARCH
    params:
    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}
)";

long long ReadStamp(const std::filesystem::path& path) {
  std::ifstream in(path);
  long long nanos = -1;
  in >> nanos;
  return nanos;
}

void BM_TrialGap(benchmark::State& state) {
  const std::filesystem::path dir = TempDir();
  auto store = *store::SqliteStore::Open((dir / "hptune.db").string(),
                                         hptune::SystemClock());
  engine::TuningEngine engine(*store, hptune::SystemClock());
  launch::LocalLauncher launcher(
      launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  runner::JobRunnerOptions options;
  options.runs_dir = dir / "runs";
  std::vector<double> gaps_ms;
  int jobs = 0;
  for (auto _ : state) {
    const std::filesystem::path stamps = dir / absl::StrCat("stamps", ++jobs);
    std::filesystem::create_directories(stamps);
    JobSpec job = *ParseJobConfig(kGapConfig, ConfigFormat::kYaml,
                                  absl::StrCat("gap", jobs))
                       .job;
    job.command = {HPTUNE_STAMP_TRAINER,
                   absl::StrCat("--stamp-dir=", stamps.string())};
    runner::JobRunner runner(*store, engine, launcher, options,
                             hptune::DefaultEnv());
    if (!runner.Submit(job).ok()) state.SkipWithError("submit failed");
    auto record = runner.Run(job);
    if (!record.ok() || record->state != JobState::kSucceeded) {
      state.SkipWithError("the job did not succeed");
      break;
    }
    for (int n = 1; n < job.study->max_trials; ++n) {
      const long long exited = ReadStamp(stamps / absl::StrCat(n, ".exit"));
      const long long next = ReadStamp(stamps / absl::StrCat(n + 1, ".start"));
      if (exited < 0 || next < 0) {
        state.SkipWithError("a stamp is missing");
        break;
      }
      gaps_ms.push_back(static_cast<double>(next - exited) / 1e6);
    }
  }
  if (!gaps_ms.empty()) {
    std::sort(gaps_ms.begin(), gaps_ms.end());
    state.counters["gap_median_ms"] = gaps_ms[gaps_ms.size() / 2];
    state.counters["gap_p90_ms"] = gaps_ms[gaps_ms.size() * 9 / 10];
    state.counters["gap_max_ms"] = gaps_ms.back();
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TrialGap)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
