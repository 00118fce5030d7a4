// `hptune run --backend slurm` with allocations reused across trials (the
// default, --slurm-allocation=per-lane), on the Slurm test cluster of
// scripts/start-slurm (ctest's slurm_cluster fixture): two trials in one
// allocation; a SIGKILLed runner's allocation ended by the next run; a
// cancelled job leaves nothing in squeue; a partition whose MaxTime is
// shorter than scheduling.maxRunningTime refused before anything is
// submitted. The cluster tests skip, saying why, only where the cluster
// cannot run.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/launch/capture_output.h"
#include "tests/launch/slurm/slurm_cluster.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::RunProcess;
using ::testing::SizeIs;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kSource = HPTUNE_SOURCE_DIR;
constexpr auto kDeadline = std::chrono::seconds(60);

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Polls `done` until it holds or the deadline passes.
bool WaitFor(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A master and a worker running dump_trainer.py, `trials` trials,
// `parallel` at a time, maximising "accuracy"; `extra` appended to
// trainingInput.
void WriteJob(const std::string& path, int trials, int parallel,
              const std::string& extra = "") {
  std::ofstream(path) << "backend: slurm\n"
                         "trainingInput:\n"
                         "  command: [python3, "
                      << kSource << "/tests/launch/testdata/dump_trainer.py]\n"
                      << "  scaleTier: CUSTOM\n"
                         "  masterType: n1-standard-4\n"
                         "  workerType: n1-standard-4\n"
                         "  workerCount: 1\n"
                      << extra
                      << "  hyperparameters:\n"
                         "    goal: MAXIMIZE\n"
                         "    hyperparameterMetricTag: accuracy\n"
                         "    maxTrials: "
                      << trials << "\n    maxParallelTrials: " << parallel
                      << "\n"
                         "    params:\n"
                         "    - {parameterName: lr, type: DOUBLE, minValue: "
                         "0.01, maxValue: 0.1}\n";
}

// The Slurm job a replica ran in, from its dump.
std::string SlurmJobOf(const fs::path& dump) {
  auto json = nlohmann::json::parse(ReadFile(dump), nullptr, false);
  if (!json.is_object()) return "";
  return json["env"].value("SLURM_JOB_ID", "");
}

class SlurmAllocationTest : public testing_slurm::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    dir_ = testing::MakeTempDir();
    dumps_ = dir_ + "/dumps";
    fs::create_directories(dumps_);
    setenv("DUMP_EXTRA_ENV", "SLURM_JOB_ID", 1);
    setenv("DUMP_PER_TRIAL", "1", 1);
  }
  void TearDown() override {
    unsetenv("DUMP_EXTRA_ENV");
    unsetenv("DUMP_PER_TRIAL");
  }

  std::vector<std::string> Run(const std::string& job_id) const {
    return {kHptune,        "run",    dir_ + "/job.yaml", "--job-id",
            job_id,         "--db",   dir_ + "/h.db",     "--runs-dir",
            dir_ + "/runs", "--quiet"};
  }
  // Replica `name`'s dump of trial `trial`.
  std::string Dump(int trial, const std::string& name) const {
    return dumps_ + "/" + std::to_string(trial) + "/" + name + ".json";
  }

  std::string dir_;
  std::string dumps_;
};

TEST_F(SlurmAllocationTest, TwoTrialsRunInTheSameAllocation) {
  WriteJob(dir_ + "/job.yaml", 2, 1);
  const testing_slurm::DumpTrainerEnvironment dump(dumps_, "0", "0.5");
  // The master's exit ends the trial: it waits for the worker's dump, which
  // a loaded machine may start later than the master ends.
  setenv("DUMP_AWAIT_MASTER", "worker-0:1", 1);
  auto run = RunProcess(Run("reused"));
  unsetenv("DUMP_AWAIT_MASTER");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string first = SlurmJobOf(Dump(1, "master-0"));
  ASSERT_FALSE(first.empty()) << ReadFile(Dump(1, "master-0"));
  // Both replicas of both trials: steps of one allocation.
  EXPECT_EQ(SlurmJobOf(Dump(1, "worker-0")), first);
  EXPECT_EQ(SlurmJobOf(Dump(2, "master-0")), first);
  EXPECT_EQ(SlurmJobOf(Dump(2, "worker-0")), first);
  EXPECT_THAT(ReadFile(dir_ + "/runs/reused/2/slurm/1/allocation"),
              HasSubstr(first + " "));
  // The job's end released it.
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.reused.allocation"), IsEmpty());
}

