// Tests for ExpandVariableReferences (Kubernetes' $(VAR) in a container's
// command and args) and for BuildTrialLaunch applying it to a Vertex job's
// containers only.
#include "src/launch/variable_references.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/launch/replica_env.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;

const std::map<std::string, std::string> kEnv = {
    {"AIP_MODEL_DIR", "/out/7/model/"}, {"MODE", "fast"}, {"EMPTY", ""}};

std::string Expand(std::string_view text) {
  return ExpandVariableReferences(text, kEnv);
}

TEST(VariableReferencesTest, AKnownVariableIsItsValue) {
  EXPECT_EQ(Expand("--model-dir=$(AIP_MODEL_DIR)"),
            "--model-dir=/out/7/model/");
  EXPECT_EQ(Expand("$(MODE)-$(MODE)$(EMPTY)!"), "fast-fast!");
}

TEST(VariableReferencesTest, AnEscapedReferenceIsLiteral) {
  EXPECT_EQ(Expand("$$(MODE)"), "$(MODE)");
  EXPECT_EQ(Expand("cost: $$5"), "cost: $5");
  EXPECT_EQ(Expand("$$$(MODE)"), "$fast");
}

TEST(VariableReferencesTest, AnythingElseIsLeftAsWritten) {
  EXPECT_EQ(Expand("$(UNKNOWN) $(MODE"), "$(UNKNOWN) $(MODE");
  EXPECT_EQ(Expand("$HOME ${MODE} $() $"), "$HOME ${MODE} $() $");
  EXPECT_EQ(Expand("$(AIP_MODEL_DIR)x"), "/out/7/model/x");
  // One pass: a value is not expanded again.
  EXPECT_EQ(ExpandVariableReferences("$(A)", {{"A", "$(B)"}, {"B", "b"}}),
            "$(B)");
}

// A job of one container replica, `dialect` as given.
JobSpec ContainerJob(SpecDialect dialect) {
  JobSpec job;
  job.job_id = "j1";
  job.dialect = dialect;
  job.scale_tier = ScaleTier::kCustom;
  job.master = {.count = 1, .machine_type = "n1-standard-4"};
  job.master.container = {.image_uri = "trainer:1",
                          .command = {"python3", "$(MODE).py"},
                          .args = {"--out=$(AIP_MODEL_DIR)", "$$(MODE)"}};
  job.master.env = {{"MODE", "fast"}};
  job.args = {"$(MODE)"};  // hptune's own args: never expanded.
  job.study = StudySpec{};
  return job;
}

TrialLaunch Build(const JobSpec& job) {
  const TrialContext context{.job = &job,
                             .training_input_json = "{}",
                             .trial = 7,
                             .metric_tag = "loss",
                             .trial_dir = "/var/hptune/j1/7",
                             .base_pythonpath = ""};
  absl::StatusOr<TrialLaunch> launch = BuildTrialLaunch(
      context, ReplicaRequests(job), {{"127.0.0.1", 1000, {}}});
  EXPECT_OK(launch);
  return launch.ok() ? *launch : TrialLaunch{};
}

TEST(VariableReferencesTest, AVertexJobsContainerCommandAndArgsAreExpanded) {
  const TrialLaunch launch = Build(ContainerJob(SpecDialect::kVertex));
  ASSERT_EQ(launch.replicas.size(), 1u);
  const ReplicaLaunch& master = launch.replicas[0];
  ASSERT_TRUE(master.container.has_value());
  EXPECT_THAT(master.container->spec.command,
              ElementsAre("python3", "fast.py"));
  EXPECT_THAT(master.argv, ElementsAre("--out=/var/hptune/j1/7/model/",
                                       "$(MODE)", "$(MODE)"));
}

TEST(VariableReferencesTest, AnAiPlatformJobsArgsAreKeptAsWritten) {
  const TrialLaunch launch = Build(ContainerJob(SpecDialect::kAiPlatform));
  ASSERT_EQ(launch.replicas.size(), 1u);
  EXPECT_THAT(launch.replicas[0].container->spec.command,
              ElementsAre("python3", "$(MODE).py"));
  EXPECT_THAT(launch.replicas[0].argv,
              ElementsAre("--out=$(AIP_MODEL_DIR)", "$$(MODE)", "$(MODE)"));
}

}  // namespace
}  // namespace hptune::launch
