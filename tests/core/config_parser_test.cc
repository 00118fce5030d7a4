// Tests for ParseJobConfig and TrainingInputToJson: the
// config contract of docs/config.md, every error message, and that no
// input makes the parser throw or crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string SourcePath(std::string_view relative) {
  return std::string(HPTUNE_SOURCE_DIR) + "/" + std::string(relative);
}

std::string ReadSourceFile(std::string_view relative) {
  std::ifstream in(SourcePath(relative));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The golden error lines of a broken_*.yaml file, one per line.
std::vector<std::string> ReadLines(std::string_view relative) {
  std::istringstream in(ReadSourceFile(relative));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Errors(std::string_view text,
                                ConfigFormat format = ConfigFormat::kAuto,
                                std::string_view job_id = "") {
  ConfigParseResult result = ParseJobConfig(text, format, job_id);
  EXPECT_EQ(result.job.has_value(), result.errors.empty());
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors)
    lines.push_back(error.ToString());
  return lines;
}

JobSpec ParseOk(std::string_view text, std::string_view job_id = "") {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, job_id);
  for (const FieldError& error : result.errors) {
    ADD_FAILURE() << "unexpected error: " << error.ToString();
  }
  return result.job.value_or(JobSpec{});
}

// A config whose hyperparameters block has `fields` (indented four spaces)
// and then `params` (list items indented four spaces).
std::string Study(std::string_view params, std::string_view fields = "") {
  return "trainingInput:\n  hyperparameters:\n" + std::string(fields) +
         "    params:\n" + std::string(params);
}

constexpr char kOneParam[] =
    "    - {parameterName: lr, type: DOUBLE, minValue: 0.1, maxValue: 1}\n";

// --- The examples -----------------------------------------------------------

TEST(ConfigParserTest, ContractExampleParsesToTheJobItDescribes) {
  JobSpec job = ParseOk(ReadSourceFile("examples/configs/mnist_custom.yaml"));
  EXPECT_EQ(job.scale_tier, ScaleTier::kCustom);
  EXPECT_EQ(job.master, (TaskPool{.count = 1,
                                  .machine_type = "n1-highcpu-16",
                                  .accelerator = {4, "NVIDIA_TESLA_T4"}}));
  EXPECT_EQ(job.worker, (TaskPool{.count = 9,
                                  .machine_type = "n1-highcpu-16",
                                  .accelerator = {4, "NVIDIA_TESLA_T4"}}));
  EXPECT_EQ(job.parameter_server,
            (TaskPool{.count = 3, .machine_type = "n1-highmem-8"}));
  EXPECT_EQ(job.evaluator, TaskPool{});
  EXPECT_THAT(job.args, ElementsAre("--epochs=10"));
  EXPECT_EQ(job.job_dir, "/data/jobs/mnist_20261121");
  EXPECT_EQ(job.scheduling,
            (SchedulingSpec{.max_running_time = std::chrono::hours(24),
                            .max_wait_time = std::chrono::hours(1)}));
  EXPECT_EQ(job.labels, (JobLabels{{"team", "vision"}, {"project", "mnist"}}));
  ASSERT_TRUE(job.study.has_value());
  const StudySpec& study = *job.study;
  EXPECT_EQ(study.goal(), Goal::kMaximize);
  EXPECT_EQ(study.metric_tag(), "accuracy");
  EXPECT_EQ(study.max_trials, 30);
  EXPECT_EQ(study.max_parallel_trials, 2);
  EXPECT_EQ(study.max_failed_trials, 3);
  EXPECT_TRUE(study.enable_early_stopping);
  EXPECT_EQ(study.resume_previous_job_id, "mnist_20261120");
  EXPECT_EQ(study.algorithm, Algorithm::kUnspecified);
  const std::vector<ParameterSpec>& params = study.search_space.parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0], (ParameterSpec{.name = "lr",
                                      .type = ParameterType::kDouble,
                                      .min_value = 1e-5,
                                      .max_value = 1e-1,
                                      .scale = ScaleType::kLog}));
  EXPECT_EQ(params[1], (ParameterSpec{.name = "hidden",
                                      .type = ParameterType::kInteger,
                                      .min_value = 40,
                                      .max_value = 400,
                                      .scale = ScaleType::kLinear}));
  EXPECT_EQ(params[2], (ParameterSpec{.name = "layers",
                                      .type = ParameterType::kDiscrete,
                                      .discrete_values = {1, 2, 4}}));
  EXPECT_EQ(params[3], (ParameterSpec{.name = "cell",
                                      .type = ParameterType::kCategorical,
                                      .categorical_values = {"GRU", "LSTM"}}));
}

TEST(ConfigParserTest, JsonGridExampleParses) {
  JobSpec job = ParseOk(ReadSourceFile("examples/configs/basic_grid.json"));
  EXPECT_EQ(job.scale_tier, ScaleTier::kBasic);
  EXPECT_THAT(job.command, ElementsAre("python3", "trainer/task.py"));
  ASSERT_TRUE(job.study.has_value());
  EXPECT_EQ(job.study->algorithm, Algorithm::kGridSearch);
  EXPECT_EQ(job.study->goal(), Goal::kMinimize);
  EXPECT_EQ(job.study->search_space.parameters().size(), 3u);
}

// --- Defaults and scale tiers -----------------------------------------------

TEST(ConfigParserTest, EmptyTrainingInputIsOneBasicMasterWithoutStudy) {
  JobSpec job = ParseOk("trainingInput: {}\n");
  EXPECT_EQ(job.scale_tier, ScaleTier::kBasic);
  EXPECT_EQ(job.master,
            (TaskPool{.count = 1, .machine_type = "n1-standard-4"}));
  EXPECT_EQ(job.worker.count, 0);
  EXPECT_EQ(job.parameter_server.count, 0);
  EXPECT_FALSE(job.study.has_value());
  EXPECT_FALSE(job.use_chief_in_tf_config);
}

TEST(ConfigParserTest, StudyDefaultsFollowAiPlatform) {
  JobSpec job = ParseOk(Study(kOneParam));
  ASSERT_TRUE(job.study.has_value());
  EXPECT_EQ(job.study->goal(), Goal::kMaximize);
  EXPECT_EQ(job.study->metric_tag(), "training/hptuning/metric");
  EXPECT_EQ(job.study->max_trials, 1);
  EXPECT_EQ(job.study->max_parallel_trials, 1);
  EXPECT_EQ(job.study->max_failed_trials, 0);
  EXPECT_FALSE(job.study->enable_early_stopping);
  EXPECT_EQ(job.study->algorithm, Algorithm::kUnspecified);
  EXPECT_FALSE(job.study->seed.has_value());
  EXPECT_EQ(job.study->search_space.parameters()[0].scale, ScaleType::kNone);
}

TEST(ConfigParserTest, ScaleTiersStandForTheirPools) {
  JobSpec standard = ParseOk("trainingInput: {scaleTier: STANDARD_1}\n");
  EXPECT_EQ(standard.master,
            (TaskPool{.count = 1, .machine_type = "n1-highcpu-8"}));
  EXPECT_EQ(standard.worker,
            (TaskPool{.count = 4, .machine_type = "n1-highcpu-8"}));
  EXPECT_EQ(standard.parameter_server,
            (TaskPool{.count = 3, .machine_type = "n1-standard-4"}));

  JobSpec premium = ParseOk("trainingInput: {scaleTier: PREMIUM_1}\n");
  EXPECT_EQ(premium.master.count, 1);
  EXPECT_EQ(premium.worker.count, 19);
  EXPECT_EQ(premium.parameter_server.count, 11);

  JobSpec gpu = ParseOk("trainingInput: {scaleTier: BASIC_GPU}\n");
  EXPECT_EQ(gpu.master, (TaskPool{.count = 1,
                                  .machine_type = "n1-standard-8",
                                  .accelerator = {1, "NVIDIA_TESLA_K80"}}));
  EXPECT_EQ(gpu.worker.count, 0);
}

TEST(ConfigParserTest, BasicTpuIsNotSupported) {
  EXPECT_THAT(Errors("trainingInput: {scaleTier: BASIC_TPU}\n"),
              ElementsAre("trainingInput.scaleTier: BASIC_TPU is not "
                          "supported: hptune runs no TPUs"));
}

