// `hptune run`, the binary, on the project's example trainers and on
// dump_trainer.py: whole jobs of real processes into a SQLite file.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kSource = HPTUNE_SOURCE_DIR;

// Writes dir/config.yaml for tests/launch/testdata/dump_trainer.py, whose
// replicas record what they saw under dir/dumps and then sleep until
// stopped; `scale_tier` "" keeps the default (one master).
std::string WriteSleepingTrainerConfig(const std::string& dir,
                                       const std::string& scale_tier,
                                       int max_trials, int max_parallel) {
  const std::string config = dir + "/config.yaml";
  std::ofstream out(config);
  out << "trainingInput:\n";
  if (!scale_tier.empty()) out << "  scaleTier: " << scale_tier << "\n";
  out << "  command: [python3, " << kSource
      << "/tests/launch/testdata/dump_trainer.py]\n"
         "  hyperparameters:\n"
         "    maxTrials: "
      << max_trials << "\n    maxParallelTrials: " << max_parallel
      << "\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  setenv("DUMP_DIR", (dir + "/dumps").c_str(), 1);
  setenv("DUMP_SLEEP", "forever", 1);
  std::filesystem::create_directories(dir + "/dumps");
  return config;
}

// `hptune run` on examples/<example>/config.yaml, quietly, with its
// database (h.db), logs (runs) and job directories (job) under `dir`;
// `trainer_args` go to every replica after "--".
testing::ProcessResult RunExample(
    const std::string& dir, const std::string& example,
    const std::string& job_id, int max_trials,
    const std::vector<std::string>& trainer_args = {}) {
  std::vector<std::string> argv = {
      kHptune,
      "run",
      kSource + "/examples/" + example + "/config.yaml",
      "--job-id",
      job_id,
      "--max-trials",
      std::to_string(max_trials),
      "--db",
      dir + "/h.db",
      "--runs-dir",
      dir + "/runs",
      "--job-dir",
      dir + "/job",
      "--quiet"};
  if (!trainer_args.empty()) {
    argv.push_back("--");
    argv.insert(argv.end(), trainer_args.begin(), trainer_args.end());
  }
  return RunProcess(argv);
}

TEST(RunCliTest, StdlibExampleRunsADistributedJobEndToEnd) {
  const std::string dir = testing::MakeTempDir();
  auto result = RunExample(dir, "stdlib_trainer", "stdlib", 3);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::CountOccurrences(result.out, "SUCCEEDED"), 3)
      << result.out;
  EXPECT_THAT(result.out, HasSubstr("best trial: "));
  EXPECT_THAT(result.err, HasSubstr("job stdlib SUCCEEDED"));
  // The parameter server checkpoints under each trial's --job-dir.
  EXPECT_TRUE(std::filesystem::exists(dir + "/job/1/checkpoint.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/runs/stdlib/2/ps-0.log"));

  // The results are in the database for the other commands.
  auto trials = RunProcess({kHptune, "trials", "list", "--study", "stdlib",
                            "--db", dir + "/h.db", "--format", "json"});
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  auto parsed = nlohmann::json::parse(trials.out);
  ASSERT_EQ(parsed.size(), 3u);
  EXPECT_TRUE(parsed[0]["finalMetric"].contains("objectiveValue"));
}

