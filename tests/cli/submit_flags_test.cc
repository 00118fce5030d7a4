#include "src/cli/client/submit_flags.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/core/stored_spec.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"
#include "src/cli/backend_flags.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/flag_table.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli::client {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kCustomConfig[] = R"(trainingInput:
  pythonModule: trainer.task
  packagePath: trainer
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerType: n1-standard-4
  workerCount: 2
  args: [--steps=300]
  jobDir: out
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 12
    maxParallelTrials: 3
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 3.0, scaleType: UNIT_LOG_SCALE}
)";

class SubmitFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }

  std::string WriteConfig(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir_ + "/configs");
    const std::string path = dir_ + "/configs/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Parses `argv` as `jobs submit` does (the job ID already taken).
  ParsedArgs Args(const std::vector<std::string>& argv) {
    std::set<std::string> flags = ValueFlagNames(kSubmitCommand);
    flags.insert("config");
    auto parsed = ParseArgs(argv, flags, {});
    EXPECT_OK(parsed);
    return *parsed;
  }

  absl::StatusOr<Submission> Build(std::vector<std::string> argv,
                                   const std::string& job_id = "job_1") {
    RepeatedSlurmFlags slurm_flags = TakeRepeatedSlurmFlags(argv);
    ParsedArgs args = Args(argv);
    return BuildSubmission(DefaultEnv(), job_id, args.Get("config"), args,
                           std::move(slurm_flags), "/home/user");
  }

  std::string dir_;
};

TEST_F(SubmitFlagsTest, ConfigAloneKeepsItsValuesWithPathsMadeAbsolute) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build({"--config", config});
  ASSERT_OK(submission);
  const JobSpec& job = submission->job;
  EXPECT_EQ(job.job_id, "job_1");
  EXPECT_EQ(job.module_name, "trainer.task");
  // Paths in the file are relative to the file, not to the user.
  EXPECT_EQ(job.package_path, dir_ + "/configs/trainer");
  EXPECT_EQ(job.job_dir, dir_ + "/configs/out");
  EXPECT_EQ(job.worker.count, 2);
  EXPECT_THAT(job.args, ElementsAre("--steps=300"));
  ASSERT_TRUE(job.study.has_value());
  EXPECT_EQ(job.study->max_trials, 12);
}

TEST_F(SubmitFlagsTest, FlagsOverrideTheFileAndUserArgsAreAppended) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build(
      {"--config", config, "--max-trials", "4", "--max-parallel-trials", "2",
       "--worker-count", "3", "--worker-machine-type", "n1-standard-8",
       "--master-accelerator", "type=NVIDIA_TESLA_T4,count=2", "--package-path",
       "pkg", "--job-dir", "/data/j", "--", "--epochs=2"});
  ASSERT_OK(submission);
  const JobSpec& job = submission->job;
  EXPECT_EQ(job.study->max_trials, 4);
  EXPECT_EQ(job.study->max_parallel_trials, 2);
  EXPECT_EQ(job.worker.count, 3);
  EXPECT_EQ(job.worker.machine_type, "n1-standard-8");
  EXPECT_EQ(job.master.accelerator,
            (AcceleratorConfig{.count = 2, .type = "NVIDIA_TESLA_T4"}));
  // Paths in flags are relative to the current directory.
  EXPECT_EQ(job.package_path, "/home/user/pkg");
  EXPECT_EQ(job.job_dir, "/data/j");
  EXPECT_THAT(job.args, ElementsAre("--steps=300", "--epochs=2"));
}

// gcloud's flags of `ai-platform jobs submit training` and `ai
// hp-tuning-jobs create` set what they name there.
TEST_F(SubmitFlagsTest, GcloudsFlagsSetWhatTheyNameInGcloud) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission =
      Build({"--config", config, "--max-trial-count", "5",
             "--parallel-trial-count", "2", "--max-failed-trial-count", "0",
             "--algorithm", "random-search", "--display-name", "mnist tuning"});
  ASSERT_OK(submission);
  const JobSpec& job = submission->job;
  EXPECT_EQ(job.study->max_trials, 5);
  EXPECT_EQ(job.study->max_parallel_trials, 2);
  EXPECT_EQ(job.study->max_failed_trials, 0);
  EXPECT_EQ(job.study->algorithm, Algorithm::kRandomSearch);
  EXPECT_EQ(job.display_name, "mnist tuning");
  auto multi_fidelity =
      Build({"--config", config, "--algorithm", "multi-fidelity-gp"});
  ASSERT_OK(multi_fidelity);
  EXPECT_EQ(multi_fidelity->job.study->algorithm, Algorithm::kMultiFidelityGp);

  const std::string containers = WriteConfig(
      "k.yaml",
      "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n"
      "  workerCount: 1\n  workerType: n1-standard-4\n"
      "  masterConfig: {imageUri: old:1}\n  workerConfig: {imageUri: old:2}\n");
  auto images = Build({"--config", containers, "--master-image-uri", "img:1",
                       "--worker-image-uri", "img:2"});
  ASSERT_OK(images);
  EXPECT_EQ(images->job.master.container.image_uri, "img:1");
  EXPECT_EQ(images->job.worker.container.image_uri, "img:2");
}