TEST(ConfigParserTest, UnknownScaleTierListsTheTiersAndSuggestsOne) {
  EXPECT_THAT(Errors("trainingInput: {scaleTier: STANDARD1}\n"),
              ElementsAre("trainingInput.scaleTier: must be one of BASIC, "
                          "STANDARD_1, PREMIUM_1, BASIC_GPU, BASIC_TPU, "
                          "CUSTOM, got \"STANDARD1\" (did you mean "
                          "STANDARD_1?)"));
}

TEST(ConfigParserTest, PoolFieldsNeedScaleTierCustom) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  scaleTier: STANDARD_1\n"
                     "  masterType: n1-standard-8\n"
                     "  workerConfig: {acceleratorConfig: {count: 1, type: "
                     "NVIDIA_TESLA_T4}}\n"),
              ElementsAre("trainingInput.masterType: only allowed with "
                          "scaleTier CUSTOM, got scaleTier STANDARD_1",
                          "trainingInput.workerConfig.acceleratorConfig: only "
                          "allowed with scaleTier CUSTOM, got scaleTier "
                          "STANDARD_1"));
  EXPECT_THAT(Errors("trainingInput: {workerCount: 2}\n"),
              ElementsAre("trainingInput.workerCount: only allowed with "
                          "scaleTier CUSTOM, got scaleTier BASIC (the "
                          "default)"));
}

TEST(ConfigParserTest, CustomNeedsMasterTypeAndTypesForUsedPools) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  scaleTier: CUSTOM\n"
                     "  workerCount: 2\n"
                     "  parameterServerCount: 1\n"
                     "  evaluatorCount: 0\n"
                     "  evaluatorConfig: {acceleratorConfig: {count: 1, "
                     "type: NVIDIA_TESLA_T4}}\n"),
              ElementsAre("trainingInput.masterType: required with scaleTier "
                          "CUSTOM",
                          "trainingInput.workerType: required when "
                          "workerCount is 2",
                          "trainingInput.parameterServerType: required when "
                          "parameterServerCount is 1",
                          "trainingInput.evaluatorConfig: set without "
                          "evaluatorType"));
}

TEST(ConfigParserTest, CustomTakesTypesAndCountsAsGiven) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: complex_model_m_gpu\n"
      "  workerCount: 2\n"
      "  workerType: a2-highgpu-2g\n"
      "  workerConfig: {acceleratorConfig: {count: 2, type: "
      "NVIDIA_TESLA_A100}}\n"
      "  evaluatorCount: 1\n"
      "  evaluatorType: e2-standard-4\n"
      "  useChiefInTfConfig: true\n");
  EXPECT_EQ(job.master,
            (TaskPool{.count = 1, .machine_type = "complex_model_m_gpu"}));
  EXPECT_EQ(job.worker, (TaskPool{.count = 2,
                                  .machine_type = "a2-highgpu-2g",
                                  .accelerator = {2, "NVIDIA_TESLA_A100"}}));
  EXPECT_EQ(job.parameter_server, TaskPool{});
  EXPECT_EQ(job.evaluator,
            (TaskPool{.count = 1, .machine_type = "e2-standard-4"}));
  EXPECT_TRUE(job.use_chief_in_tf_config);
}

// --- Replica counts ----------------------------------------------------------

TEST(ConfigParserTest, ReplicaCountsAreNonNegativeIntegersWithABound) {
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  scaleTier: CUSTOM\n"
             "  masterType: n1-standard-4\n"
             "  workerCount: 2.5\n"
             "  parameterServerCount: -1\n"
             "  evaluatorCount: 1001\n"),
      ElementsAre(
          "trainingInput.workerCount: must be an integer, got 2.5",
          "trainingInput.parameterServerCount: must be at least 0, got -1",
          // Read, then bounded by ValidateJob: a type is wanted either way.
          "trainingInput.evaluatorType: required when evaluatorCount is 1001",
          "trainingInput.evaluatorCount: must be at most 1000, got 1001"));
}

TEST(ConfigParserTest, ReplicaCountsMayBeQuotedLikeAiPlatformInt64s) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  workerCount: '9'\n"
      "  workerType: n1-standard-4\n"
      "  workerConfig: {acceleratorConfig: {count: '2', type: "
      "NVIDIA_TESLA_T4}}\n");
  EXPECT_EQ(job.worker.count, 9);
  EXPECT_EQ(job.worker.accelerator.count, 2);
  EXPECT_THAT(Errors("trainingInput: {scaleTier: CUSTOM, masterType: "
                     "n1-standard-4, workerCount: 'nine'}\n"),
              ElementsAre("trainingInput.workerCount: must be an integer, "
                          "got \"nine\""));
}

// --- Machine types and accelerators
// -------------------------------------------

std::string CustomMaster(std::string_view type, std::string_view config = "") {
  std::string text = "trainingInput:\n  scaleTier: CUSTOM\n  masterType: " +
                     std::string(type) + "\n";
  if (!config.empty()) text += "  masterConfig: " + std::string(config) + "\n";
  return text;
}

TEST(ConfigParserTest, UnknownMachineTypeSuggestsTheClosest) {
  EXPECT_THAT(Errors(CustomMaster("n1-standrd-8")),
              ElementsAre("trainingInput.masterType: unknown machine type "
                          "\"n1-standrd-8\" (did you mean n1-standard-8?)"));
  EXPECT_THAT(Errors(CustomMaster("n1_highmem_8")),
              ElementsAre("trainingInput.masterType: unknown machine type "
                          "\"n1_highmem_8\" (did you mean n1-highmem-8?)"));
  EXPECT_THAT(Errors(CustomMaster("my-box")),
              ElementsAre("trainingInput.masterType: unknown machine type "
                          "\"my-box\""));
}

TEST(ConfigParserTest, AcceleratorCountsFollowTheMachineTypeTable) {
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-standard-16",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}}")),
              IsEmpty());
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-standard-16",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_K80}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.count: "
                          "machine type n1-standard-16 takes 2, 4 or 8 "
                          "NVIDIA_TESLA_K80, got 1"));
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-highcpu-32",
                  "{acceleratorConfig: {count: 8, type: NVIDIA_TESLA_P100}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.count: "
                          "machine type n1-highcpu-32 takes 2 or 4 "
                          "NVIDIA_TESLA_P100, got 8"));
}

TEST(ConfigParserTest, A100NeedsAMatchingA2MachineType) {
  EXPECT_THAT(Errors(CustomMaster(
                  "a2-megagpu-16g",
                  "{acceleratorConfig: {count: 16, type: NVIDIA_TESLA_A100}}")),
              IsEmpty());
  EXPECT_THAT(Errors(CustomMaster(
                  "a2-highgpu-2g",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_A100}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.count: "
                          "machine type a2-highgpu-2g takes 2 "
                          "NVIDIA_TESLA_A100, got 1"));
  EXPECT_THAT(Errors(CustomMaster("a2-highgpu-4g")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig: "
                          "required with machine type a2-highgpu-4g: count 4, "
                          "type NVIDIA_TESLA_A100"));
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-standard-8",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_A100}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.type: "
                          "NVIDIA_TESLA_A100 is not available with machine "
                          "type n1-standard-8 (available: NVIDIA_TESLA_K80, "
                          "NVIDIA_TESLA_P4, NVIDIA_TESLA_P100, "
                          "NVIDIA_TESLA_T4, NVIDIA_TESLA_V100); machine types "
                          "that take NVIDIA_TESLA_A100: a2-highgpu-1g, "
                          "a2-highgpu-2g, a2-highgpu-4g, a2-highgpu-8g, "
                          "a2-megagpu-16g"));
}

TEST(ConfigParserTest, AcceleratorTypeMustBeAGpuTheBackendHas) {
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-standard-8",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_K8}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.type: "
                          "must be one of NVIDIA_TESLA_K80, NVIDIA_TESLA_P4, "
                          "NVIDIA_TESLA_P100, NVIDIA_TESLA_T4, "
                          "NVIDIA_TESLA_V100, NVIDIA_TESLA_A100, "
                          "NVIDIA_A100_80GB, NVIDIA_L4, NVIDIA_H100_80GB, "
                          "NVIDIA_H100_MEGA_80GB, NVIDIA_H200_141GB, "
                          "NVIDIA_B200, got \"NVIDIA_TESLA_K8\" (did you mean "
                          "NVIDIA_TESLA_K80?)"));
  EXPECT_THAT(
      Errors(CustomMaster("n1-standard-8",
                          "{acceleratorConfig: {count: 8, type: TPU_V2}}")),
      ElementsAre("trainingInput.masterConfig.acceleratorConfig.type: "
                  "TPU_V2 is not supported: hptune runs no TPUs"));
}