// examples/sklearn_trainer: a scikit-learn random forest, one process per
// trial, its cross-validated accuracy reported after each of 5 folds.
TEST(RunCliTest, SklearnExampleTunesARandomForest) {
  if (RunProcess({"/usr/bin/python3", "-c", "import sklearn"}).exit_code != 0) {
    GTEST_SKIP() << "scikit-learn is not installed for /usr/bin/python3 "
                    "(Debian's python3-sklearn; scripts/setup installs it)";
  }
  const std::string dir = testing::MakeTempDir();
  auto result = RunExample(dir, "sklearn_trainer", "rf", 3);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::CountOccurrences(result.out, "SUCCEEDED"), 3)
      << result.out;
  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  for (int64_t number = 1; number <= 3; ++number) {
    auto trial = (*store)->GetTrial("rf", number);
    ASSERT_OK(trial);
    ASSERT_TRUE(trial->final_measurement.has_value());
    EXPECT_EQ(trial->final_measurement->step, 5);  // One report per fold.
    // A forest of depth 1 scores about 0.92 on this data; chance is 0.63.
    EXPECT_GT(trial->final_measurement->metrics.at("accuracy"), 0.85);
    EXPECT_EQ(trial->parameters.count("criterion"), 1u);
  }
}

TEST(RunCliTest, PytorchDdpExampleTrainsWithTwoRanks) {
  if (RunProcess({"/usr/bin/python3", "-c", "import torch"}).exit_code != 0) {
    GTEST_SKIP() << "torch is not installed for /usr/bin/python3 (Debian's "
                    "python3-torch; scripts/setup installs it)";
  }
  const std::string dir = testing::MakeTempDir();
  auto result = RunExample(dir, "pytorch_ddp", "ddp", 1, {"--epochs=2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(testing::CountOccurrences(result.out, "SUCCEEDED"), 1)
      << result.out;
  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto trial = (*store)->GetTrial("ddp", 1);
  ASSERT_OK(trial);
  ASSERT_TRUE(trial->final_measurement.has_value());
  EXPECT_EQ(trial->final_measurement->step, 2);  // One report per epoch.
  EXPECT_GT(trial->final_measurement->metrics.at("accuracy"), 0.0);
}

TEST(RunCliTest, InvalidFlagsAreRejectedWithTheFlagAndValue) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = kSource + "/examples/stdlib_trainer/config.yaml";
  auto zero = RunProcess(
      {kHptune, "run", config, "--max-trials", "0", "--db", dir + "/h.db"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err,
              HasSubstr("--max-trials: expected an integer >= 1, got \"0\""));
  auto gpus = RunProcess(
      {kHptune, "run", config, "--gpus", "T4:x", "--db", dir + "/h.db"});
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_THAT(gpus.err, HasSubstr("--gpus: GPU spec \"T4:x\""));
  auto missing = RunProcess({kHptune, "run", dir + "/nope.yaml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.yaml"));
}

TEST(RunCliTest, InterruptCancelsTheJobAndStopsEveryReplica) {
  const std::string dir = testing::MakeTempDir();
  const std::string config =
      WriteSleepingTrainerConfig(dir, "STANDARD_1", 4, 2);
  setenv("DUMP_PER_TRIAL", "1", 1);
  const pid_t pid = testing::StartProcess(
      {kHptune, "run", config, "--job-id", "interrupted", "--db", dir + "/h.db",
       "--runs-dir", dir + "/runs", "--grace-seconds", "1", "--quiet"},
      dir + "/out", dir + "/err");

  // STANDARD_1: 1 master, 4 workers, 3 parameter servers; two trials.
  auto dumps = [&] {
    std::vector<nlohmann::json> all;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(dir + "/dumps")) {
      if (e.path().extension() == ".json") {
        all.push_back(nlohmann::json::parse(std::ifstream(e.path())));
      }
    }
    return all;
  };
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (dumps().size() < 16 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(dumps().size(), 16u);
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);

  for (const auto& dump : dumps()) {
    const int pgid = dump["pgid"].get<int>();
    EXPECT_TRUE(kill(-pgid, 0) == -1 && errno == ESRCH)
        << dump["name"] << " left process group " << pgid;
  }
  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto job = (*store)->GetJob("interrupted");
  ASSERT_OK(job);
  EXPECT_EQ(job->state, JobState::kCancelled);
  auto trials = (*store)->ListTrials("interrupted");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) EXPECT_EQ(t.state, TrialState::kCancelled);
}

