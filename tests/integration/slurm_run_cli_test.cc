// `hptune run --backend slurm`, the binary, on the Slurm test cluster of
// scripts/start-slurm (started by ctest's slurm_cluster fixture): the
// stdlib example end to end, and a runner killed mid-job that is run again
// and reattaches to its Slurm job instead of launching the trial twice.
// The cluster tests skip, saying why, only where the cluster cannot run.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/launch/capture_output.h"
#include "tests/launch/slurm/slurm_cluster.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

extern char** environ;

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kSource = HPTUNE_SOURCE_DIR;
constexpr auto kDeadline = std::chrono::seconds(60);

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// squeue's "<id> <state>" lines of the jobs named `name`.
std::vector<std::string> QueuedJobs(const std::string& name) {
  return testing_slurm::QueuedJobs(name, "%A %T");
}

class SlurmRunCliTest : public testing_slurm::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    dir_ = testing::MakeTempDir();
  }
  std::string dir_;
};

TEST_F(SlurmRunCliTest, StdlibExampleOnSlurmPrintsTheSameTableAsLocal) {
  auto run = [&](const std::string& backend) {
    std::vector<std::string> argv = {
        kHptune,
        "run",
        kSource + "/examples/stdlib_trainer/config.yaml",
        "--backend",
        backend,
        "--job-id",
        "stdlib_" + backend,
        "--max-trials",
        "2",
        "--max-parallel-trials",
        "2",
        "--db",
        dir_ + "/" + backend + ".db",
        "--runs-dir",
        dir_ + "/runs",
        "--job-dir",
        dir_ + "/job_" + backend,
        "--quiet"};
    if (backend == "slurm") {
      // Two tasks a node: the master and a worker on n1 (127.0.0.1), the
      // other worker and the ps on n2 (127.0.0.2).
      argv.push_back("--slurm-option=--ntasks-per-node=2");
    }
    return RunProcess(argv);
  };
  auto slurm = run("slurm");
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  auto local = run("local");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  // The same table: the same columns, a SUCCEEDED row per trial, the best.
  std::vector<std::string> slurm_lines = Lines(slurm.out);
  std::vector<std::string> local_lines = Lines(local.out);
  ASSERT_GE(slurm_lines.size(), 3u) << slurm.out;
  // Column widths follow the values; the columns are the same.
  auto words = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  EXPECT_EQ(words(slurm_lines[0]), words(local_lines[0]));
  EXPECT_EQ(slurm_lines.size(), local_lines.size());
  EXPECT_THAT(slurm_lines[1], HasSubstr("SUCCEEDED"));
  EXPECT_THAT(slurm_lines[2], HasSubstr("SUCCEEDED"));
  EXPECT_THAT(slurm.out, HasSubstr("best trial: "));
  EXPECT_THAT(slurm.err, HasSubstr("job stdlib_slurm SUCCEEDED"));
  // The replicas ran as Slurm tasks on both nodes and talked over the
  // nodes' addresses: the parameter server checkpointed after synchronous
  // SGD with the master and both workers.
  EXPECT_TRUE(fs::exists(dir_ + "/job_slurm/1/checkpoint.json"));
  // Each trial ran in an allocation the job's lanes reused (the default),
  // released when the job ended.
  EXPECT_TRUE(fs::exists(dir_ + "/runs/stdlib_slurm/1/slurm/1/allocation"));
  EXPECT_EQ(ReadFile(dir_ + "/runs/stdlib_slurm/1/slurm/1/hosts"),
            "127.0.0.1\n127.0.0.1\n127.0.0.2\n127.0.0.2\n");
  EXPECT_THAT(QueuedJobs("hptune.stdlib_slurm.allocation"),
              ::testing::SizeIs(0));
}