TEST(ConfigParserTest, MachineTypesWithoutGpuOptionsTakeNoAcceleratorConfig) {
  EXPECT_THAT(Errors(CustomMaster(
                  "standard_p100",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_P100}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig: "
                          "machine type standard_p100 comes with 1 "
                          "NVIDIA_TESLA_P100 and takes no acceleratorConfig"));
  EXPECT_THAT(Errors(CustomMaster(
                  "e2-standard-8",
                  "{acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig: "
                          "machine type e2-standard-8 takes no "
                          "acceleratorConfig"));
}

TEST(ConfigParserTest, AcceleratorConfigNeedsCountAndType) {
  EXPECT_THAT(
      Errors(CustomMaster("n1-standard-8", "{acceleratorConfig: {}}")),
      ElementsAre(
          "trainingInput.masterConfig.acceleratorConfig.count: required",
          "trainingInput.masterConfig.acceleratorConfig.type: required"));
  EXPECT_THAT(Errors(CustomMaster(
                  "n1-standard-8",
                  "{acceleratorConfig: {count: 0, type: NVIDIA_TESLA_T4}}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig.count: "
                          "must be at least 1, got 0"));
  EXPECT_THAT(Errors(CustomMaster("n1-standard-8", "{acceleratorConfig: [1]}")),
              ElementsAre("trainingInput.masterConfig.acceleratorConfig: must "
                          "be a mapping, got [1]"));
}

TEST(ConfigParserTest, TpusInReplicaConfigAreNotSupported) {
  EXPECT_THAT(
      Errors(CustomMaster("n1-standard-8",
                          "{imageUri: gcr.io/p/t, tpuTfVersion: '2.1'}")),
      ElementsAre("trainingInput.masterConfig.tpuTfVersion: not "
                  "supported: hptune runs no TPUs"));
}

TEST(ConfigParserTest, ACustomCatalogueAddsMachineTypes) {
  MachineCatalogue catalogue = MachineCatalogue::Builtin();
  ASSERT_OK(catalogue.Add({.name = "dgx-l4",
                           .vcpus = 32,
                           .memory_gb = 256,
                           .accelerators = {{"NVIDIA_L4", {1, 2, 4, 8}}}}));
  const std::string config = CustomMaster(
      "dgx-l4", "{acceleratorConfig: {count: 4, type: NVIDIA_L4}}");
  ConfigParseResult result = ParseJobConfig(catalogue, config);
  EXPECT_THAT(result.errors, IsEmpty());
  ASSERT_TRUE(result.job.has_value());
  EXPECT_EQ(result.job->master.accelerator,
            (AcceleratorConfig{4, "NVIDIA_L4"}));
  EXPECT_THAT(Errors(config),
              ElementsAre("trainingInput.masterType: unknown machine type "
                          "\"dgx-l4\""));
}

// --- The trainer
// ---------------------------------------------------------------

TEST(ConfigParserTest, TrainerIsAPythonModuleOrACommand) {
  JobSpec module = ParseOk(
      "trainingInput: {pythonModule: trainer.task, packagePath: ./trainer}\n");
  EXPECT_EQ(module.module_name, "trainer.task");
  EXPECT_EQ(module.package_path, "./trainer");
  JobSpec command = ParseOk("trainingInput: {command: [./train, --fast]}\n");
  EXPECT_THAT(command.command, ElementsAre("./train", "--fast"));
  EXPECT_TRUE(command.module_name.empty());
}

TEST(ConfigParserTest, PythonInterpreterIsAnAbsolutePath) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  command: [python3, t.py]\n"
      "  pythonInterpreter: /home/me/venv/bin/python3\n");
  EXPECT_EQ(job.python_interpreter, "/home/me/venv/bin/python3");
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  command: [python3, t.py]\n"
                     "  pythonInterpreter: venv/bin/python3\n"),
              ElementsAre("trainingInput.pythonInterpreter: must be an "
                          "absolute path to a Python interpreter, such as "
                          "/home/me/venv/bin/python3, got "
                          "\"venv/bin/python3\""));
}

TEST(ConfigParserTest, TrainerFieldsThatConflictOrAreEmptyAreErrors) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  command: [python3, t.py]\n"
                     "  pythonModule: trainer.task\n"),
              ElementsAre("trainingInput.command: cannot be used with "
                          "pythonModule \"trainer.task\": give one trainer, "
                          "got [\"python3\", \"t.py\"]"));
  EXPECT_THAT(Errors("trainingInput: {packagePath: ./trainer}\n"),
              ElementsAre("trainingInput.packagePath: needs pythonModule or "
                          "command (what to run from it), got \"./trainer\""));
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  packagePath: ./trainer\n"
                     "  command: [/usr/bin/python3, -m, trainer.task]\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(Errors("trainingInput: {command: []}\n"),
              ElementsAre("trainingInput.command: must not be empty"));
  EXPECT_THAT(Errors("trainingInput: {command: ['', x]}\n"),
              ElementsAre("trainingInput.command: the program (command[0]) "
                          "must not be empty"));
  EXPECT_THAT(Errors("trainingInput: {pythonModule: '', jobDir: ''}\n"),
              ElementsAre("trainingInput.pythonModule: must not be empty",
                          "trainingInput.jobDir: must not be empty"));
}

TEST(ConfigParserTest, ArgsAreStringsAndYamlNumbersMustBeQuoted) {
  EXPECT_THAT(ParseOk("trainingInput: {args: ['--lr', '0.1']}\n").args,
              ElementsAre("--lr", "0.1"));
  EXPECT_THAT(Errors("trainingInput: {args: [--epochs, 10]}\n"),
              ElementsAre("trainingInput.args[1]: must be a string, got 10 "
                          "(quote it: \"10\")"));
}

TEST(ConfigParserTest, RegionIsKeptVersionsAreAcceptedAndIgnored) {
  JobSpec job = ParseOk(
      "trainingInput: {region: us-central1, runtimeVersion: "
      "'2.11', pythonVersion: '3.7'}\n");
  EXPECT_EQ(job.region, "us-central1");
  job.region.clear();
  EXPECT_EQ(job, ParseOk("trainingInput: {}\n"));
  EXPECT_THAT(Errors("trainingInput: {runtimeVersion: 2.11}\n"),
              ElementsAre("trainingInput.runtimeVersion: must be a string, got "
                          "2.11 (quote it: \"2.11\")"));
}

// gcloud's `ai-platform jobs submit training` sends it with every job.
TEST(ConfigParserTest, EnableWebAccessFalseIsAcceptedTrueRefused) {
  EXPECT_EQ(ParseOk("trainingInput: {enableWebAccess: false}\n"),
            ParseOk("trainingInput: {}\n"));
  EXPECT_THAT(Errors("trainingInput: {enableWebAccess: true}\n"),
              ElementsAre("trainingInput.enableWebAccess: only false is "
                          "supported: hptune gives trials no web shell"));
}

TEST(ConfigParserTest, CloudOnlyFieldsAreRejectedWithTheReason) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  network: projects/p/global/networks/n\n"
                     "  serviceAccount: me@example.com\n"),
              ElementsAre("trainingInput.network: not supported: hptune "
                          "runs trials on its own machines",
                          "trainingInput.serviceAccount: not supported: "
                          "hptune runs trials on its own machines"));
}

