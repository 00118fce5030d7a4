// Tests for a pool's container and environment in an AI Platform config
// (`<pool>Config.imageUri`, `containerCommand`, `containerArgs` and hptune's
// `env`, `pythonModule`, `packageUris`), the job's `displayName`,
// `baseOutputDirectory` and `dialect`, and their canonical JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Errors(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text);
  EXPECT_EQ(result.job.has_value(), result.errors.empty());
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors) {
    lines.push_back(error.ToString());
  }
  return lines;
}

JobSpec ParseOk(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text);
  for (const FieldError& error : result.errors) {
    ADD_FAILURE() << "unexpected error: " << error.ToString();
  }
  return result.job.value_or(JobSpec{});
}

// The canonical JSON of `job` parses back to `job`.
void ExpectRoundTrip(const JobSpec& job) {
  const std::string json = TrainingInputToJson(job);
  ConfigParseResult again = ParseJobConfig(json, ConfigFormat::kJson);
  EXPECT_THAT(again.errors, IsEmpty()) << json;
  ASSERT_TRUE(again.job.has_value()) << json;
  EXPECT_EQ(*again.job, job) << json;
}

constexpr char kCustomJob[] = R"(trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    imageUri: us-docker.pkg.dev/proj/repo/trainer:v1
    containerCommand: [python3, -m, trainer.task]
    containerArgs: [--epochs, "3"]
    env: [{name: DATA_DIR, value: /data}, {name: EMPTY}]
  workerCount: 2
  workerType: n1-standard-8
  workerConfig:
    env: [{name: ROLE, value: worker}]
  evaluatorCount: 1
  evaluatorType: n1-standard-4
  evaluatorConfig:
    imageUri: localhost:5000/eval@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    pythonModule: evaluate.main
    packageUris: [/srv/pkgs/eval-0.1.tar.gz]
  displayName: "résumé tuning"
  baseOutputDirectory: /srv/out
  dialect: VERTEX
)";

TEST(ContainerConfigTest, ReplicaConfigsCarryContainersAndEnvironments) {
  const JobSpec job = ParseOk(kCustomJob);
  EXPECT_EQ(
      job.master.container,
      (ContainerSpec{.image_uri = "us-docker.pkg.dev/proj/repo/trainer:v1",
                     .command = {"python3", "-m", "trainer.task"},
                     .args = {"--epochs", "3"}}));
  EXPECT_EQ(job.master.env,
            (std::vector<EnvVar>{{"DATA_DIR", "/data"}, {"EMPTY", ""}}));
  // AI Platform: a pool without an image of its own runs the master's.
  EXPECT_EQ(job.worker.container.image_uri,
            "us-docker.pkg.dev/proj/repo/trainer:v1");
  EXPECT_THAT(job.worker.container.command, IsEmpty());
  EXPECT_EQ(job.worker.env, (std::vector<EnvVar>{{"ROLE", "worker"}}));
  EXPECT_EQ(job.evaluator.container.python_module, "evaluate.main");
  EXPECT_THAT(job.evaluator.container.package_uris,
              ElementsAre("/srv/pkgs/eval-0.1.tar.gz"));
  EXPECT_EQ(job.display_name, "résumé tuning");
  EXPECT_EQ(job.base_output_directory, "/srv/out");
  EXPECT_EQ(job.dialect, SpecDialect::kVertex);
  ExpectRoundTrip(job);
}

TEST(ContainerConfigTest, AnyTierMayNameTheContainersOfItsPools) {
  const JobSpec job = ParseOk(
      "trainingInput:\n"
      "  scaleTier: STANDARD_1\n"
      "  masterConfig: {imageUri: 'python:3.11-slim', containerCommand: "
      "[python3, /app/train.py]}\n"
      "  parameterServerConfig: {imageUri: 'ps:1'}\n");
  EXPECT_EQ(job.master.machine_type, "n1-highcpu-8");
  EXPECT_EQ(job.worker.container.image_uri, "python:3.11-slim");
  EXPECT_EQ(job.parameter_server.container.image_uri, "ps:1");
  ExpectRoundTrip(job);
  ExpectRoundTrip(ParseOk("trainingInput:\n  masterConfig: {imageUri: t}\n"));
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  masterConfig: {imageUri: t, acceleratorConfig: {count: 1, "
             "type: NVIDIA_TESLA_T4}}\n"
             "  workerConfig: {imageUri: t}\n"),
      ElementsAre("trainingInput.masterConfig.acceleratorConfig: only allowed "
                  "with scaleTier CUSTOM, got scaleTier BASIC (the default)",
                  "trainingInput.workerConfig: only allowed with scaleTier "
                  "CUSTOM, got scaleTier BASIC (the default), which has no "
                  "workers"));
}