// gcloud's --job-dir gs://B/P is the bucket's path, not a local one.
TEST_F(SubmitFlagsTest, ABucketJobDirFlagStaysABucketPath) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build({"--config", config, "--job-dir", "gs://bkt/out"});
  ASSERT_OK(submission);
  EXPECT_EQ(submission->job.job_dir, "gs://bkt/out");
}

TEST_F(SubmitFlagsTest, GcloudsNameAndHptunesTogetherAreRefused) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  EXPECT_THAT(
      Build({"--config", config, "--max-trial-count", "5", "--max-trials", "4"})
          .status()
          .message(),
      HasSubstr("--max-trial-count and --max-trials are one flag"));
  EXPECT_THAT(
      Build({"--config", config, "--algorithm", "bayes"}).status().message(),
      HasSubstr("--algorithm: expected algorithm-unspecified"));
}

// The convex rule's settings go with the rule a flag replaces.
TEST_F(SubmitFlagsTest, AnotherRulesFlagDropsTheConvexRulesSettings) {
  std::string text = kCustomConfig;
  text.insert(text.find("    params:"),
              "    earlyStoppingRule: convex\n"
              "    convexStopping: {maxStepCount: 900}\n");
  const std::string config = WriteConfig("c.yaml", text);
  auto same = Build({"--config", config, "--early-stopping", "convex"});
  ASSERT_OK(same);
  EXPECT_EQ(same->job.study->stopping_settings.values.size(), 1u);
  auto other = Build({"--config", config, "--early-stopping", "median"});
  ASSERT_OK(other);
  EXPECT_EQ(other->job.study->early_stopping_rule, "median");
  EXPECT_TRUE(other->job.study->stopping_settings.empty());
}

// The rule checks its settings before anything is sent.
TEST_F(SubmitFlagsTest, ABadRuleSettingIsRefusedNamingItsField) {
  std::string text = kCustomConfig;
  text.insert(text.find("    params:"),
              "    earlyStoppingRule: convex\n"
              "    convexStopping: {minMeasurementCount: 1}\n");
  const std::string config = WriteConfig("c.yaml", text);
  EXPECT_THAT(
      Build({"--config", config}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("trainingInput.hyperparameters.convexStopping."
                         "minMeasurementCount: must be 2 to 1000, got 1")));
  // Another rule by flag drops them, and the job is good.
  EXPECT_OK(Build({"--config", config, "--early-stopping", "median"}));
}

TEST_F(SubmitFlagsTest, ResumeFromIsResumePreviousJobId) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission =
      Build({"--config", config, "--resume-from", "mnist_1"}, "mnist_2");
  ASSERT_OK(submission);
  EXPECT_EQ(submission->job.study->resume_previous_job_id, "mnist_1");
  // Not the job's own ID, in the words `hptune run` uses.
  auto own = Build({"--config", config, "--resume-from", "mnist_2"}, "mnist_2");
  ASSERT_FALSE(own.ok());
  EXPECT_THAT(std::string(own.status().message()),
              HasSubstr("--resume-from: \"mnist_2\" is this job's own ID"));
}

TEST_F(SubmitFlagsTest, CommandReplacesTheFilesPythonModule) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission =
      Build({"--config", config, "--command", "/usr/bin/python3  /t/x.py -v"});
  ASSERT_OK(submission);
  EXPECT_THAT(submission->job.command,
              ElementsAre("/usr/bin/python3", "/t/x.py", "-v"));
  EXPECT_TRUE(submission->job.module_name.empty());
  EXPECT_TRUE(submission->job.package_path.empty());
}