// gcloud's --package-path uploads the package and sends its gs:// URI;
// the bucket's names are checked here, the root when the job runs.
TEST(ConfigParserTest, TrainerPackageUrisAreReadAndTheirNamesChecked) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  pythonModule: trainer.task\n"
      "  packageUris: [gs://bkt/j/ab/trainer-0.0.0.tar.gz, /srv/t.whl]\n"
      "  jobDir: gs://bkt/out\n");
  EXPECT_THAT(job.package_uris,
              ElementsAre("gs://bkt/j/ab/trainer-0.0.0.tar.gz", "/srv/t.whl"));
  EXPECT_EQ(job.job_dir, "gs://bkt/out");
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  packageUris: [gs://bkt/../t.tar.gz, https://x.org/t.whl]\n"
             "  jobDir: gs://ab/out\n"),
      ElementsAre(
          "trainingInput.packageUris: needs pythonModule (what to run from "
          "the packages)",
          "trainingInput.packageUris[0]: an object name must not hold a "
          "\".\" or \"..\" segment (it would leave its bucket), got "
          "\"gs://bkt/../t.tar.gz\"",
          "trainingInput.packageUris[1]: must be a local path or a gs:// URI "
          "(under the runner's --gcs-root): hptune fetches nothing from the "
          "web, got \"https://x.org/t.whl\"",
          "trainingInput.jobDir: a bucket name must be 3 to 63 characters, "
          "got \"gs://ab/out\""));
}

// --- scheduling
// -------------------------------------------------------------------

TEST(ConfigParserTest, SchedulingTimeLimitsReadAsAiPlatformWritesThem) {
  JobSpec job = ParseOk(
      "trainingInput:\n"
      "  scheduling: {maxRunningTime: 7200s, maxWaitTime: '1.000000250s', "
      "priority: 0}\n");
  EXPECT_EQ(job.scheduling.max_running_time, std::chrono::hours(2));
  // Digits past the microsecond are dropped.
  EXPECT_EQ(job.scheduling.max_wait_time, std::chrono::microseconds(1'000'000));
  EXPECT_EQ(
      ParseOk("trainingInput: {scheduling: {maxWaitTime: 1.5s}}\n").scheduling,
      (SchedulingSpec{.max_wait_time = std::chrono::milliseconds(1500)}));
  EXPECT_EQ(ParseOk("trainingInput: {scheduling: {}}\n").scheduling,
            SchedulingSpec{});
  EXPECT_EQ(ParseOk("trainingInput: {}\n").scheduling, SchedulingSpec{});
}

TEST(ConfigParserTest, BadSchedulingValuesNameTheFieldAndValue) {
  constexpr char kForm[] =
      "must be a duration in seconds ending in s, as AI Platform writes it "
      "(e.g. \"7200s\" or \"1.5s\"), got ";
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  scheduling:\n"
             "    maxRunningTime: 7200\n"
             "    maxWaitTime: 2h\n"),
      ElementsAre(absl::StrCat("trainingInput.scheduling.maxRunningTime: ",
                               kForm, "7200"),
                  absl::StrCat("trainingInput.scheduling.maxWaitTime: ", kForm,
                               "\"2h\"")));
  EXPECT_THAT(
      Errors("trainingInput:\n"
             "  scheduling:\n"
             "    maxRunningTime: -5s\n"
             "    maxWaitTime: 0.5s\n"),
      ElementsAre(absl::StrCat("trainingInput.scheduling.maxRunningTime: ",
                               kForm, "\"-5s\""),
                  "trainingInput.scheduling.maxWaitTime: must be at least 1s, "
                  "got \"0.5s\""));
  for (const char* bad :
       {"s", "1.s", ".5s", "1.0000000001s", "1e3s", "1 s", "0x10s", "[1s]"}) {
    EXPECT_THAT(Errors(absl::StrCat("trainingInput: {scheduling: "
                                    "{maxRunningTime: '",
                                    bad, "'}}\n")),
                ElementsAre(HasSubstr("scheduling.maxRunningTime: must be a "
                                      "duration in seconds")))
        << bad;
  }
  EXPECT_THAT(Errors("trainingInput: {scheduling: {maxRunningTime: "
                     "315576000001s}}\n"),
              ElementsAre("trainingInput.scheduling.maxRunningTime: must be "
                          "at most 315576000000s, got \"315576000001s\""));
  EXPECT_THAT(Errors("trainingInput: {scheduling: {priority: 500, "
                     "timeout: 60s}}\n"),
              ElementsAre(HasSubstr("trainingInput.scheduling.priority: is not "
                                    "supported: hptune starts jobs in the "
                                    "order they come"),
                          "trainingInput.scheduling.timeout: unknown field "
                          "(did you mean maxRunningTime?)"));
  EXPECT_THAT(Errors("trainingInput: {scheduling: {priority: 1001}}\n"),
              ElementsAre(HasSubstr("trainingInput.scheduling.priority")));
  EXPECT_THAT(Errors("trainingInput: {scheduling: 3600s}\n"),
              ElementsAre(HasSubstr("trainingInput.scheduling: ")));
}

// --- Unknown, misplaced and duplicate fields
// --------------------------------------

TEST(ConfigParserTest, UnknownFieldsSuggestTheNearestAcceptedName) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  scaleTeir: BASIC\n"
                     "  worker_count: 2\n"
                     "  moduleName: trainer.task\n"
                     "  colour: blue\n"),
              ElementsAre("trainingInput.scaleTeir: unknown field (did you "
                          "mean scaleTier?)",
                          "trainingInput.worker_count: unknown field (did you "
                          "mean workerCount?)",
                          "trainingInput.moduleName: unknown field (did you "
                          "mean pythonModule?)",
                          "trainingInput.colour: unknown field"));
  // Two accepted names in reach: workerCount (one edit) is suggested,
  // not workerConfig (three), which comes after it in the field list.
  EXPECT_THAT(Errors("trainingInput: {workerCont: 2}\n"),
              ElementsAre("trainingInput.workerCont: unknown field (did you "
                          "mean workerCount?)"));
  EXPECT_THAT(Errors(Study(kOneParam, "    maxTrial: 3\n")),
              ElementsAre("trainingInput.hyperparameters.maxTrial: unknown "
                          "field (did you mean maxTrials?)"));
  EXPECT_THAT(Errors(Study("    - {name: lr, type: DOUBLE, minValue: 0.1, "
                           "maxValue: 1}\n")),
              ElementsAre("trainingInput.hyperparameters.params[0].name: "
                          "unknown field (did you mean parameterName?)",
                          "trainingInput.hyperparameters.params[0]."
                          "parameterName: required"));
}

TEST(ConfigParserTest, StudyFieldsOneLevelTooHighPointToHyperparameters) {
  EXPECT_THAT(Errors("trainingInput: {goal: MINIMIZE, params: []}\n"),
              ElementsAre("trainingInput.goal: unknown field (did you mean "
                          "hyperparameters.goal?)",
                          "trainingInput.params: unknown field (did you mean "
                          "hyperparameters.params?)"));
}

TEST(ConfigParserTest, DuplicateKeysAreErrors) {
  EXPECT_THAT(Errors("trainingInput:\n"
                     "  jobDir: /a\n"
                     "  jobDir: /b\n"),
              ElementsAre("trainingInput.jobDir: duplicate field (first set on "
                          "line 2), got \"/b\""));
  EXPECT_THAT(Errors(R"({"trainingInput": {"jobDir": "/a", "jobDir": "/b"}})"),
              ElementsAre("trainingInput.jobDir: duplicate field, got \"/b\""));
}

TEST(ConfigParserTest, RootMustBeAMappingWithTrainingInput) {
  EXPECT_THAT(Errors("- trainingInput: {}\n"),
              ElementsAre("(root): must be a mapping with a trainingInput "
                          "field, got a list of 1 item"));
  EXPECT_THAT(Errors("jobId: my_job\n"),
              ElementsAre("jobId: not supported: give the job ID on the "
                          "command line, not in the file",
                          "trainingInput: required"));
  EXPECT_THAT(Errors("trainingInputs: {}\n"),
              ElementsAre("trainingInputs: unknown field (did you mean "
                          "trainingInput?)",
                          "trainingInput: required"));
  EXPECT_THAT(Errors("trainingInput: BASIC\n"),
              ElementsAre("trainingInput: must be a mapping, got \"BASIC\""));
  EXPECT_THAT(Errors("trainingInput:\n"),
              ElementsAre("trainingInput: must be a mapping, got null (an "
                          "empty value)"));
}