TEST(ContainerConfigTest, ImageReferencesFollowTheOciGrammar) {
  for (const char* good :
       {"python", "python:3.11-slim", "library/python:3", "gcr.io/p/t",
        "localhost:5000/a/b_c__d.e--f:tag_1.0",
        "example.com/x@sha256:0123456789abcdef0123456789abcdef"}) {
    SCOPED_TRACE(good);
    EXPECT_THAT(Errors(std::string("trainingInput: {masterConfig: {imageUri: "
                                   "'") +
                       good + "'}}\n"),
                IsEmpty());
  }
  EXPECT_THAT(
      Errors("trainingInput:\n  masterConfig: {imageUri: 'Gcr/Image'}\n"),
      ElementsAre("trainingInput.masterConfig.imageUri: must be an image "
                  "reference such as us-docker.pkg.dev/project/repo/image:tag, "
                  "got \"Gcr/Image\": path component \"Gcr\" must be "
                  "lowercase letters and digits joined by '.', '_', \"__\" or "
                  "dashes"));
  for (const char* bad :
       {"a:", "a:.x", "a@sha256:12", "a//b", "-a", "a_", "a/B", "bad host:1/x",
        "h.com:port/x", "a:tag with space"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(Errors(std::string("trainingInput: {masterConfig: {imageUri: "
                                   "'") +
                       bad + "'}}\n"),
                ElementsAre(HasSubstr("trainingInput.masterConfig.imageUri: "
                                      "must be an image reference")));
  }
  EXPECT_THAT(Errors("trainingInput: {masterConfig: {imageUri: ''}}\n"),
              ElementsAre("trainingInput.masterConfig.imageUri: must not be "
                          "empty"));
  EXPECT_THAT(Errors("trainingInput: {masterConfig: {imageUri: '" +
                     std::string(256, 'a') + "'}}\n"),
              ElementsAre(HasSubstr("its name is 256 characters, at most "
                                    "255 allowed")));
}

TEST(ContainerConfigTest, EveryContainerErrorIsReportedAtOnce) {
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  scaleTier: CUSTOM\n"
             "  masterType: n1-standard-4\n"
             "  masterConfig:\n"
             "    containerCommand: ['', x]\n"
             "    pythonModule: m\n"
             "    env:\n"
             "      - {name: 1X, value: a}\n"
             "      - {name: TF_CONFIG, value: '{}'}\n"
             "      - {name: A, value: b}\n"
             "      - {name: A, value: c}\n"
             "  workerCount: 1\n"
             "  workerType: n1-standard-4\n"
             "  workerConfig: {packageUris: ['gs://b/p.tar.gz']}\n"
             "  pythonModule: trainer.task\n"),
      ElementsAre(
          "trainingInput.masterConfig.imageUri: required: the container's "
          "other fields need it",
          "trainingInput.masterConfig.containerCommand[0]: the program must "
          "not be empty",
          "trainingInput.masterConfig.pythonModule: cannot be used with a "
          "container command: give one, got \"m\"",
          "trainingInput.masterConfig.env[0].name: must be 1 to 256 letters, "
          "digits and '_', not starting with a digit, got \"1X\"",
          "trainingInput.masterConfig.env[1].name: is set by hptune in every "
          "replica (TF_CONFIG, CLUSTER_SPEC, AIP_*, CLOUD_ML_*, ...), got "
          "\"TF_CONFIG\"",
          "trainingInput.masterConfig.env[3].name: is set twice, got \"A\"",
          "trainingInput.workerConfig.imageUri: required: the container's "
          "other fields need it",
          "trainingInput.workerConfig.packageUris: needs pythonModule (what "
          "to run from the packages)",
          "trainingInput.workerConfig.packageUris[0]: a bucket name must be "
          "3 to 63 characters, got \"gs://b/p.tar.gz\""));
}

TEST(ContainerConfigTest, AMasterInAContainerTakesNoHostTrainer) {
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  masterConfig: {imageUri: t}\n"
             "  command: [python3, train.py]\n"),
      ElementsAre("trainingInput.command: cannot be used with "
                  "masterConfig.imageUri: the container runs the trainer "
                  "(give masterConfig.containerCommand or pythonModule), got "
                  "[\"python3\", \"train.py\"]"));
}