// Spawns the binary without waiting; its output goes to `log`.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// A batch job per trial (--slurm-allocation=per-trial) outlives its runner.
TEST_F(SlurmRunCliTest, ARunnerKilledMidJobReattachesInsteadOfRelaunching) {
  const std::string config = dir_ + "/job.yaml";
  testing_slurm::WriteReattachJob(
      config, kSource + "/tests/launch/testdata/dump_trainer.py");
  const std::string dumps = dir_ + "/dumps";
  fs::create_directories(dumps);
  const testing_slurm::DumpTrainerEnvironment dump_settings(dumps, "4", "0.75");
  const std::vector<std::string> argv = {kHptune,
                                         "run",
                                         config,
                                         "--job-id",
                                         "resumed",
                                         "--db",
                                         dir_ + "/h.db",
                                         "--runs-dir",
                                         dir_ + "/runs",
                                         "--quiet",
                                         "--slurm-allocation=per-trial"};
  pid_t first = Spawn(argv, dir_ + "/first.log");
  ASSERT_GT(first, 0);
  // Once the master runs inside its Slurm job, the runner dies hard.
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!fs::exists(dumps + "/master-0.json") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(fs::exists(dumps + "/master-0.json"))
      << ReadFile(dir_ + "/first.log");
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  ASSERT_THAT(QueuedJobs("hptune.resumed.1"), ::testing::SizeIs(1));

  auto second = RunProcess(argv);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.err, HasSubstr("resuming job resumed (RUNNING)"));
  EXPECT_THAT(second.out, HasSubstr("SUCCEEDED"));
  EXPECT_THAT(second.out, HasSubstr("0.75"));
  // One start per replica: the second runner attached to the first's job.
  EXPECT_EQ(ReadFile(dumps + "/master-0.starts"), "1");
  EXPECT_EQ(ReadFile(dumps + "/worker-0.starts"), "1");
  EXPECT_FALSE(fs::exists(dir_ + "/runs/resumed/1/slurm/2"));
  // The master's one report is stored once, though both runners read it.
  auto trial =
      RunProcess({kHptune, "trials", "describe", "1", "--study", "resumed",
                  "--db", dir_ + "/h.db", "--format", "json"});
  ASSERT_EQ(trial.exit_code, 0) << trial.err;
  nlohmann::json described = nlohmann::json::parse(trial.out);
  if (described.is_array()) described = described[0];
  EXPECT_EQ(described["measurements"].size(), 1u) << trial.out;
  EXPECT_THAT(QueuedJobs("hptune.resumed.1"), ::testing::SizeIs(0));
}