TEST_F(SubmitFlagsTest, AScaleTierFlagReplacesTheFilesTaskPools) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build({"--config", config, "--scale-tier", "standard-1"});
  ASSERT_OK(submission);
  EXPECT_EQ(submission->job.scale_tier, ScaleTier::kStandard1);
  EXPECT_EQ(submission->job.worker.count, 4);
  EXPECT_EQ(submission->job.parameter_server.count, 3);
}

// The flags are applied to the typed job, which is then completed and
// judged as a config file would be (CompleteJob, ValidateJob).
TEST_F(SubmitFlagsTest, AJobWithFlagsAppliedIsCompletedAndJudgedAsAFile) {
  const std::string config =
      WriteConfig("c.yaml",
                  "trainingInput:\n"
                  "  scaleTier: CUSTOM\n"
                  "  masterType: n1-standard-4\n"
                  "  masterConfig: {imageUri: 'gcr.io/p/trainer:1'}\n"
                  "  workerType: n1-standard-4\n");
  auto submission = Build({"--config", config, "--worker-count", "2"});
  ASSERT_OK(submission);
  EXPECT_EQ(submission->job.worker.container.image_uri, "gcr.io/p/trainer:1");

  const std::string basic =
      WriteConfig("b.yaml", "trainingInput: {command: [python3, train.py]}\n");
  EXPECT_THAT(Build({"--config", basic, "--scale-tier", "CUSTOM"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "the config with the command-line flags applied:\n"
                       "trainingInput.masterType: required with scaleTier "
                       "CUSTOM"));
}

TEST_F(SubmitFlagsTest, MachineFlagsOnANonCustomTierNameTheFlag) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build(
      {"--config", config, "--scale-tier", "BASIC", "--worker-count", "2"});
  EXPECT_THAT(submission,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--worker-count: only allowed with scaleTier CUSTOM, "
                       "got scaleTier BASIC"));
}

TEST_F(SubmitFlagsTest, AnInvalidOverrideIsReportedWithTheField) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build({"--config", config, "--worker-accelerator",
                           "count=3,type=NVIDIA_TESLA_T4"});
  ASSERT_FALSE(submission.ok());
  EXPECT_THAT(submission.status().message(),
              HasSubstr("trainingInput.workerConfig.acceleratorConfig.count"));
}

TEST_F(SubmitFlagsTest, MalformedFlagValuesNameTheFlagAndValue) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--max-trials", "0"},
       "--max-trials: expected an integer >= 1, got \"0\""},
      {{"--max-failed-trials", "-1"},
       "--max-failed-trials: expected an integer >= 0, got \"-1\""},
      {{"--worker-count", "two"},
       "--worker-count: expected an integer >= 0, got \"two\""},
      {{"--use-chief-in-tf-config", "yes"},
       "--use-chief-in-tf-config: expected true or false, got \"yes\""},
      {{"--command", "   "}, "--command: empty command"},
      {{"--master-accelerator", "count=2"},
       "--master-accelerator: type is required (expected count=N,type=TYPE), "
       "got \"count=2\""},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {"--config", config};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    auto submission = Build(argv);
    ASSERT_FALSE(submission.ok()) << c.flags[0];
    EXPECT_THAT(submission,
                StatusIs(absl::StatusCode::kInvalidArgument, c.message));
  }
}

TEST_F(SubmitFlagsTest, StudyFlagsWithoutHyperparametersSaySo) {
  auto submission = Build({"--command", "/bin/true", "--max-trials", "3"});
  ASSERT_FALSE(submission.ok());
  EXPECT_THAT(submission.status().message(),
              HasSubstr("--max-trials: the job has no hyperparameters"));
}

TEST_F(SubmitFlagsTest, FlagsAloneDescribeAPlainTrainingJob) {
  auto submission = Build({"--command", "/bin/echo hi"});
  ASSERT_OK(submission);
  EXPECT_FALSE(submission->job.study.has_value());
  EXPECT_EQ(submission->job.scale_tier, ScaleTier::kBasic);
}

TEST_F(SubmitFlagsTest, BadJobIdIsNamedBeforeTheConfigIsRead) {
  auto submission = Build({"--config", dir_ + "/missing.yaml"}, "1job");
  ASSERT_FALSE(submission.ok());
  EXPECT_THAT(submission,
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("JOB: ")));
  EXPECT_THAT(submission.status().message(), HasSubstr("1job"));
}