TEST_F(SlurmAllocationTest, TheNextRunEndsTheAllocationOfASigkilledRunner) {
  WriteJob(dir_ + "/job.yaml", 1, 1);
  // The master runs long enough to be running when its runner dies.
  const testing_slurm::DumpTrainerEnvironment dump(dumps_, "4", "0.75");
  const pid_t first =
      testing::StartProcess(Run("orphaned"), dir_ + "/1.out", dir_ + "/1.err");
  ASSERT_TRUE(WaitFor([&] { return fs::exists(Dump(1, "master-0")); }))
      << ReadFile(dir_ + "/1.err");
  const std::string orphan = SlurmJobOf(Dump(1, "master-0"));
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  ASSERT_THAT(testing_slurm::QueuedJobs("hptune.orphaned.allocation", "%A"),
              ::testing::ElementsAre(orphan));

  auto second = RunProcess(Run("orphaned"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.out, HasSubstr("0.75"));
  // The trial ran again, in an allocation of its own; the orphan was
  // cancelled, not left to run out its time.
  EXPECT_EQ(ReadFile(dumps_ + "/1/master-0.starts"), "2");
  const std::string again = SlurmJobOf(Dump(1, "master-0"));
  EXPECT_NE(again, orphan);
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.orphaned.allocation"),
              IsEmpty());
}

TEST_F(SlurmAllocationTest, CancellingTheJobLeavesNothingInTheQueue) {
  WriteJob(dir_ + "/job.yaml", 2, 2);
  const testing_slurm::DumpTrainerEnvironment dump(dumps_, "forever", "0.5");
  const pid_t run = testing::StartProcess(Run("cancelled"), dir_ + "/run.out",
                                          dir_ + "/run.err");
  const testing::StopOnExit stop(run);
  // Two lanes, two allocations, each running a trial.
  ASSERT_TRUE(WaitFor([&] {
    return fs::exists(Dump(1, "master-0")) && fs::exists(Dump(2, "master-0"));
  })) << ReadFile(dir_ + "/run.err");
  ASSERT_THAT(testing_slurm::QueuedJobs("hptune.cancelled.allocation"),
              SizeIs(2));
  kill(run, SIGINT);
  EXPECT_EQ(testing::WaitForExit(run, kDeadline), 130)
      << ReadFile(dir_ + "/run.err");
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.cancelled.allocation"),
              IsEmpty());
  for (const std::string trial : {"1", "2"}) {
    const std::string allocation =
        SlurmJobOf(Dump(std::stoi(trial), "master-0"));
    auto steps = launch::RunCapturingOutput(
        DefaultEnv(), {"squeue", "-h", "-s", "-j", allocation});
    ASSERT_TRUE(steps.ok()) << steps.status();
    EXPECT_THAT(steps->out, IsEmpty()) << "allocation " << allocation;
  }
}

TEST_F(SlurmAllocationTest, APartitionTooShortForMaxRunningTimeIsRefused) {
  WriteJob(dir_ + "/job.yaml", 1, 1, "  scheduling: {maxRunningTime: 7200s}\n");
  std::vector<std::string> argv = Run("too_long");
  argv.push_back("--slurm-partition=short");
  auto run = RunProcess(argv);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err,
              HasSubstr("Slurm partition \"short\" runs a job at most "
                        "00:01:00 (MaxTime, scontrol show partition), less "
                        "than the job's scheduling.maxRunningTime (7200s)"));
  // Refused before anything was submitted.
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.too_long.allocation"),
              IsEmpty());
  EXPECT_FALSE(fs::exists(dir_ + "/runs/too_long/1/slurm"));
  // The default partition has no limit: the same job runs there.
  const testing_slurm::DumpTrainerEnvironment dump(dumps_, "0", "0.5");
  auto fits = RunProcess(Run("fits"));
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
}

}  // namespace
}  // namespace hptune