TEST(RunCliTest, AJobPastItsMaxRunningTimeIsCancelledAndExits1) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteSleepingTrainerConfig(dir, "", 3, 3);
  std::ofstream(config, std::ios::app)
      << "  scheduling: {maxRunningTime: 2s}\n";
  // Finite: without the limit the job succeeds and the test fails.
  setenv("DUMP_SLEEP", "20", 1);
  testing::ProcessResult result = RunProcess(
      {kHptune, "run", config, "--job-id", "limited", "--db", dir + "/h.db",
       "--runs-dir", dir + "/runs", "--grace-seconds", "1", "--quiet"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("hptune run: job limited CANCELLED: "
                                    "maxRunningTime (2s) reached: the job "
                                    "has run since "));
  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto job = (*store)->GetJob("limited");
  ASSERT_OK(job);
  EXPECT_EQ(job->state, JobState::kCancelled);
  auto trials = (*store)->ListTrials("limited");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 3u);
  for (const Trial& t : *trials) {
    EXPECT_EQ(t.state, TrialState::kCancelled);
    EXPECT_THAT(t.reason, HasSubstr("maxRunningTime (2s) reached"));
  }
}

// A server resumes every unfinished job of its database: `hptune run` must
// not run jobs on a database a server holds, nor may a server start on one
// where a run is going (Store::AcquireRunnerLease).
TEST(RunCliTest, RunsAndAServerNeverShareADatabase) {
  const std::string config = kSource + "/examples/stdlib_trainer/config.yaml";
  {
    testing::ServeProcess server(testing::MakeTempDir());
    std::string error;
    ASSERT_TRUE(server.Start(&error)) << error;
    auto refused = RunProcess({kHptune, "run", config, "--db", server.db()});
    EXPECT_EQ(refused.exit_code, 75);
    EXPECT_EQ(refused.err,
              "hptune run: database \"" + server.db() +
                  "\" is served by hptune serve (lock file \"" + server.db() +
                  ".serve-lock\"): submit the job to the server with `hptune "
                  "jobs submit`, or run it on another --db\n");
    EXPECT_EQ(server.Stop(SIGTERM), 0);
  }
  // A database that cannot be made is a bad --db, not a busy one: the
  // store is opened before its runner lease is asked for.
  auto nowhere =
      RunProcess({kHptune, "run", config, "--db", "/nonexistent/dir/h.db"});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.err,
              HasSubstr("store \"/nonexistent/dir/h.db\": cannot open"));

  // A run whose trainers sleep holds the database while the server tries.
  const std::string dir = testing::MakeTempDir();
  const std::string sleepy = WriteSleepingTrainerConfig(dir, "", 1, 1);
  const std::string db = dir + "/h.db";
  const pid_t pid =
      testing::StartProcess({kHptune, "run", sleepy, "--db", db, "--runs-dir",
                             dir + "/runs", "--grace-seconds", "1", "--quiet"},
                            dir + "/out", dir + "/err");
  // A run takes its lock before it starts trials, so a trainer's dump
  // shows the lock held. (Probing with an exclusive flock would race: a run
  // that starts while the probe holds it sees a server and exits 75.)
  const bool started = testing::PollUntil(
      [&] {
        for (const auto& e :
             std::filesystem::directory_iterator(dir + "/dumps")) {
          if (e.path().extension() == ".json") return true;
        }
        return false;
      },
      std::chrono::seconds(30));
  ASSERT_TRUE(started);
  auto served = RunProcess(
      {kHptune, "serve", "--listen", "127.0.0.1:0", "--db", db, "--gpus", "0"});
  EXPECT_EQ(served.exit_code, 1);
  EXPECT_EQ(served.err, "hptune serve: database \"" + db +
                            "\" is in use by hptune run (lock file \"" + db +
                            ".serve-lock\"); serve it once those runs end, or "
                            "serve another --db\n");
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130);
}

}  // namespace
}  // namespace hptune
