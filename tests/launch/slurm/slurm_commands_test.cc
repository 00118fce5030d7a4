#include "src/launch/slurm/slurm_commands.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "hptune/core/machine_types.h"
#include "hptune/launch/replica_env.h"
#include "src/launch/slurm/slurm_submission.h"
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

TEST(SlurmDurationTest, ReadsEveryFormOfASlurmTimeLimit) {
  using std::chrono::seconds;
  EXPECT_EQ(SlurmDuration("1"), seconds(60));  // Minutes.
  EXPECT_EQ(SlurmDuration("2:30"), seconds(150));
  EXPECT_EQ(SlurmDuration("00:01:00"), seconds(60));
  EXPECT_EQ(SlurmDuration("1:02:03"), seconds(3723));
  EXPECT_EQ(SlurmDuration("2-0"), seconds(2 * 86400));
  EXPECT_EQ(SlurmDuration("1-02:30"), seconds(86400 + 2 * 3600 + 30 * 60));
  EXPECT_EQ(SlurmDuration("1-00:00:05"), seconds(86405));
  EXPECT_EQ(SlurmDuration("UNLIMITED"), std::nullopt);
  EXPECT_EQ(SlurmDuration("INFINITE"), std::nullopt);
  EXPECT_EQ(SlurmDuration(""), std::nullopt);
  EXPECT_EQ(SlurmDuration("1:2:3:4"), std::nullopt);
  EXPECT_EQ(SlurmDuration("-5"), std::nullopt);
}

TEST(ExplainSubmitErrorTest, MaxSubmitJobsRefusalsSayWhatToDo) {
  EXPECT_EQ(ExplainSubmitError("sbatch: error: invalid partition"),
            "sbatch: error: invalid partition");
  for (const char* refusal :
       {"sbatch: error: QOSMaxSubmitJobPerUserLimit",
        "sbatch: error: AssocMaxSubmitJobLimit",
        "sbatch: error: Batch job submission failed: Job violates "
        "accounting/QOS policy (job submit limit, user's size and/or time "
        "limits)"}) {
    const std::string explained = ExplainSubmitError(refusal);
    EXPECT_EQ(explained.rfind(refusal, 0), 0u) << explained;
    EXPECT_NE(explained.find("MaxSubmitJobs"), std::string::npos) << explained;
    EXPECT_NE(explained.find("--slurm-allocation=per-lane"), std::string::npos);
  }
}

TEST(RunSlurmTest, AFailingCommandGivesItsStderr) {
  auto out = RunSlurm(DefaultEnv(), {"sh", "-c",
                                     "echo 'sh: error: no such partition' >&2; "
                                     "exit 1"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kUnavailable,
                            "sh: error: no such partition"));
}

TEST(RunSlurmTest, AMissingCommandIsNotFound) {
  auto out = RunSlurm(DefaultEnv(), {"hptune-no-such-slurm-command"});
  EXPECT_THAT(out, StatusHasCode(absl::StatusCode::kNotFound));
}

// The launcher reads the job from master 0's TF_CONFIG, or from the
// CLUSTER_SPEC of a Vertex job of one replica, which has no TF_CONFIG.
TEST(JobOfLaunchTest, AVertexJobOfOneReplicaIsReadFromItsClusterSpec) {
  JobSpec job;
  job.job_id = "v";
  job.dialect = SpecDialect::kVertex;
  job.scale_tier = ScaleTier::kCustom;
  job.master = {.count = 1, .machine_type = "n1-standard-4"};
  job.master.container = {.image_uri = "trainer:1"};
  const TrialContext context{.job = &job, .trial = 1, .trial_dir = "/t/1"};
  absl::StatusOr<TrialLaunch> launch = BuildTrialLaunch(
      context, ReplicaRequests(job), {{"127.0.0.1", 1000, {}}});
  ASSERT_OK(launch);
  ASSERT_FALSE(launch->replicas[0].env.contains("TF_CONFIG"));
  absl::StatusOr<JobSpec> read = JobOfLaunch(*launch, MachineCatalogue());
  ASSERT_OK(read);
  EXPECT_EQ(read->master.container.image_uri, "trainer:1");

  launch->replicas[0].env.erase("CLUSTER_SPEC");
  EXPECT_THAT(JobOfLaunch(*launch, MachineCatalogue()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "job \"v\" trial 1: master 0 has no TF_CONFIG to read "
                       "its job from"));
}

}  // namespace
}  // namespace hptune::launch::slurm_internal