// The pools a trial starts, and whether one of them needs the job's trainer
// on the host: the master always runs; another pool only with replicas.
TEST(ContainerConfigTest, OnlyAPoolThatRunsWithoutAnImageNeedsTheHostTrainer) {
  JobSpec job;
  EXPECT_TRUE(job.Runs(TaskType::kMaster));
  EXPECT_FALSE(job.Runs(TaskType::kWorker));
  EXPECT_TRUE(job.RunsHostTrainer());
  job.master.container.image_uri = "trainer:1";
  EXPECT_FALSE(job.RunsHostTrainer());
  // Workers without an image, but none of them: nothing on the host.
  job.worker.machine_type = "n1-standard-4";
  EXPECT_FALSE(job.RunsHostTrainer());
  job.worker.count = 2;
  EXPECT_TRUE(job.Runs(TaskType::kWorker));
  EXPECT_TRUE(job.RunsHostTrainer());
  job.worker.container.image_uri = "trainer:1";
  job.evaluator.count = 1;
  EXPECT_TRUE(job.RunsHostTrainer());
  job.evaluator.container.image_uri = "eval:1";
  EXPECT_FALSE(job.RunsHostTrainer());
}

TEST(ContainerConfigTest, SizesOfEnvironmentsAndNamesAreLimited) {
  std::string many = "trainingInput:\n  masterConfig:\n    env:\n";
  for (int i = 0; i < 101; ++i) {
    many += "      - {name: V" + std::to_string(i) + ", value: x}\n";
  }
  EXPECT_THAT(Errors(many),
              ElementsAre("trainingInput.masterConfig.env: must have at most "
                          "100 variables, got 101"));
  EXPECT_THAT(
      Errors("trainingInput:\n  masterConfig:\n    env: [{name: A, value: '" +
             std::string(128 * 1024, 'v') + "'}]\n"),
      ElementsAre("trainingInput.masterConfig.env[0].value: must be shorter "
                  "than 128 KiB, without NUL bytes, got 131072 bytes"));
  EXPECT_THAT(Errors("trainingInput:\n  masterConfig:\n    env: [{name: " +
                     std::string(257, 'N') + "}]\n"),
              ElementsAre(HasSubstr("env[0].name: must be 1 to 256 letters")));
  EXPECT_THAT(
      Errors("trainingInput:\n  masterConfig:\n    env: [{value: d}]\n"),
      ElementsAre("trainingInput.masterConfig.env[0].name: required"));
  EXPECT_THAT(Errors("trainingInput:\n  masterConfig:\n    env: {A: b}\n"),
              ElementsAre("trainingInput.masterConfig.env: must be a list, "
                          "got a mapping"));
}

TEST(ContainerConfigTest, DisplayNameOutputDirectoryAndDialectAreChecked) {
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  displayName: '" +
             std::string(129, 'x') +
             "'\n"
             "  baseOutputDirectory: s3://bucket/out\n"
             "  dialect: VERTEX_AI\n"),
      ElementsAre("trainingInput.displayName: must be 1 to 128 characters, "
                  "got 129",
                  "trainingInput.baseOutputDirectory: must be a local "
                  "directory or a gs:// URI (under the runner's --gcs-root), "
                  "got \"s3://bucket/out\"",
                  "trainingInput.dialect: must be one of AI_PLATFORM, VERTEX, "
                  "got \"VERTEX_AI\" (did you mean VERTEX?)"));
  // 128 characters of two bytes each are 128 characters.
  std::string name;
  for (int i = 0; i < 128; ++i) name += "é";
  EXPECT_EQ(
      ParseOk("trainingInput: {displayName: '" + name + "'}\n").display_name,
      name);
}

TEST(ContainerConfigTest, PackagesAndTheOutputDirectoryAreRelativeToTheConfig) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  masterConfig: {imageUri: t, pythonModule: m, packageUris: "
      "[dist/p.tar.gz, /abs/q.tar.gz]}\n"
      "  baseOutputDirectory: out\n");
  ResolveConfigPaths(
      "/cfg", [](const std::filesystem::path&) { return false; }, job);
  EXPECT_THAT(job.master.container.package_uris,
              ElementsAre("/cfg/dist/p.tar.gz", "/abs/q.tar.gz"));
  EXPECT_EQ(job.base_output_directory, "/cfg/out");
}

}  // namespace
}  // namespace hptune