TEST_F(SubmitFlagsTest, MissingConfigIsNotFoundAndInvalidConfigListsErrors) {
  auto missing = Build({"--config", dir_ + "/missing.yaml"});
  EXPECT_THAT(missing,
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing.yaml")));

  const std::string bad = WriteConfig(
      "bad.json",
      R"({"trainingInput": {"hyperparameters": {"maxTrials": 0}}})");
  auto invalid = Build({"--config", bad});
  EXPECT_THAT(invalid,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trainingInput.hyperparameters.maxTrials")));
}

TEST_F(SubmitFlagsTest, TheSubmissionIsTheTrainingInputMessage) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  auto submission = Build({"--config", config, "--master-accelerator",
                           "count=1,type=NVIDIA_TESLA_T4"});
  ASSERT_OK(submission);
  const v1::TrainingInput* input = &submission->training_input;
  EXPECT_EQ(input->scale_tier(), v1::TrainingInput::CUSTOM);
  EXPECT_EQ(input->worker_count(), 2);
  EXPECT_EQ(input->master_config().accelerator_config().count(), 1);
  EXPECT_EQ(input->python_module(), "trainer.task");
  EXPECT_EQ(input->hyperparameters().max_trials(), 12);
  EXPECT_EQ(input->hyperparameters().params(0).scale_type(),
            v1::ParameterSpec::UNIT_LOG_SCALE);
  // And the message's JSON is a config the parser accepts as the same job:
  // what the server will do with it.
  const std::string back =
      "{\"trainingInput\": " + MessageToJson(*input, false) + "}";
  ConfigParseResult parsed = ParseJobConfig(back, ConfigFormat::kJson, "job_1");
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].ToString();
  EXPECT_EQ(*parsed.job, submission->job);
}

TEST_F(SubmitFlagsTest, TheConfigsBackendBlockGoesWithTheJob) {
  const std::string config = WriteConfig(
      "c.yaml", std::string(kCustomConfig) +
                    "backend: slurm\n"
                    "slurm: {partition: gpu, time: \"30\", options: "
                    "[--qos=high]}\n");
  auto submission = Build({"--config", config});
  ASSERT_OK(submission);
  EXPECT_EQ(submission->backend, "slurm");
  EXPECT_EQ(submission->job.slurm,
            (SlurmJobOptions{.partition = "gpu",
                             .account = "",
                             .time = "30",
                             .options = {"--qos=high"}}));
  // Without backend: the job takes the server's.
  auto unnamed = Build({"--config", WriteConfig("plain.yaml", kCustomConfig)});
  ASSERT_OK(unnamed);
  EXPECT_EQ(unnamed->backend, "");
  EXPECT_TRUE(unnamed->job.slurm.empty());
}

TEST_F(SubmitFlagsTest, BackendFlagsOverrideTheConfigsBlock) {
  const std::string config = WriteConfig(
      "c.yaml", std::string(kCustomConfig) +
                    "slurm: {partition: gpu, time: \"30\", options: "
                    "[--qos=high]}\n");
  auto submission =
      Build({"--config", config, "--slurm-time", "2:00:00", "--slurm-account",
             "ml", "--slurm-option=--nice=5", "--slurm-option", "--qos=low"});
  ASSERT_OK(submission);
  // A field given replaces the file's; options follow the file's, and
  // sbatch takes the last of a repeated one.
  EXPECT_EQ(
      submission->job.slurm,
      (SlurmJobOptions{.partition = "gpu",
                       .account = "ml",
                       .time = "2:00:00",
                       .options = {"--qos=high", "--nice=5", "--qos=low"}}));
  // No backend named anywhere: the server's.
  EXPECT_EQ(submission->backend, "");

  auto named = Build({"--config", config, "--backend", "slurm"});
  ASSERT_OK(named);
  EXPECT_EQ(named->backend, "slurm");
  // The flags alone describe a Slurm job too.
  auto flags_only = Build({"--command", "/bin/true", "--slurm-partition",
                           "debug", "--backend=slurm"});
  ASSERT_OK(flags_only);
  EXPECT_EQ(flags_only->job.slurm.partition, "debug");
  EXPECT_EQ(flags_only->backend, "slurm");
}

