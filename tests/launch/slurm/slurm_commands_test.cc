#include "src/launch/slurm/slurm_commands.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/testing/status_matchers.h"

namespace hptune::launch::slurm_internal {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;

TEST(GpusOfGresTest, ReadsSinfosGresColumnByType) {
  using Gpus = std::map<std::string, int>;
  EXPECT_EQ(GpusOfGres("gpu:4"), (Gpus{{"", 4}}));
  EXPECT_EQ(GpusOfGres("gpu:tesla:2(S:0-1)"), (Gpus{{"tesla", 2}}));
  EXPECT_EQ(GpusOfGres("gpu:a100:4(S:0-1),gpu:t4:2(S:0)"),
            (Gpus{{"a100", 4}, {"t4", 2}}));
  EXPECT_EQ(GpusOfGres("mps:100,gpu:1"), (Gpus{{"", 1}}));
  EXPECT_EQ(GpusOfGres("(null)"), Gpus{});
  EXPECT_EQ(GpusOfGres(""), Gpus{});
  EXPECT_EQ(GpusOfGres("gpus_extra:3"), Gpus{});
  EXPECT_EQ(GpusOfGres("gpu:t4:0"), Gpus{});
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
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kUnavailable,
                            "sh: error: no such partition"));
}

TEST(RunSlurmTest, AMissingCommandIsNotFound) {
  auto out = RunSlurm({"hptune-no-such-slurm-command"});
  EXPECT_THAT(out, StatusHasCode(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace hptune::launch::slurm_internal