// The progress line tells a trial waiting in the cluster's queue from one
// that runs.
TEST_F(SlurmRunCliTest, TheProgressLineCountsTrialsWaitingInTheQueue) {
  const std::string config = dir_ + "/job.yaml";
  testing_slurm::WriteReattachJob(
      config, kSource + "/tests/launch/testdata/dump_trainer.py");
  const std::string dumps = dir_ + "/dumps";
  fs::create_directories(dumps);
  // The master runs a second: long enough for the runner to see it running
  // however slowly Slurm reports the start.
  const testing_slurm::DumpTrainerEnvironment dump_settings(dumps, "1", "0.5");
  const std::string log = dir_ + "/run.log";
  // A job id of this test's own: no other test's Slurm job has its name.
  pid_t run =
      Spawn({kHptune, "run", config, "--job-id", "progress_held", "--db",
             dir_ + "/h.db", "--runs-dir", dir_ + "/runs",
             std::string("--slurm-option=") + testing_slurm::kHoldOption},
            log);
  ASSERT_GT(run, 0);
  const testing::StopOnExit stop_run(run);
  const std::string waiting =
      "trials 0/1 done, 0 running, 1 queued on the cluster, 0 failed";
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (ReadFile(log).find(waiting) == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_THAT(ReadFile(log), HasSubstr(waiting));
  std::string error;
  // The trial's allocation is what waits.
  ASSERT_TRUE(
      testing_slurm::StartHeldJobs("hptune.progress_held.allocation", &error))
      << error;
  EXPECT_EQ(testing::WaitForExit(run, kDeadline), 0) << ReadFile(log);
  const std::string out = ReadFile(log);
  // Running once Slurm started it, then done.
  EXPECT_THAT(out, HasSubstr("trials 0/1 done, 1 running, 0 failed"));
  EXPECT_LT(out.find(waiting),
            out.find("trials 0/1 done, 1 running, 0 failed"));
  EXPECT_THAT(out, HasSubstr("job progress_held SUCCEEDED"));
}

// A job none of whose trials leaves the cluster's queue is cancelled at its
// maxWaitTime, and its pending allocation with it.
TEST_F(SlurmRunCliTest, AJobStillQueuedAtItsMaxWaitTimeIsCancelled) {
  const std::string config = dir_ + "/job.yaml";
  testing_slurm::WriteReattachJob(
      config, kSource + "/tests/launch/testdata/dump_trainer.py");
  std::ofstream(config, std::ios::app) << "  scheduling: {maxWaitTime: 3s}\n";
  const auto start = std::chrono::steady_clock::now();
  testing::ProcessResult result =
      RunProcess({kHptune, "run", config, "--job-id", "never_ran", "--db",
                  dir_ + "/h.db", "--runs-dir", dir_ + "/runs", "--quiet",
                  std::string("--slurm-option=") + testing_slurm::kHoldOption});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr("job never_ran CANCELLED: maxWaitTime (3s) reached: no "
                        "trial has started running since the job was "
                        "submitted at "));
  EXPECT_THAT(QueuedJobs("hptune.never_ran.allocation"), ::testing::IsEmpty());
  // The pending job is cancelled outright, not signalled (which scancel
  // retries for about 95 s).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// --slurm-gpu-type puts each replica on the nodes of its acceleratorConfig
// type (the test cluster: t4 on n1, v100 on n2) and refuses a type it does
// not map before anything runs.
TEST_F(SlurmRunCliTest, GpuTypesMappedByFlagPickTheNodes) {
  const std::string dumps = dir_ + "/dumps";
  fs::create_directories(dumps);
  const testing_slurm::DumpTrainerEnvironment dump_settings(dumps, "0", "0.5");
  setenv("DUMP_EXTRA_ENV", "SLURMD_NODENAME", 1);
  auto write_job = [&](const std::string& name, const std::string& worker_gpu) {
    const std::string path = dir_ + "/" + name + ".yaml";
    std::ofstream(path)
        << "backend: slurm\n"
           "trainingInput:\n"
           "  command: [python3, "
        << kSource << "/tests/launch/testdata/dump_trainer.py]\n"
        << "  scaleTier: CUSTOM\n"
           "  masterType: n1-standard-4\n"
           "  masterConfig: {acceleratorConfig: {count: 1, type: "
           "NVIDIA_TESLA_T4}}\n"
           "  workerType: n1-standard-4\n"
           "  workerCount: 1\n"
           "  workerConfig: {acceleratorConfig: {count: 1, type: "
        << worker_gpu
        << "}}\n"
           "  hyperparameters:\n"
           "    goal: MAXIMIZE\n"
           "    hyperparameterMetricTag: accuracy\n"
           "    maxTrials: 1\n"
           "    params:\n"
           "    - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: "
           "0.1}\n";
    return path;
  };
  const std::vector<std::string> types = {
      "--slurm-gpu-type=NVIDIA_TESLA_T4=t4",
      "--slurm-gpu-type=NVIDIA_TESLA_V100=v100"};
  auto run = [&](const std::string& config, const std::string& id) {
    std::vector<std::string> argv = {
        kHptune, "run",          config,       "--job-id",     id,
        "--db",  dir_ + "/h.db", "--runs-dir", dir_ + "/runs", "--quiet"};
    argv.insert(argv.end(), types.begin(), types.end());
    return RunProcess(argv);
  };
  // The master's exit ends the trial: it waits for the worker's dump, which
  // a loaded machine may start later than the master ends.
  setenv("DUMP_AWAIT_MASTER", "worker-0:1", 1);
  auto typed = run(write_job("typed", "NVIDIA_TESLA_V100"), "typed");
  unsetenv("DUMP_AWAIT_MASTER");
  unsetenv("DUMP_EXTRA_ENV");
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  auto node = [&](const std::string& replica) {
    return nlohmann::json::parse(
               ReadFile(dumps + "/" + replica + ".json"))["env"]
        .value("SLURMD_NODENAME", "");
  };
  EXPECT_EQ(node("master-0"), "n1");
  EXPECT_EQ(node("worker-0"), "n2");

  auto unmapped = run(write_job("unmapped", "NVIDIA_TESLA_P100"), "unmapped");
  EXPECT_NE(unmapped.exit_code, 0);
  EXPECT_THAT(unmapped.err,
              HasSubstr("worker 0 (trainingInput.workerConfig) asks for 1 x "
                        "NVIDIA_TESLA_P100, but "
                        "--slurm-gpu-type maps no Slurm GPU type to "
                        "NVIDIA_TESLA_P100"));
  EXPECT_FALSE(fs::exists(dir_ + "/runs/unmapped/1"));
}

// Without a cluster: the errors a user sees.
TEST(SlurmRunCliErrorsTest, AnUnreachableControllerExitsUnavailable) {
  HPTUNE_SKIP_UNLESS_AVAILABLE(testing_slurm::SlurmCommandsInstalled(), "slurm",
                               "Slurm's commands are not installed");
  const std::string dir = testing::MakeTempDir();
  testing_slurm::ExpectUnreachableControllerExits69(
      dir,
      {kHptune, "run", kSource + "/examples/stdlib_trainer/config.yaml",
       "--backend", "slurm", "--db", dir + "/h.db"},
      "hptune run");
}

TEST(SlurmRunCliErrorsTest, SlurmFlagsNeedTheSlurmBackend) {
  const std::string dir = testing::MakeTempDir();
  auto result = RunProcess({kHptune, "run",
                            kSource + "/examples/stdlib_trainer/config.yaml",
                            "--slurm-partition", "gpu", "--db", dir + "/h.db"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr("hptune run: --slurm-* flags need --backend slurm (or "
                        "backend: slurm in the config)"));
  auto bad = RunProcess({kHptune, "run",
                         kSource + "/examples/stdlib_trainer/config.yaml",
                         "--backend", "kubernetes", "--db", dir + "/h.db"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("--backend: expected local or slurm, got "
                                 "\"kubernetes\""));
}

TEST(SlurmRunCliErrorsTest, TheAllocationModeIsCheckedBeforeAnythingRuns) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = kSource + "/examples/stdlib_trainer/config.yaml";
  auto bad =
      RunProcess({kHptune, "run", config, "--backend", "slurm",
                  "--slurm-allocation", "per-job", "--db", dir + "/h.db"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("--slurm-allocation: expected per-lane or "
                                 "per-trial, got \"per-job\""));
  auto local = RunProcess({kHptune, "run", config, "--slurm-allocation",
                           "per-trial", "--db", dir + "/h.db"});
  EXPECT_EQ(local.exit_code, 2) << local.err;
  EXPECT_THAT(local.err, HasSubstr("--slurm-* flags need --backend slurm"));
  // A setting of the runner (or the server), not of a job.
  auto submit =
      RunProcess({kHptune, "jobs", "submit", "j", "--config", config,
                  "--slurm-allocation=per-trial", "--server", "127.0.0.1:9"});
  EXPECT_NE(submit.exit_code, 0);
  EXPECT_THAT(submit.err,
              HasSubstr("--slurm-allocation: a setting of the Slurm server "
                        "(hptune serve --slurm-allocation), not of a job"));
  EXPECT_FALSE(fs::exists(dir + "/h.db"));
}

TEST(SlurmRunCliErrorsTest, TheConfigsBackendBlockIsChecked) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = dir + "/c.yaml";
  {
    std::ofstream out(config);
    out << "backend: kubernetes\n"
           "slurm: {partition: gpu, qos: high}\n"
           "trainingInput:\n"
           "  command: [/bin/true]\n"
           "  hyperparameters:\n"
           "    params:\n"
           "    - {parameterName: lr, type: DOUBLE, minValue: 0.01, "
           "maxValue: 0.1}\n";
  }
  auto result = RunProcess({kHptune, "validate", config});
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  const std::string all = result.out + result.err;
  EXPECT_THAT(all, HasSubstr("backend: must be local or slurm, got "
                             "\"kubernetes\""));
  EXPECT_THAT(all, HasSubstr("slurm.qos: unknown field"));
}

}  // namespace
}  // namespace hptune
