// SlurmTrialRun on FakeEnv: the attempt's marker and exit files live in
// FakeEnv's memory and every wait runs on its clock, so a minute of Slurm's
// cancel deadline passes without waiting for it. squeue and scancel are
// stand-ins on PATH (a job that stays RUNNING whatever is asked), since the
// run learns a job's state only from them.
#include "src/launch/slurm/slurm_trial_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hptune/core/time.h"
#include "hptune/env/env_wrapper.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch::slurm_internal {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

class SlurmTrialRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The stand-ins: squeue says RUNNING and counts its calls.
    const std::filesystem::path bin = testing::MakeTempDir();
    calls_ = bin / "squeue.calls";
    Script(bin / "squeue", "echo x >> " + calls_.string() + "\necho RUNNING");
    Script(bin / "scancel", "exit 0");
    const char* path = std::getenv("PATH");
    old_path_ = path == nullptr ? "" : path;
    ::setenv("PATH", (bin.string() + ":" + old_path_).c_str(), 1);
    ASSERT_OK(env_.CreatePrivateDirectories(dir_));
  }
  void TearDown() override { ::setenv("PATH", old_path_.c_str(), 1); }

  static void Script(const std::filesystem::path& path,
                     const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
  }
  int SqueueCalls() const {
    std::ifstream in(calls_);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }
  SlurmTrialRun Run() {
    return SlurmTrialRun(env_, "4242", dir_, 2, std::chrono::seconds(1));
  }

  testing::FakeEnv env_;
  const std::filesystem::path dir_ = "/runs/job/1/slurm/1";
  std::filesystem::path calls_;
  std::string old_path_;
};

TEST_F(SlurmTrialRunTest, AnExitIsReadFromTheRunsFile) {
  SlurmTrialRun run = Run();
  ASSERT_OK_AND_ASSIGN(std::vector<ReplicaExit> exits, run.Poll());
  EXPECT_THAT(exits, IsEmpty());
  ASSERT_OK(env_.WriteFileAtomically(dir_ / "r1.exit.1", "3 0\n"));
  ASSERT_OK_AND_ASSIGN(exits, run.Poll());
  EXPECT_THAT(exits, ElementsAre(AllOf(Field(&ReplicaExit::replica, 1),
                                       Field(&ReplicaExit::exit_code, 3))));
  EXPECT_TRUE(run.IsRunning(0));
  EXPECT_FALSE(run.IsRunning(1));
  run.Terminate(std::chrono::seconds(0));
}

TEST_F(SlurmTrialRunTest, ARestartIsAMarkerThatAttachFindsAgain) {
  SlurmTrialRun run = Run();
  ASSERT_OK(env_.WriteFileAtomically(dir_ / "r0.exit.1", "1 0\n"));
  ASSERT_OK(run.Poll().status());
  ASSERT_OK(run.Restart(0));
  EXPECT_THAT(env_.Files(), Contains((dir_ / "r0.restart.2").string()));
  // A later process watches run 2, whose exit file is not there yet.
  std::unique_ptr<SlurmTrialRun> attached =
      SlurmTrialRun::Attach(env_, "4242", dir_, 2, std::chrono::seconds(1));
  ASSERT_OK_AND_ASSIGN(std::vector<ReplicaExit> exits, attached->Poll());
  EXPECT_THAT(exits, IsEmpty());
  EXPECT_TRUE(attached->IsRunning(0));
  attached->Terminate(std::chrono::seconds(0));
  run.Terminate(std::chrono::seconds(0));
}

// A job squeue keeps showing RUNNING after scancel: Terminate watches it
// for the minute Slurm's KillWait may take, on the Env's clock, asking
// squeue less and less often, then gives up on it.
TEST_F(SlurmTrialRunTest, TerminateGivesUpAfterAMinuteOfTheEnvsClock) {
  SlurmTrialRun run = Run();
  const Timestamp start = env_.Now();
  run.Terminate(std::chrono::seconds(5));
  EXPECT_THAT(env_.Files(), Contains((dir_ / "stop").string()));
  const auto waited = env_.Now() - start;
  EXPECT_GE(waited, std::chrono::seconds(60));
  EXPECT_LT(waited, std::chrono::seconds(61));
  // Backing off from 10 ms to 200 ms a query: about 300 in the minute.
  EXPECT_GT(SqueueCalls(), 250);
  EXPECT_LT(SqueueCalls(), 320);
  EXPECT_FALSE(run.IsRunning(0));
  EXPECT_FALSE(run.IsRunning(1));
}

// The wall clock set an hour forward while Terminate waits: the minute is
// measured on the monotonic clock, so the wait is neither cut short nor
// stretched.
TEST_F(SlurmTrialRunTest, AWallClockSetForwardDoesNotEndTheWaitEarly) {
  // Sets the wall clock an hour forward at the first sleep.
  class WallClockJump : public EnvWrapper {
   public:
    explicit WallClockJump(testing::FakeEnv& fake)
        : EnvWrapper(fake), fake_(fake) {}
    void SleepFor(std::chrono::microseconds duration) override {
      if (!jumped_) fake_.fake_clock().Advance(std::chrono::hours(1));
      jumped_ = true;
      EnvWrapper::SleepFor(duration);
    }

   private:
    testing::FakeEnv& fake_;
    bool jumped_ = false;
  };
  WallClockJump env(env_);
  SlurmTrialRun run(env, "4242", dir_, 2, std::chrono::seconds(1));
  const MonotonicTime start = env_.MonotonicNow();
  run.Terminate(std::chrono::seconds(5));
  const auto waited = env_.MonotonicNow() - start;
  EXPECT_GE(waited, std::chrono::seconds(60));
  EXPECT_LT(waited, std::chrono::seconds(61));
  EXPECT_GT(SqueueCalls(), 250);
}

}  // namespace
}  // namespace hptune::launch::slurm_internal