TEST(ConfigParserTest, EmptyConfigsAreReportedNotParsed) {
  for (std::string_view text :
       {"", "  \n", "# only a comment\n", "---\n", "~\n"}) {
    EXPECT_THAT(Errors(text),
                ElementsAre("trainingInput: required (the config is empty)"))
        << text;
  }
}

// --- YAML and JSON typing
// --------------------------------------------------------

TEST(ConfigParserTest, PlainYamlScalarsAreTypedAndQuotedOnesAreStrings) {
  JobSpec job = ParseOk(
      Study("    - {parameterName: lr, type: DOUBLE, minValue: 1e-5, maxValue: "
            "0x10}\n",
            "    maxTrials: 3e1\n    enableTrialEarlyStopping: True\n"));
  EXPECT_EQ(job.study->max_trials, 30);
  EXPECT_TRUE(job.study->enable_early_stopping);
  EXPECT_EQ(job.study->search_space.parameters()[0].min_value, 1e-5);
  EXPECT_EQ(job.study->search_space.parameters()[0].max_value, 16);
  EXPECT_THAT(
      Errors(Study("    - {parameterName: lr, type: DOUBLE, minValue: '1e-5', "
                   "maxValue: \"1\"}\n",
                   "    enableTrialEarlyStopping: 'true'\n")),
      ElementsAre("trainingInput.hyperparameters.enableTrialEarlyStopping: "
                  "must be true or false, got \"true\"",
                  "trainingInput.hyperparameters.params[0].minValue: must be "
                  "a number, got \"1e-5\"",
                  "trainingInput.hyperparameters.params[0].maxValue: must be "
                  "a number, got \"1\""));
  // Block scalars too, literal and folded.
  EXPECT_THAT(
      Errors(Study("    - parameterName: lr\n"
                   "      type: DOUBLE\n"
                   "      minValue: |\n"
                   "        0.5\n"
                   "      maxValue: >-\n"
                   "        1\n")),
      ElementsAre("trainingInput.hyperparameters.params[0].minValue: must be "
                  "a number, got \"0.5\\n\"",
                  "trainingInput.hyperparameters.params[0].maxValue: must be "
                  "a number, got \"1\""));
}

TEST(ConfigParserTest, NanAndInfinityAreRejectedEverywhere) {
  EXPECT_THAT(
      Errors(Study("    - {parameterName: a, type: DOUBLE, minValue: .nan, "
                   "maxValue: 1}\n"
                   "    - {parameterName: b, type: DISCRETE, discreteValues: "
                   "[1, -.inf]}\n",
                   "    maxTrials: .inf\n")),
      ElementsAre("trainingInput.hyperparameters.maxTrials: must be finite, "
                  "got .inf",
                  "trainingInput.hyperparameters.params[0].minValue: must be "
                  "finite, got .nan",
                  "trainingInput.hyperparameters.params[1].discreteValues[1]: "
                  "must be finite, got -.inf"));
}

TEST(ConfigParserTest, JsonIsReadTheSameWay) {
  JobSpec job = ParseOk(R"({"trainingInput": {"hyperparameters": {
      "maxTrials": 4.0,
      "params": [{"parameterName": "lr", "type": "DOUBLE",
                  "minValue": 1e-5, "maxValue": 1}]}}})");
  EXPECT_EQ(job.study->max_trials, 4);
  EXPECT_THAT(Errors(R"({"trainingInput": {"workerCount": "x", "args": 3}})"),
              ElementsAre("trainingInput.workerCount: only allowed with "
                          "scaleTier CUSTOM, got scaleTier BASIC (the default)",
                          "trainingInput.args: must be a list, got 3"));
}

// --- Syntax errors
// --------------------------------------------------------------

TEST(ConfigParserTest, YamlSyntaxErrorsGiveLineAndColumn) {
  EXPECT_THAT(Errors(ReadSourceFile("tests/core/testdata/broken_syntax.yaml")),
              ElementsAre("line 4, column 9: invalid YAML: end of sequence "
                          "flow not found"));
  EXPECT_THAT(Errors("trainingInput:\n  a: b: c\n"),
              ElementsAre("line 2, column 7: invalid YAML: illegal map value"));
}

TEST(ConfigParserTest, JsonSyntaxErrorsGiveLineAndColumn) {
  EXPECT_THAT(Errors("{\"trainingInput\": {\n  \"jobDir\": }\n}"),
              ElementsAre("line 2, column 13: invalid JSON: syntax error "
                          "while parsing value - unexpected '}'; expected "
                          "'[', '{', or a literal"));
  EXPECT_THAT(Errors("{\"trainingInput\": {}} x"),
              ElementsAre("line 1, column 23: invalid JSON: syntax error "
                          "while parsing value - invalid literal; last read: "
                          "'\"trainingInput\": {}} x'; expected end of input"));
}

TEST(ConfigParserTest, YamlOddsAndEndsAreErrorsNotCrashes) {
  EXPECT_THAT(Errors("trainingInput: {}\n---\ntrainingInput: {}\n"),
              ElementsAre("line 3, column 1: invalid config: only one YAML "
                          "document is allowed"));
  // yaml-cpp 0.7's LoadAll loops forever, allocating, on these (found by
  // tests/fuzz/config_parser_fuzzer).
  EXPECT_THAT(Errors("[5],"),
              ElementsAre("line 1, column 4: invalid YAML: unexpected text "
                          "after the end of the config"));
  EXPECT_THAT(Errors(","),
              ElementsAre("line 1, column 1: invalid YAML: unexpected text "
                          "after the end of the config"));
  EXPECT_THAT(Errors("trainingInput:\n  ? [a]\n  : 1\n"),
              ElementsAre("line 2, column 5: invalid YAML: a mapping key must "
                          "be a plain string"));
  EXPECT_THAT(Errors("trainingInput:\n  args: &a [*a]\n"),
              ElementsAre("line 2, column 9: invalid YAML: nesting deeper "
                          "than 64 levels"));
  EXPECT_THAT(Errors("trainingInput:\n  jobDir: !custom x\n"),
              ElementsAre("line 2, column 11: invalid YAML: cannot read \"x\" "
                          "as YAML tag !custom"));
  // yaml-cpp refuses very deep nesting itself (with an odd message).
  EXPECT_THAT(Errors(std::string(5000, '[') + std::string(5000, ']')),
              ElementsAre("line 1, column 1: invalid YAML: bad file"));
}

TEST(ConfigParserTest, JsonOddsAndEndsAreErrorsNotCrashes) {
  EXPECT_THAT(Errors(std::string(100, '[') + std::string(100, ']'),
                     ConfigFormat::kJson),
              ElementsAre("(config): invalid JSON: nesting deeper than 64 "
                          "levels"));
  EXPECT_THAT(Errors("{\"a\": \"\xff\"}"),
              ElementsAre("line 1, column 8: invalid JSON: syntax error while "
                          "parsing value - invalid string: ill-formed UTF-8 "
                          "byte; last read: '\"\xff'"));
  EXPECT_THAT(Errors("{\"a\": 1e400}"),
              ElementsAre("line 1, column 11: invalid JSON: number overflow "
                          "parsing '1e400'"));
  EXPECT_THAT(Errors("", ConfigFormat::kJson),
              ElementsAre("trainingInput: required (the config is empty)"));
}

// Every prefix of a valid config is a config with errors or a valid one;
// none may throw or crash.
TEST(ConfigParserTest, TruncatedConfigsNeverThrow) {
  for (const char* file : {"examples/configs/mnist_custom.yaml",
                           "examples/configs/basic_grid.json"}) {
    const std::string text = ReadSourceFile(file);
    for (size_t length = 0; length <= text.size(); ++length) {
      ConfigParseResult result = ParseJobConfig(text.substr(0, length));
      EXPECT_NE(result.job.has_value(), !result.errors.empty()) << length;
    }
  }
}

// --- Whole files: every error, in file order
// ------------------------------------------

class BrokenConfigTest : public testing::TestWithParam<std::string> {};

TEST_P(BrokenConfigTest, ReportsEveryErrorInFileOrder) {
  const std::string base = "tests/core/testdata/" + GetParam();
  EXPECT_THAT(Errors(ReadSourceFile(base + ".yaml")),
              testing::ElementsAreArray(ReadLines(base + ".errors")));
}