TEST_F(SubmitFlagsTest, BadBackendFlagsNameTheFlagAndValue) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  const std::string local = WriteConfig(
      "local.yaml", std::string(kCustomConfig) + "backend: local\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--backend", "k8s"}, "--backend: expected local or slurm, got \"k8s\""},
      {{"--slurm-time", "soon"}, "--slurm-time: must be a Slurm time limit"},
      {{"--slurm-partition", "two words"},
       "--slurm-partition: must be one word"},
      {{"--slurm-option", "--output=/tmp/x"},
       "--slurm-option: hptune sets --output itself"},
      {{"--slurm-option=qos=high"},
       "--slurm-option: must be one sbatch option such as --qos=high"},
      {{"--slurm-gpu-type", "NVIDIA_TESLA_T4=t4"},
       "--slurm-gpu-type: a setting of the Slurm server"},
      {{"--backend", "local", "--slurm-time", "30"},
       "--slurm-* flags need --backend slurm (or no backend, to take "
       "the server's), but the job names local"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {"--config", config};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto submission = Build(argv);
    ASSERT_FALSE(submission.ok()) << flags.front();
    EXPECT_TRUE(absl::IsInvalidArgument(submission.status()));
    EXPECT_THAT(submission.status().message(), HasSubstr(message));
  }
  auto from_file = Build({"--config", local, "--slurm-option=--nice=1"});
  ASSERT_FALSE(from_file.ok());
  EXPECT_THAT(from_file.status().message(), HasSubstr("names local"));
  // --backend over the file's backend: local.
  auto overridden = Build(
      {"--config", local, "--backend", "slurm", "--slurm-option=--nice=1"});
  ASSERT_OK(overridden);
  EXPECT_EQ(overridden->backend, "slurm");
}

TEST(ParseAcceleratorFlagTest, AcceptsEitherOrderAndDefaultsCountToOne) {
  auto a = ParseAcceleratorFlag("worker-accelerator", "type=T,count=4");
  ASSERT_OK(a);
  EXPECT_EQ(*a, (AcceleratorConfig{.count = 4, .type = "T"}));
  auto b = ParseAcceleratorFlag("worker-accelerator", "type=T");
  ASSERT_OK(b);
  EXPECT_EQ(b->count, 1);
}

TEST(ParseAcceleratorFlagTest, RejectsUnknownKeysRepeatsAndBadCounts) {
  EXPECT_EQ(ParseAcceleratorFlag("a", "type=T,size=2").status().message(),
            "--a: unknown key \"size\" (expected count=N,type=TYPE), got "
            "\"type=T,size=2\"");
  EXPECT_THAT(ParseAcceleratorFlag("a", "type=T,type=U").status().message(),
              HasSubstr("type given twice"));
  EXPECT_THAT(ParseAcceleratorFlag("a", "type=T,count=0").status().message(),
              HasSubstr("count must be an integer >= 1, got \"0\""));
}

// The text a submitted job crosses, counted (docs/architecture.md, "A
// field's way"): the user's YAML once on the client; none in the server,
// which reads the request's TrainingInput field by field
// (JobSpecFromProto); the stored JSON once for each reader after that.
// The conversions are called here directly; SubmissionParseCountTest
// (tests/integration) counts the same job through a real server.
TEST_F(SubmitFlagsTest, ASubmittedJobIsParsedFromTextOncePerHop) {
  const std::string config = WriteConfig("c.yaml", kCustomConfig);
  int64_t before = config_internal::TextParseCount();
  auto submission = Build({"--config", config, "--max-parallel-trials", "4"});
  ASSERT_OK(submission);
  EXPECT_EQ(config_internal::TextParseCount() - before, 1);  // The YAML.
  EXPECT_EQ(submission->training_input.hyperparameters().max_parallel_trials(),
            4);

  before = config_internal::TextParseCount();
  absl::StatusOr<JobSpec> received =
      api::JobSpecFromProto(submission->training_input, "job_1");
  ASSERT_OK(received);
  EXPECT_EQ(config_internal::TextParseCount() - before, 0);
  EXPECT_EQ(*received, submission->job);

  const std::string stored = TrainingInputToJson(*received);
  before = config_internal::TextParseCount();
  absl::StatusOr<JobSpec> run = DecodeStoredJob(stored, "job_1");
  ASSERT_OK(run);
  EXPECT_EQ(config_internal::TextParseCount() - before, 1);
  EXPECT_EQ(run->study->max_parallel_trials, 4);
}

}  // namespace
}  // namespace hptune::cli::client
