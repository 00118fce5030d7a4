#include "src/launch/slurm/slurm_commands.h"

#include <gtest/gtest.h>

namespace hptune::launch::slurm_internal {
namespace {

TEST(GpuCountOfGresTest, ReadsSinfosGresColumn) {
  EXPECT_EQ(GpuCountOfGres("gpu:4"), 4);
  EXPECT_EQ(GpuCountOfGres("gpu:tesla:2(S:0-1)"), 2);
  EXPECT_EQ(GpuCountOfGres("gpu:a100:4(S:0-1),gpu:t4:2(S:0)"), 6);
  EXPECT_EQ(GpuCountOfGres("mps:100,gpu:1"), 1);
  EXPECT_EQ(GpuCountOfGres("(null)"), 0);
  EXPECT_EQ(GpuCountOfGres(""), 0);
  EXPECT_EQ(GpuCountOfGres("gpus_extra:3"), 0);
}

TEST(PhaseOfTest, PendingAndRunningJobsAreAliveCompletingIsEnding) {
  EXPECT_EQ(PhaseOf("PENDING"), JobPhase::kAlive);
  EXPECT_EQ(PhaseOf("RUNNING"), JobPhase::kAlive);
  EXPECT_EQ(PhaseOf("CONFIGURING"), JobPhase::kAlive);
  EXPECT_EQ(PhaseOf("COMPLETING"), JobPhase::kEnding);
  EXPECT_EQ(PhaseOf("CANCELLED"), JobPhase::kEnded);
  EXPECT_EQ(PhaseOf("TIMEOUT"), JobPhase::kEnded);
  EXPECT_EQ(PhaseOf("NODE_FAIL"), JobPhase::kEnded);
  EXPECT_EQ(PhaseOf("COMPLETED"), JobPhase::kEnded);
}

TEST(RunSlurmTest, AFailingCommandGivesItsStderr) {
  auto out = RunSlurm({"sh", "-c",
                       "echo 'sh: error: no such partition' >&2; "
                       "exit 1"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(out.status().message(), "sh: error: no such partition");
}

TEST(RunSlurmTest, AMissingCommandIsNotFound) {
  auto out = RunSlurm({"hptune-no-such-slurm-command"});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace hptune::launch::slurm_internal