INSTANTIATE_TEST_SUITE_P(Files, BrokenConfigTest,
                         testing::Values("broken_types", "broken_rules",
                                         "broken_machines", "broken_syntax"));

// --- The hyperparameters block
// ----------------------------------------------------

TEST(ConfigParserTest, HyperparametersNeedParams) {
  EXPECT_THAT(Errors("trainingInput: {hyperparameters: {maxTrials: 2}}\n"),
              ElementsAre("trainingInput.hyperparameters.params: required (at "
                          "least one parameter)"));
  EXPECT_THAT(Errors("trainingInput: {hyperparameters: {params: []}}\n"),
              ElementsAre("trainingInput.hyperparameters.params: must not be "
                          "empty"));
  EXPECT_THAT(Errors("trainingInput: {hyperparameters: {params: {a: 1}}}\n"),
              ElementsAre("trainingInput.hyperparameters.params: must be a "
                          "list, got a mapping"));
  EXPECT_THAT(Errors("trainingInput: {hyperparameters: {params: [lr]}}\n"),
              ElementsAre("trainingInput.hyperparameters.params[0]: must be a "
                          "mapping, got \"lr\""));
}

TEST(ConfigParserTest, AtMostOneHundredParams) {
  std::string params;
  for (int i = 0; i < 101; ++i) {
    params += "    - {parameterName: p" + std::to_string(i) +
              ", type: INTEGER, minValue: 0, maxValue: 1}\n";
  }
  EXPECT_THAT(Errors(Study(params)),
              ElementsAre("trainingInput.hyperparameters.params: must have at "
                          "most 100 parameters (conditional ones included), "
                          "got 101"));
}

TEST(ConfigParserTest, EnumsListTheirValues) {
  EXPECT_THAT(
      Errors(Study("    - {parameterName: lr, type: DOUBEL, minValue: 0.1, "
                   "maxValue: 1, scaleType: LOG}\n",
                   "    goal: MAXIMISE\n    algorithm: BAYESIAN\n")),
      ElementsAre("trainingInput.hyperparameters.goal: must be one of "
                  "MAXIMIZE, MINIMIZE, got \"MAXIMISE\" (did you mean "
                  "MAXIMIZE?)",
                  "trainingInput.hyperparameters.algorithm: must be one of "
                  "ALGORITHM_UNSPECIFIED, GRID_SEARCH, RANDOM_SEARCH, "
                  "QUASI_RANDOM_SEARCH, MULTI_FIDELITY_GP, got \"BAYESIAN\"",
                  "trainingInput.hyperparameters.params[0].type: must be one "
                  "of DOUBLE, INTEGER, DISCRETE, CATEGORICAL, got \"DOUBEL\" "
                  "(did you mean DOUBLE?)",
                  "trainingInput.hyperparameters.params[0].scaleType: must be "
                  "one of NONE, UNIT_LINEAR_SCALE, UNIT_LOG_SCALE, "
                  "UNIT_REVERSE_LOG_SCALE, got \"LOG\""));
}

TEST(ConfigParserTest, QuasiRandomSearchAndSeedAreHptuneExtensions) {
  JobSpec job = ParseOk(Study(kOneParam,
                              "    algorithm: QUASI_RANDOM_SEARCH\n"
                              "    seed: 18446744073709551615\n"));
  EXPECT_EQ(job.study->algorithm, Algorithm::kQuasiRandomSearch);
  EXPECT_EQ(job.study->seed, 18446744073709551615u);
  EXPECT_THAT(Errors(Study(kOneParam, "    seed: -1\n")),
              ElementsAre("trainingInput.hyperparameters.seed: must be an "
                          "integer from 0 to 18446744073709551615, got -1"));
}

TEST(ConfigParserTest, EachParameterTypeNeedsItsFields) {
  EXPECT_THAT(
      Errors(Study("    - {parameterName: a, type: DOUBLE, minValue: 0}\n"
                   "    - {parameterName: b, type: DISCRETE}\n"
                   "    - {parameterName: c, type: CATEGORICAL}\n"
                   "    - {parameterName: d}\n")),
      ElementsAre("trainingInput.hyperparameters.params[0].maxValue: required "
                  "with type DOUBLE",
                  "trainingInput.hyperparameters.params[1].discreteValues: "
                  "required with type DISCRETE",
                  "trainingInput.hyperparameters.params[2].categoricalValues: "
                  "required with type CATEGORICAL",
                  "trainingInput.hyperparameters.params[3].type: required"));
}

TEST(ConfigParserTest, FieldsOfAnotherParameterTypeAreErrors) {
  EXPECT_THAT(
      Errors(Study("    - {parameterName: a, type: CATEGORICAL, "
                   "categoricalValues: [x], minValue: 0, scaleType: NONE}\n"
                   "    - {parameterName: b, type: DOUBLE, minValue: 0, "
                   "maxValue: 1, discreteValues: [1]}\n"
                   "    - {parameterName: c, type: DISCRETE, discreteValues: "
                   "[1], categoricalValues: [x]}\n")),
      ElementsAre("trainingInput.hyperparameters.params[0].minValue: not "
                  "allowed with type CATEGORICAL, got 0",
                  "trainingInput.hyperparameters.params[0].scaleType: not "
                  "allowed with type CATEGORICAL, got \"NONE\"",
                  "trainingInput.hyperparameters.params[1].discreteValues: "
                  "not allowed with type DOUBLE, got [1]",
                  "trainingInput.hyperparameters.params[2].categoricalValues: "
                  "not allowed with type DISCRETE, got [\"x\"]"));
}

TEST(ConfigParserTest, LogScaleErrorNamesTheFieldAndValue) {
  EXPECT_THAT(
      Errors(Study(
          "    - {parameterName: a, type: DOUBLE, minValue: 1, maxValue: 2}\n"
          "    - {parameterName: b, type: INTEGER, minValue: 1, maxValue: 2}\n"
          "    - {parameterName: c, type: DOUBLE, minValue: -1, "
          "maxValue: 2, scaleType: UNIT_LOG_SCALE}\n")),
      ElementsAre("trainingInput.hyperparameters.params[2].scaleType: "
                  "UNIT_LOG_SCALE needs minValue > 0, got -1"));
}

TEST(ConfigParserTest, ParameterErrorsDoNotCascade) {
  // A missing maxValue leaves it at 0; "minValue must be less than maxValue"
  // would be noise on top of "maxValue: required".
  EXPECT_THAT(
      Errors(Study("    - {parameterName: a, type: DOUBLE, minValue: 5, "
                   "scaleType: UNIT_LOG_SCALE}\n")),
      ElementsAre("trainingInput.hyperparameters.params[0].maxValue: "
                  "required with type DOUBLE"));
}

TEST(ConfigParserTest, GridSearchNamesTheDoubleParameter) {
  EXPECT_THAT(
      Errors(Study("    - {parameterName: units, type: INTEGER, minValue: 1, "
                   "maxValue: 4}\n"
                   "    - {parameterName: lr, type: DOUBLE, minValue: 0.1, "
                   "maxValue: 1}\n",
                   "    algorithm: GRID_SEARCH\n")),
      ElementsAre("trainingInput.hyperparameters.params[1].type: algorithm "
                  "GRID_SEARCH needs INTEGER, DISCRETE or CATEGORICAL "
                  "parameters, got DOUBLE for \"lr\""));
}

TEST(ConfigParserTest, ResumePreviousJobIdFollowsTheJobIdRule) {
  EXPECT_THAT(Errors(Study(kOneParam, "    resumePreviousJobId: my-job\n")),
              ElementsAre("trainingInput.hyperparameters.resumePreviousJobId: "
                          "must contain only letters, digits and underscores, "
                          "got \"my-job\""));
  EXPECT_THAT(Errors(Study(kOneParam, "    resumePreviousJobId: ''\n")),
              ElementsAre("trainingInput.hyperparameters.resumePreviousJobId: "
                          "must not be empty"));
  EXPECT_THAT(
      Errors(Study(kOneParam, "    resumePreviousJobId: job_1\n"),
             ConfigFormat::kAuto, "job_1"),
      ElementsAre("trainingInput.hyperparameters.resumePreviousJobId: a "
                  "job cannot resume itself, got \"job_1\""));
}

TEST(ConfigParserTest, JobIdIsValidatedAndStored) {
  EXPECT_EQ(ParseOk("trainingInput: {}\n", "mnist_1").job_id, "mnist_1");
  EXPECT_THAT(
      Errors("trainingInput: {colour: x}\n", ConfigFormat::kAuto, "9lives"),
      ElementsAre("jobId: must start with a letter, got \"9lives\"",
                  "trainingInput.colour: unknown field"));
}

// --- Round trip
// -------------------------------------------------------------------

void ExpectRoundTrip(const JobSpec& job) {
  const std::string json = TrainingInputToJson(job);
  ConfigParseResult back =
      ParseJobConfig(json, ConfigFormat::kJson, job.job_id);
  EXPECT_THAT(back.errors, IsEmpty()) << json;
  ASSERT_TRUE(back.job.has_value()) << json;
  JobSpec without_labels = job;  // Not part of trainingInput.
  without_labels.labels.clear();
  EXPECT_EQ(*back.job, without_labels) << json;
  EXPECT_EQ(TrainingInputToJson(*back.job), json);
}

TEST(ConfigParserTest, CanonicalJsonParsesBackToAnEqualJob) {
  ExpectRoundTrip(
      ParseOk(ReadSourceFile("examples/configs/mnist_custom.yaml"), "j1"));
  ExpectRoundTrip(ParseOk(ReadSourceFile("examples/configs/basic_grid.json")));
  ExpectRoundTrip(
      ParseOk("trainingInput: {scaleTier: PREMIUM_1, "
              "useChiefInTfConfig: true}\n"));
  ExpectRoundTrip(ParseOk("trainingInput: {scaleTier: BASIC_GPU}\n"));
  ExpectRoundTrip(ParseOk(Study(
      "    - {parameterName: x, type: DOUBLE, minValue: 0.30000000000000004, "
      "maxValue: 1e300, scaleType: UNIT_REVERSE_LOG_SCALE}\n"
      "    - {parameterName: n, type: INTEGER, minValue: -9007199254740992, "
      "maxValue: 9007199254740992}\n"
      "    - {parameterName: d, type: DISCRETE, discreteValues: [-1.5, 0, "
      "2e-9]}\n"
      "    - {parameterName: c, type: CATEGORICAL, categoricalValues: "
      "['a \"b\"', 'ü']}\n",
      "    seed: 12345678901234567890\n    maxFailedTrials: 0\n")));
  JobSpec command = ParseOk(
      "trainingInput: {command: [./t], args: [], "
      "pythonVersion: '3.7'}\n");
  ExpectRoundTrip(command);
  ExpectRoundTrip(
      ParseOk("trainingInput: {scheduling: {maxRunningTime: 7200s, "
              "maxWaitTime: 1.000001s}}\n"));
  ExpectRoundTrip(
      ParseOk("trainingInput: {scheduling: {maxWaitTime: '0001.50s'}}\n"));
}

TEST(ConfigParserTest, AStoppingRuleTurnsEarlyStoppingOnAndRoundTrips) {
  const JobSpec job =
      ParseOk(Study(kOneParam, "    earlyStoppingRule: decay-curve\n"));
  EXPECT_TRUE(job.study->enable_early_stopping);
  EXPECT_EQ(job.study->early_stopping_rule, "decay-curve");
  ExpectRoundTrip(job);
  EXPECT_EQ(ParseOk(Study(kOneParam, "    enableTrialEarlyStopping: true\n"))
                .study->EffectiveStoppingRule(),
            "median-at-step");
}

TEST(ConfigParserTest, AStoppingRuleNeedsANameAndEarlyStoppingOn) {
  EXPECT_THAT(
      Errors(Study(kOneParam,
                   "    earlyStoppingRule: asha\n"
                   "    enableTrialEarlyStopping: false\n")),
      ElementsAre("trainingInput.hyperparameters.earlyStoppingRule: names "
                  "rule \"asha\" but enableTrialEarlyStopping is false"));
  EXPECT_THAT(
      Errors(Study(kOneParam, "    earlyStoppingRule: ''\n")),
      ElementsAre("trainingInput.hyperparameters.earlyStoppingRule: must not "
                  "be empty (leave it out for median-at-step)"));
  EXPECT_THAT(Errors(Study(kOneParam, "    earlyStoppingRule: " +
                                          std::string(101, 'r') + "\n")),
              ElementsAre(HasSubstr("earlyStoppingRule: expected a rule's "
                                    "name (1 to 100 characters")));
  EXPECT_THAT(Errors(Study(kOneParam, "    stoppingRule: asha\n")),
              ElementsAre(HasSubstr("earlyStoppingRule")));
}

TEST(ConfigParserTest, AStudysTrialLeaseIsReadCheckedAndRoundTrips) {
  const JobSpec job = ParseOk(Study(kOneParam, "    trialLeaseSeconds: 30\n"));
  EXPECT_EQ(job.study->trial_lease_seconds, 30);
  ExpectRoundTrip(job);
  EXPECT_EQ(ParseOk(Study(kOneParam)).study->trial_lease_seconds, std::nullopt);
  EXPECT_THAT(Errors(Study(kOneParam, "    trialLeaseSeconds: 86401\n")),
              ElementsAre("trainingInput.hyperparameters.trialLeaseSeconds: "
                          "must be at most 86400, got 86401"));
  EXPECT_THAT(Errors(Study(kOneParam, "    trialLeaseSeconds: -1\n")),
              ElementsAre(HasSubstr("trialLeaseSeconds: must be at least 0")));
}

TEST(ConfigParserTest, AStudysSeedingTrialsAreReadCheckedAndRoundTrip) {
  const JobSpec job = ParseOk(Study(kOneParam, "    seedingTrials: 10\n"));
  EXPECT_EQ(job.study->seeding_trials, 10);
  ExpectRoundTrip(job);
  EXPECT_EQ(ParseOk(Study(kOneParam)).study->seeding_trials, std::nullopt);
  EXPECT_THAT(Errors(Study(kOneParam, "    seedingTrials: 0\n")),
              ElementsAre("trainingInput.hyperparameters.seedingTrials: "
                          "must be at least 1, got 0"));
  EXPECT_THAT(Errors(Study(kOneParam, "    seedingTrials: 1001\n")),
              ElementsAre(HasSubstr("seedingTrials: must be at most 1000")));
  EXPECT_THAT(
      Errors(Study(kOneParam,
                   "    seedingTrials: 5\n    algorithm: RANDOM_SEARCH\n")),
      ElementsAre("trainingInput.hyperparameters.seedingTrials: only the GP "
                  "(algorithm ALGORITHM_UNSPECIFIED) starts with seeding "
                  "trials, got algorithm RANDOM_SEARCH"));
}

// A rule's settings are read as written, int64 strings as integers, and
// checked by the rule's factory (tests/cli/stopping_rules_test.cc), as core
// knows no rule; the parser checks only that they sit beside their rule.
TEST(ConfigParserTest, TheRulesSettingsAreReadAsWrittenAndRoundTrip) {
  const JobSpec job = ParseOk(Study(kOneParam,
                                    "    earlyStoppingRule: convex\n"
                                    "    convexStopping: {maxStepCount: '900',"
                                    " minStepCount: 100}\n"));
  EXPECT_EQ(job.study->stopping_settings,
            (StoppingSettings{.rule = "convex",
                              .values = {{"maxStepCount", int64_t{900}},
                                         {"minStepCount", int64_t{100}}}}));
  ExpectRoundTrip(job);
  const JobSpec generic =
      ParseOk(Study(kOneParam,
                    "    earlyStoppingRule: median-at-step\n"
                    "    earlyStoppingSettings: {warmupSteps: 100, "
                    "fraction: 0.5, strict: true, name: slow}\n"));
  EXPECT_EQ(generic.study->stopping_settings,
            (StoppingSettings{.values = {{"warmupSteps", int64_t{100}},
                                         {"fraction", 0.5},
                                         {"strict", true},
                                         {"name", std::string("slow")}}}));
  ExpectRoundTrip(generic);
  EXPECT_THAT(
      Errors(Study(kOneParam, "    earlyStoppingSettings: {a: 1}\n")),
      ElementsAre("trainingInput.hyperparameters.earlyStoppingSettings: "
                  "settings of the median-at-step rule, but the "
                  "study's rule is \"median-at-step\" and early "
                  "stopping is off"));
  EXPECT_THAT(Errors(Study(kOneParam,
                           "    earlyStoppingRule: asha\n"
                           "    convexStopping: {maxStepCount: 9}\n")),
              ElementsAre("trainingInput.hyperparameters.convexStopping: "
                          "settings of the convex rule, but the study's rule "
                          "is \"asha\""));
  EXPECT_THAT(Errors(Study(kOneParam, "    convexStopping: {maxSteps: []}\n")),
              Contains(HasSubstr("convexStopping.maxSteps: expected a number, "
                                 "true or false, or a string, got []")));
}

TEST(ConfigParserTest, CanonicalJsonFillsInDefaults) {
  EXPECT_EQ(
      TrainingInputToJson(ParseOk(Study(kOneParam))),
      R"({"trainingInput":{"scaleTier":"BASIC","useChiefInTfConfig":false,)"
      R"("args":[],"hyperparameters":{"goal":"MAXIMIZE",)"
      R"("hyperparameterMetricTag":"training/hptuning/metric",)"
      R"("maxTrials":1,"maxParallelTrials":1,"maxFailedTrials":0,)"
      R"("enableTrialEarlyStopping":false,)"
      R"("algorithm":"ALGORITHM_UNSPECIFIED","params":[{"parameterName":)"
      R"("lr","type":"DOUBLE","minValue":0.1,"maxValue":1.0,)"
      R"("scaleType":"NONE"}]}}})");
}

// --- Files
// ------------------------------------------------------------------------

// Reading a config from a file: tests/runner/config_file_test.cc.

// --- labels
// -----------------------------------------------------------------------

TEST(ConfigParserTest, LabelsAreReadBesideTrainingInput) {
  EXPECT_EQ(
      ParseOk("labels:\n"
              "  team: vision\n"
              "  owner_2: ana-b\n"
              "  draft: \"\"\n"
              "trainingInput: {}\n")
          .labels,
      (JobLabels{{"team", "vision"}, {"owner_2", "ana-b"}, {"draft", ""}}));
  EXPECT_EQ(
      ParseOk(R"({"labels": {"team": "nlp"}, "trainingInput": {}})").labels,
      (JobLabels{{"team", "nlp"}}));
  EXPECT_THAT(ParseOk("labels: {}\ntrainingInput: {}\n").labels, IsEmpty());
  // Labels describe the job, not its trainer: TF_CONFIG's "job" (the
  // canonical trainingInput) leaves them out.
  const JobSpec job = ParseOk("labels: {team: vision}\ntrainingInput: {}\n");
  EXPECT_EQ(TrainingInputToJson(job).find("vision"), std::string::npos);
}

TEST(ConfigParserTest, LabelErrorsNameTheLabelAndValue) {
  constexpr char kKeyRule[] =
      " must be 1 to 63 characters, a lowercase letter followed by lowercase "
      "letters, digits, '_' and '-'";
  constexpr char kValueRule[] =
      " must be at most 63 characters of lowercase letters, digits, '_' and "
      "'-'";
  const std::string long_value(64, 'a');
  EXPECT_THAT(
      Errors("labels:\n"
             "  Team: vision\n"
             "  2nd: x\n"
             "  owner: Ana B\n"
             "  version: 2\n"
             "  size: " +
             long_value +
             "\n"
             "  owner: bo\n"
             "trainingInput: {}\n"),
      ElementsAre(absl::StrCat("labels.Team: key \"Team\"", kKeyRule),
                  absl::StrCat("labels.2nd: key \"2nd\"", kKeyRule),
                  absl::StrCat("labels.owner: value \"Ana B\" of key \"owner\"",
                               kValueRule),
                  "labels.version: must be a string, got 2 (quote it: \"2\")",
                  absl::StrCat("labels.size: value \"", long_value,
                               "\" of key \"size\"", kValueRule),
                  "labels.owner: duplicate label, got \"bo\""));
  EXPECT_THAT(
      ValidateJobLabelKeys({"team", "Team", ""}, "--remove-labels"),
      ElementsAre(
          FieldError{"--remove-labels", absl::StrCat("key \"Team\"", kKeyRule)},
          FieldError{"--remove-labels", absl::StrCat("key \"\"", kKeyRule)}));
  EXPECT_THAT(Errors("labels: [team]\ntrainingInput: {}\n"),
              ElementsAre("labels: must be a mapping, got [\"team\"]"));
}

TEST(ConfigParserTest, AtMostSixtyFourLabels) {
  std::string text = "labels:\n";
  for (int i = 0; i < 65; ++i) text += "  k" + std::to_string(i) + ": v\n";
  EXPECT_THAT(Errors(text + "trainingInput: {}\n"),
              ElementsAre("labels: at most 64 labels, got 65"));
  JobLabels labels;
  for (int i = 0; i < 64; ++i) labels["k" + std::to_string(i)] = "v";
  EXPECT_THAT(ValidateJobLabels(labels, "--labels"), IsEmpty());
  labels["k64"] = "v";
  EXPECT_THAT(ValidateJobLabels(labels, "--labels"),
              ElementsAre(FieldError{"--labels", "at most 64 labels, got 65"}));
}

// --- The backend block
// --------------------------------------------------------

TEST(ConfigParserTest, SlurmBlockIsReadIntoTheBackend) {
  ConfigParseResult result = ParseJobConfig(
      "backend: slurm\n"
      "slurm: {partition: gpu, account: ml, time: \"1-12:30\",\n"
      "        options: [--qos=high, -N2]}\n"
      "trainingInput: {}\n");
  ASSERT_THAT(result.errors, IsEmpty());
  EXPECT_EQ(result.backend.backend, "slurm");
  EXPECT_EQ(result.backend.slurm,
            (SlurmJobOptions{.partition = "gpu",
                             .account = "ml",
                             .time = "1-12:30",
                             .options = {"--qos=high", "-N2"}}));
  // A config's block is for the launcher, not part of the parsed job.
  EXPECT_TRUE(result.job->slurm.empty());
}

TEST(ConfigParserTest, SlurmTimeTakesEveryFormSbatchDoes) {
  for (const char* time : {"30", "30:15", "2:00:00", "1-12", "1-12:30",
                           "1-12:30:15", "UNLIMITED", "INFINITE"}) {
    EXPECT_THAT(ValidateSlurmJobOptions({.time = time}, "slurm"), IsEmpty())
        << time;
  }
  for (const char* time :
       {"soon", "1:2:3:4", "-1", "1-", "1-2-3", ":30", "30:", "1:2-3", "2 h"}) {
    EXPECT_THAT(ValidateSlurmJobOptions({.time = time}, "slurm"),
                ElementsAre(FieldError{
                    "slurm.time",
                    "must be a Slurm time limit (minutes, "
                    "hours:minutes:seconds, days-hours:minutes, ... or "
                    "UNLIMITED), got \"" +
                        std::string(time) + "\""}))
        << time;
  }
}

TEST(ConfigParserTest, SlurmBlockErrorsNameTheFieldAndValue) {
  EXPECT_THAT(
      Errors("slurm:\n"
             "  partition: \"gpu a\"\n"
             "  account: \"\\tml\"\n"
             "  options: [qos=high, --job-name=x, -Jx, --output=o.log,\n"
             "            --ntasks-per-node=2, -pgpu, --outp=x]\n"
             "trainingInput: {}\n"),
      ElementsAre(
          "slurm.partition: must be one word of printable characters, got "
          "\"gpu a\"",
          "slurm.account: must be one word of printable characters, got "
          "\"\\tml\"",
          "slurm.options[0]: must be one sbatch option such as --qos=high, "
          "got \"qos=high\"",
          "slurm.options[1]: hptune sets --job-name itself for each trial; "
          "got \"--job-name=x\"",
          "slurm.options[2]: hptune sets -J itself for each trial; got "
          "\"-Jx\"",
          "slurm.options[3]: hptune sets --output itself for each trial; got "
          "\"--output=o.log\"",
          "slurm.options[6]: hptune sets --output itself for each trial; got "
          "\"--outp=x\""));
}

}  // namespace
}  // namespace hptune
