// Tests of what each replica of a trial sees (docs/trainer.md): its
// TF_CONFIG, CLUSTER_SPEC, CLOUD_ML_* and PyTorch variables, its devices and
// its command line, and the replica requests derived from a job.
#include "hptune/launch/replica_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune_testing::StatusHasCode;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kTrainingInput[] =
    R"({"scaleTier":"CUSTOM","workerCount":2,"hyperparameters":{"maxTrials":4}})";

JobSpec MakeJob() {
  JobSpec job;
  job.job_id = "mnist_1";
  job.scale_tier = ScaleTier::kCustom;
  job.master = {.count = 1, .machine_type = "n1-standard-8"};
  job.worker = {.count = 2,
                .machine_type = "n1-standard-8",
                .accelerator = {.count = 2, .type = "NVIDIA_TESLA_T4"}};
  job.parameter_server = {.count = 1, .machine_type = "n1-highmem-8"};
  job.evaluator = {.count = 1, .machine_type = "n1-standard-4"};
  job.command = {"python3", "trainer.py"};
  job.args = {"--epochs=10", "two words"};
  job.job_dir = "/data/jobs/mnist_1";
  StudySpec study;
  study.SetSingleMetric("accuracy");
  study.search_space = SearchSpace({
      {.name = "lr",
       .type = ParameterType::kDouble,
       .min_value = 1e-5,
       .max_value = 1,
       .scale = ScaleType::kLog},
      {.name = "hidden",
       .type = ParameterType::kInteger,
       .min_value = 40,
       .max_value = 400},
      {.name = "layers",
       .type = ParameterType::kDiscrete,
       .discrete_values = {1, 2, 4}},
      {.name = "cell",
       .type = ParameterType::kCategorical,
       .categorical_values = {"GRU", "LSTM"}},
  });
  job.study = study;
  return job;
}

TrialContext MakeContext(const JobSpec& job) {
  return {.job = &job,
          .training_input_json = kTrainingInput,
          .trial = 7,
          // Declared in another order than the search space: flags follow
          // the space.
          .parameters = {{"cell", ParameterValue::Categorical("LSTM")},
                         {"hidden", ParameterValue::Integer(128)},
                         {"layers", ParameterValue::Double(4)},
                         {"lr", ParameterValue::Double(0.1 + 0.2)}},
          .metric_tag = "accuracy",
          .job_dir = "/data/jobs/mnist_1",
          .trial_dir = "/var/hptune/mnist_1/7"};
}

// master, worker 0, worker 1, ps 0, evaluator 0 on ports 1000.. and GPUs.
std::vector<ReplicaPlacement> MakePlacement() {
  return {{"127.0.0.1", 1000, {}},
          {"127.0.0.1", 1001, {0, 1}},
          {"127.0.0.1", 1002, {2, 3}},
          {"127.0.0.1", 1003, {}},
          {"127.0.0.1", 0, {}}};
}

TrialLaunch BuildOrDie(const TrialContext& context) {
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(context, ReplicaRequests(*context.job), MakePlacement());
  EXPECT_OK(launch);
  return launch.ok() ? *launch : TrialLaunch{};
}

TEST(ReplicaRequestsTest, ListsMasterWorkersPsEvaluatorsWithTheirGpus) {
  std::vector<ReplicaRequest> requests = ReplicaRequests(MakeJob());
  EXPECT_THAT(
      requests,
      ElementsAre(ReplicaRequest{TaskType::kMaster, 0, 0, "",
                                 "trainingInput.masterConfig"},
                  ReplicaRequest{TaskType::kWorker, 0, 2, "NVIDIA_TESLA_T4",
                                 "trainingInput.workerConfig"},
                  ReplicaRequest{TaskType::kWorker, 1, 2, "NVIDIA_TESLA_T4",
                                 "trainingInput.workerConfig"},
                  ReplicaRequest{TaskType::kParameterServer, 0, 0, "",
                                 "trainingInput.parameterServerConfig"},
                  ReplicaRequest{TaskType::kEvaluator, 0, 0, "",
                                 "trainingInput.evaluatorConfig"}));
}

TEST(ReplicaRequestsTest, LegacyMachineTypesBringTheirOwnGpus) {
  JobSpec job;
  job.master = {.count = 1, .machine_type = "complex_model_m_p100"};
  EXPECT_THAT(
      ReplicaRequests(job),
      ElementsAre(ReplicaRequest{TaskType::kMaster, 0, 4, "NVIDIA_TESLA_P100",
                                 "trainingInput.masterConfig"}));
}

TEST(ReplicaEnvTest, TfConfigHasTheClusterTaskAndJobInOrder) {
  JobSpec job = MakeJob();
  TrialLaunch launch = BuildOrDie(MakeContext(job));
  ASSERT_EQ(launch.replicas.size(), 5u);
  EXPECT_EQ(launch.job_id, "mnist_1");
  EXPECT_EQ(launch.trial, 7);
  const std::string cluster = R"("cluster":{"master":["127.0.0.1:1000"],)"
                              R"("worker":["127.0.0.1:1001","127.0.0.1:1002"],)"
                              R"("ps":["127.0.0.1:1003"]})";
  const std::string job_json = R"("job":{"scaleTier":"CUSTOM","workerCount":2,)"
                               R"("hyperparameters":{"maxTrials":4}})";
  EXPECT_EQ(launch.replicas[2].env.at("TF_CONFIG"),
            "{" + cluster +
                R"(,"task":{"type":"worker","index":1,"trial":"7",)"
                R"("cloud":"mnist_1-7"},)" +
                job_json + R"(,"environment":"cloud"})");
  EXPECT_EQ(launch.replicas[0].env.at("TF_CONFIG"),
            "{" + cluster +
                R"(,"task":{"type":"master","index":0,"trial":"7",)"
                R"("cloud":"mnist_1-7"},)" +
                job_json + R"(,"environment":"cloud"})");
  // The evaluator knows the cluster but is not part of it.
  EXPECT_EQ(launch.replicas[4].env.at("TF_CONFIG"),
            "{" + cluster +
                R"(,"task":{"type":"evaluator","index":0,"trial":"7",)"
                R"("cloud":"mnist_1-7"},)" +
                job_json + R"(,"environment":"cloud"})");
  EXPECT_EQ(launch.replicas[3].env.at("CLUSTER_SPEC"),
            "{" + cluster +
                R"(,"task":{"type":"ps","index":0,"trial":"7",)"
                R"("cloud":"mnist_1-7"}})");
}

TEST(ReplicaEnvTest, EnvironmentFollowsTheContract) {
  JobSpec job = MakeJob();
  TrialLaunch launch = BuildOrDie(MakeContext(job));
  ASSERT_EQ(launch.replicas.size(), 5u);
  const std::vector<std::string> names = {"master-0", "worker-0", "worker-1",
                                          "ps-0", "evaluator-0"};
  const std::vector<std::string> gpus = {"", "0,1", "2,3", "", ""};
  for (size_t i = 0; i < launch.replicas.size(); ++i) {
    SCOPED_TRACE(names[i]);
    const ReplicaLaunch& replica = launch.replicas[i];
    const auto& env = replica.env;
    EXPECT_EQ(env.at("CLOUD_ML_TRIAL_ID"), "7");
    EXPECT_EQ(env.at("CLOUD_ML_JOB_ID"), "mnist_1");
    EXPECT_EQ(env.at("CLOUD_ML_HP_METRIC_FILE"),
              "/var/hptune/mnist_1/7/" + names[i] + ".metrics");
    EXPECT_EQ(env.at("CLOUD_ML_HP_METRIC_TAG"), "accuracy");
    EXPECT_EQ(env.at("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(env.at("MASTER_PORT"), "1000");
    EXPECT_EQ(env.at("WORLD_SIZE"), "3");
    EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), gpus[i]);
    EXPECT_EQ(env.count("PYTHONPATH"), 0u);
    EXPECT_EQ(replica.log_path, std::filesystem::path("/var/hptune/mnist_1/7/" +
                                                      names[i] + ".log"));
    // Its trial's directory, never the runner's own.
    EXPECT_EQ(replica.working_dir,
              std::filesystem::path("/var/hptune/mnist_1/7"));
    // With a jobDir, the AIP_* directories are under its trial's.
    EXPECT_EQ(env.at("AIP_MODEL_DIR"), "/data/jobs/mnist_1/7/model/");
    EXPECT_EQ(env.at("AIP_CHECKPOINT_DIR"),
              "/data/jobs/mnist_1/7/checkpoints/");
    EXPECT_EQ(env.at("AIP_TENSORBOARD_LOG_DIR"), "/data/jobs/mnist_1/7/logs/");
  }
  EXPECT_EQ(launch.replicas[0].env.at("RANK"), "0");
  EXPECT_EQ(launch.replicas[1].env.at("RANK"), "1");
  EXPECT_EQ(launch.replicas[2].env.at("RANK"), "2");
  // Not members of the torch process group.
  EXPECT_EQ(launch.replicas[3].env.count("RANK"), 0u);
  EXPECT_EQ(launch.replicas[4].env.count("RANK"), 0u);
  EXPECT_EQ(launch.replicas[2].type, TaskType::kWorker);
  EXPECT_EQ(launch.replicas[2].index, 1);
}

TEST(ReplicaEnvTest, ArgvIsCommandUserArgsJobDirThenParametersInSpaceOrder) {
  JobSpec job = MakeJob();
  TrialLaunch launch = BuildOrDie(MakeContext(job));
  for (const ReplicaLaunch& replica : launch.replicas) {
    EXPECT_THAT(replica.argv,
                ElementsAre("python3", "trainer.py", "--epochs=10", "two words",
                            "--job-dir=/data/jobs/mnist_1/7",
                            "--lr=0.30000000000000004", "--hidden=128",
                            "--layers=4", "--cell=LSTM"));
  }
}

TEST(ReplicaEnvTest, NoJobDirMeansNoJobDirFlag) {
  JobSpec job = MakeJob();
  TrialContext context = MakeContext(job);
  context.job_dir.clear();
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_THAT(launch.replicas[0].argv,
              ElementsAre("python3", "trainer.py", "--epochs=10", "two words",
                          "--lr=0.30000000000000004", "--hidden=128",
                          "--layers=4", "--cell=LSTM"));
  // Every trial still has directories of its own, under its trial's.
  EXPECT_EQ(launch.replicas[0].env.at("AIP_CHECKPOINT_DIR"),
            "/var/hptune/mnist_1/7/checkpoints/");
  EXPECT_TRUE(TrialOutputDirs(context).local);
  // A URL is passed as it is, for the trainer's own client to write to.
  context.job_dir = "gs://bucket/jobs";
  EXPECT_EQ(BuildOrDie(context).replicas[0].env.at("AIP_MODEL_DIR"),
            "gs://bucket/jobs/7/model/");
  EXPECT_FALSE(TrialOutputDirs(context).local);
}

TEST(ReplicaEnvTest, ChiefReplacesMasterInClusterTaskAndFileNames) {
  JobSpec job = MakeJob();
  job.use_chief_in_tf_config = true;
  TrialLaunch launch = BuildOrDie(MakeContext(job));
  ASSERT_EQ(launch.replicas.size(), 5u);
  nlohmann::json tf_config =
      nlohmann::json::parse(launch.replicas[0].env.at("TF_CONFIG"));
  EXPECT_EQ(tf_config["task"]["type"], "chief");
  EXPECT_EQ(tf_config["cluster"]["chief"],
            nlohmann::json::array({"127.0.0.1:1000"}));
  EXPECT_FALSE(tf_config["cluster"].contains("master"));
  EXPECT_EQ(launch.replicas[0].env.at("CLOUD_ML_HP_METRIC_FILE"),
            "/var/hptune/mnist_1/7/chief-0.metrics");
  EXPECT_EQ(launch.replicas[0].log_path,
            std::filesystem::path("/var/hptune/mnist_1/7/chief-0.log"));
  EXPECT_EQ(launch.replicas[0].type, TaskType::kMaster);
  EXPECT_EQ(launch.replicas[0].env.at("RANK"), "0");
  EXPECT_EQ(ReplicaName(TaskType::kMaster, 0, true), "chief-0");
  EXPECT_EQ(ReplicaName(TaskType::kParameterServer, 2, true), "ps-2");
}

TEST(ReplicaEnvTest, EmptyPoolsAreLeftOutOfTheCluster) {
  JobSpec job = MakeJob();
  job.worker.count = 0;
  job.parameter_server.count = 0;
  job.evaluator.count = 0;
  absl::StatusOr<TrialLaunch> launch = BuildTrialLaunch(
      MakeContext(job), ReplicaRequests(job), {{"127.0.0.1", 1000, {}}});
  ASSERT_OK(launch);
  ASSERT_EQ(launch->replicas.size(), 1u);
  nlohmann::json tf_config =
      nlohmann::json::parse(launch->replicas[0].env.at("TF_CONFIG"));
  EXPECT_EQ(tf_config["cluster"].dump(), R"({"master":["127.0.0.1:1000"]})");
  EXPECT_EQ(launch->replicas[0].env.at("WORLD_SIZE"), "1");
}

TEST(ReplicaEnvTest, ModuleRunsWithThePackagesParentOnPythonPath) {
  JobSpec job = MakeJob();
  job.command.clear();
  job.module_name = "trainer.task";
  job.package_path = "/src/project/trainer/";
  TrialContext context = MakeContext(job);
  context.base_pythonpath = "/opt/lib:/opt/more";
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  for (const ReplicaLaunch& replica : launch.replicas) {
    EXPECT_THAT(replica.argv,
                ElementsAre("python3", "-m", "trainer.task", "--epochs=10",
                            "two words", "--job-dir=/data/jobs/mnist_1/7",
                            "--lr=0.30000000000000004", "--hidden=128",
                            "--layers=4", "--cell=LSTM"));
    EXPECT_EQ(replica.env.at("PYTHONPATH"), "/src/project:/opt/lib:/opt/more");
  }
}

TEST(ReplicaEnvTest, RelativePackagePathIsResolvedAgainstTheWorkingDir) {
  JobSpec job = MakeJob();
  job.command.clear();
  job.module_name = "trainer.task";
  job.package_path = "./trainer";
  TrialContext context = MakeContext(job);
  context.base_pythonpath = "";
  context.working_dir = "/home/user/project";
  context.job_dir = "out/../jobs";
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_EQ(launch.replicas[0].env.at("PYTHONPATH"), "/home/user/project");
  EXPECT_THAT(launch.replicas[0].argv,
              Contains("--job-dir=/home/user/project/jobs/7"));
}

TEST(ReplicaEnvTest, CommandWithAPackagePathAlsoGetsItOnPythonPath) {
  JobSpec job = MakeJob();
  job.command = {"/usr/bin/python3", "-m", "trainer.task"};
  job.package_path = "/src/project/trainer";
  TrialContext context = MakeContext(job);
  context.base_pythonpath = "";
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_EQ(launch.replicas[0].argv[0], "/usr/bin/python3");
  EXPECT_EQ(launch.replicas[0].env.at("PYTHONPATH"), "/src/project");
}

TEST(ReplicaEnvTest, ThePythonInterpreterReplacesOnlyPythonFromPath) {
  JobSpec job = MakeJob();
  job.python_interpreter = "/home/me/venv/bin/python3";
  EXPECT_EQ(BuildOrDie(MakeContext(job)).replicas[0].argv[0],
            "/home/me/venv/bin/python3");  // command: [python3, trainer.py]
  job.command = {"python", "trainer.py"};
  EXPECT_EQ(BuildOrDie(MakeContext(job)).replicas[0].argv[0],
            "/home/me/venv/bin/python3");
  job.command = {"/usr/bin/python3.11", "trainer.py"};
  EXPECT_EQ(BuildOrDie(MakeContext(job)).replicas[0].argv[0],
            "/usr/bin/python3.11");
  job.command.clear();
  job.module_name = "trainer.task";
  const std::vector<std::string> argv =
      BuildOrDie(MakeContext(job)).replicas[0].argv;
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], "/home/me/venv/bin/python3");
  EXPECT_EQ(argv[1], "-m");
  EXPECT_EQ(argv[2], "trainer.task");
}

TEST(ReplicaEnvTest, JobWithoutCommandOrModuleIsRejected) {
  JobSpec job = MakeJob();
  job.command.clear();
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(MakeContext(job), ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "job \"mnist_1\": no trainer to run: set a command or a module "
            "name (with its package path)");
}

TEST(ReplicaEnvTest, ParametersMustBeExactlyTheSearchSpace) {
  JobSpec job = MakeJob();
  TrialContext missing = MakeContext(job);
  missing.parameters.erase("hidden");
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(missing, ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "trial 7: parameter \"hidden\" has no value");

  TrialContext extra = MakeContext(job);
  extra.parameters["momentum"] = ParameterValue::Double(0.5);
  launch = BuildTrialLaunch(extra, ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "trial 7: parameter \"momentum\" is not in the search space, got "
            "0.5");
}

// optimizer -> {momentum | beta2 -> eps}: a conditional space.
JobSpec MakeConditionalJob() {
  JobSpec job = MakeJob();
  job.study->search_space = SearchSpace({
      {.name = "optimizer",
       .type = ParameterType::kCategorical,
       .categorical_values = {"sgd", "adam"}},
      {.name = "momentum",
       .type = ParameterType::kDouble,
       .min_value = 0,
       .max_value = 0.99,
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"sgd"}}},
      {.name = "beta2",
       .type = ParameterType::kDiscrete,
       .discrete_values = {0.99, 0.999},
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"adam"}}},
      {.name = "eps",
       .type = ParameterType::kDouble,
       .min_value = 1e-9,
       .max_value = 1e-6,
       .condition =
           ParentCondition{.parent = "beta2", .discrete_values = {0.999}}},
      {.name = "lr",
       .type = ParameterType::kDouble,
       .min_value = 0,
       .max_value = 1},
  });
  return job;
}

TEST(ReplicaEnvTest, ConditionalSpacePassesOnlyTheActiveParameters) {
  JobSpec job = MakeConditionalJob();
  TrialContext context = MakeContext(job);
  context.parameters = {{"lr", ParameterValue::Double(0.5)},
                        {"eps", ParameterValue::Double(1e-7)},
                        {"beta2", ParameterValue::Double(0.999)},
                        {"optimizer", ParameterValue::Categorical("adam")}};
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_THAT(launch.replicas[0].argv,
              ElementsAre("python3", "trainer.py", "--epochs=10", "two words",
                          "--job-dir=/data/jobs/mnist_1/7", "--optimizer=adam",
                          "--beta2=0.999", "--eps=1e-07", "--lr=0.5"));

  context.parameters = {{"lr", ParameterValue::Double(0.5)},
                        {"momentum", ParameterValue::Double(0.9)},
                        {"optimizer", ParameterValue::Categorical("sgd")}};
  launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_THAT(launch.replicas[0].argv,
              ElementsAre("python3", "trainer.py", "--epochs=10", "two words",
                          "--job-dir=/data/jobs/mnist_1/7", "--optimizer=sgd",
                          "--momentum=0.9", "--lr=0.5"));
}

TEST(ReplicaEnvTest, ConditionalSpaceRefusesAnInactiveOrMissingParameter) {
  JobSpec job = MakeConditionalJob();
  TrialContext context = MakeContext(job);
  context.parameters = {{"lr", ParameterValue::Double(0.5)},
                        {"momentum", ParameterValue::Double(0.9)},
                        {"beta2", ParameterValue::Double(0.99)},
                        {"optimizer", ParameterValue::Categorical("sgd")}};
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(context, ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "trial 7: parameter \"beta2\" is inactive (optimizer=sgd), got "
            "0.99");

  context.parameters = {{"lr", ParameterValue::Double(0.5)},
                        {"beta2", ParameterValue::Double(0.999)},
                        {"optimizer", ParameterValue::Categorical("adam")}};
  launch = BuildTrialLaunch(context, ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "trial 7: parameter \"eps\" has no value");
}

TEST(ReplicaEnvTest, TrainingInputMustBeAJsonObject) {
  JobSpec job = MakeJob();
  TrialContext context = MakeContext(job);
  context.training_input_json = "[1, 2";
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(context, ReplicaRequests(job), MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(),
            "job \"mnist_1\": trainingInput is not a JSON object: [1, 2");
}

TEST(ReplicaEnvTest, EmptyTrainingInputIsWrittenFromTheJob) {
  JobSpec job = MakeJob();
  TrialContext context = MakeContext(job);
  context.training_input_json.clear();
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  nlohmann::json tf_config =
      nlohmann::json::parse(launch.replicas[0].env.at("TF_CONFIG"));
  EXPECT_EQ(tf_config["job"], nlohmann::json::parse(TrainingInputToJson(job)));
}

TEST(ReplicaEnvTest, PlacementMustMatchTheRequests) {
  JobSpec job = MakeJob();
  std::vector<ReplicaPlacement> placement = MakePlacement();
  placement.pop_back();
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(MakeContext(job), ReplicaRequests(job), placement);
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(), "5 replicas but 4 placements");

  std::vector<ReplicaRequest> requests = ReplicaRequests(job);
  std::swap(requests[0], requests[1]);
  launch = BuildTrialLaunch(MakeContext(job), requests, MakePlacement());
  ASSERT_THAT(launch, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(launch.status().message(), "the first replica must be master 0");
}

TEST(ReplicaEnvTest, JobWithoutStudyPassesNoParameters) {
  JobSpec job = MakeJob();
  job.study.reset();
  TrialContext context = MakeContext(job);
  context.parameters.clear();
  TrialLaunch launch = BuildOrDie(context);
  ASSERT_FALSE(launch.replicas.empty());
  EXPECT_THAT(launch.replicas[0].argv,
              ElementsAre("python3", "trainer.py", "--epochs=10", "two words",
                          "--job-dir=/data/jobs/mnist_1/7"));
}

TEST(ReplicaEnvTest, FileNamesUseTheTfConfigTaskType) {
  EXPECT_EQ(ReplicaName(TaskType::kWorker, 3), "worker-3");
  EXPECT_EQ(ReplicaLogPath("/t", TaskType::kParameterServer, 1),
            std::filesystem::path("/t/ps-1.log"));
  EXPECT_EQ(ReplicaMetricsPath("/t", TaskType::kEvaluator, 0),
            std::filesystem::path("/t/evaluator-0.metrics"));
  EXPECT_EQ(TfConfigTaskType(TaskType::kMaster), "master");
  EXPECT_EQ(TfConfigTaskType(TaskType::kMaster, true), "chief");
  EXPECT_THAT(ReplicaRequests(JobSpec{.master = {.count = 0}}), IsEmpty());
}

TEST(ReplicaEnvTest, ContainerPoolsGetTheirArgsThenParametersAndTheirMounts) {
  JobSpec job = MakeJob();
  job.master.container = {.image_uri = "trainer:1",
                          .command = {"python3", "/app/task.py"},
                          .args = {"--data=/data"}};
  job.worker.container = job.master.container;
  job.master.env = {{"TEAM", "vision"}, {"TF_CONFIG", "not this"}};
  const TrialLaunch launch = BuildOrDie(MakeContext(job));
  const ReplicaLaunch& master = launch.replicas[0];
  ASSERT_TRUE(master.container.has_value());
  EXPECT_EQ(master.container->spec.image_uri, "trainer:1");
  // What follows the image: the pool's args, the job's, --job-dir, the
  // parameters; the command is the entrypoint, kept in the spec.
  EXPECT_THAT(
      master.argv,
      ElementsAre("--data=/data", "--epochs=10", "two words",
                  "--job-dir=/data/jobs/mnist_1/7", "--lr=0.30000000000000004",
                  "--hidden=128", "--layers=4", "--cell=LSTM"));
  // The trial's directory and the local job dir of the trial, where
  // AIP_* lie.
  EXPECT_THAT(master.container->mounts,
              ElementsAre("/var/hptune/mnist_1/7", "/data/jobs/mnist_1/7"));
  EXPECT_THAT(launch.replicas[1].container->gpus, ElementsAre(0, 1));
  // A pool's env is added; hptune's own variables win.
  EXPECT_EQ(master.env.at("TEAM"), "vision");
  EXPECT_NE(master.env.at("TF_CONFIG"), "not this");
  EXPECT_FALSE(launch.replicas[1].env.contains("TEAM"));
  // Pools without an image stay host processes.
  EXPECT_FALSE(launch.replicas[3].container.has_value());
  EXPECT_EQ(launch.replicas[3].argv.front(), "python3");
}

// Each pool runs its own image, entrypoint, args and env: a replica gets
// its pool's containerSpec, never the chief's (nor another pool's).
TEST(ReplicaEnvTest, EachReplicaRunsItsOwnPoolsContainerSpecAndEnv) {
  JobSpec job = MakeJob();
  job.master.container = {.image_uri = "chief:1",
                          .command = {"python3", "/app/chief.py"},
                          .args = {"--role=chief"}};
  job.worker.container = {.image_uri = "worker:2",
                          .command = {"/usr/bin/env", "python3", "/w.py"},
                          .args = {"--role=worker", "--shard=auto"}};
  job.parameter_server.container = {.image_uri = "ps:3",
                                    .python_module = "ps.server",
                                    .package_uris = {"/pkgs/ps.tar.gz"}};
  job.evaluator.container = {.image_uri = "eval:4", .args = {"--eval"}};
  job.master.env = {{"POOL", "chief"}};
  job.worker.env = {{"POOL", "worker"}, {"SHARDS", "2"}};
  job.parameter_server.env = {{"POOL", "ps"}};
  const TrialLaunch launch = BuildOrDie(MakeContext(job));
  ASSERT_EQ(launch.replicas.size(), 5u);
  for (const ReplicaLaunch& replica : launch.replicas) {
    const TaskPool& pool = job.pool(replica.type);
    SCOPED_TRACE(ReplicaName(replica.type, replica.index));
    ASSERT_TRUE(replica.container.has_value());
    const ContainerSpec& spec = replica.container->spec;
    EXPECT_EQ(spec.image_uri, pool.container.image_uri);
    EXPECT_EQ(spec.command, pool.container.command);
    EXPECT_EQ(spec.args, pool.container.args);
    EXPECT_EQ(spec.python_module, pool.container.python_module);
    EXPECT_EQ(spec.package_uris, pool.container.package_uris);
  }
  const ReplicaLaunch& chief = launch.replicas[0];
  const ReplicaLaunch& worker = launch.replicas[2];
  const ReplicaLaunch& ps = launch.replicas[3];
  const ReplicaLaunch& evaluator = launch.replicas[4];
  EXPECT_EQ(chief.container->spec.image_uri, "chief:1");
  EXPECT_EQ(worker.container->spec.image_uri, "worker:2");
  EXPECT_THAT(worker.container->spec.command,
              ElementsAre("/usr/bin/env", "python3", "/w.py"));
  EXPECT_EQ(ps.container->spec.image_uri, "ps:3");
  EXPECT_EQ(evaluator.container->spec.image_uri, "eval:4");
  EXPECT_THAT(evaluator.container->spec.command, IsEmpty());
  // Each argv opens with its pool's args (the module first for a package).
  EXPECT_EQ(chief.argv.front(), "--role=chief");
  EXPECT_THAT(
      std::vector<std::string>(worker.argv.begin(), worker.argv.begin() + 3),
      ElementsAre("--role=worker", "--shard=auto", "--epochs=10"));
  EXPECT_THAT(std::vector<std::string>(ps.argv.begin(), ps.argv.begin() + 2),
              ElementsAre("ps.server", "--epochs=10"));
  EXPECT_THAT(std::vector<std::string>(evaluator.argv.begin(),
                                       evaluator.argv.begin() + 2),
              ElementsAre("--eval", "--epochs=10"));
  // Each its pool's env, no other pool's.
  EXPECT_EQ(chief.env.at("POOL"), "chief");
  EXPECT_FALSE(chief.env.contains("SHARDS"));
  EXPECT_EQ(worker.env.at("POOL"), "worker");
  EXPECT_EQ(worker.env.at("SHARDS"), "2");
  EXPECT_EQ(ps.env.at("POOL"), "ps");
  EXPECT_FALSE(evaluator.env.contains("POOL"));
}

TEST(ReplicaEnvTest, AJobOfImagesOnlyNeedsNoHostTrainer) {
  JobSpec job = MakeJob();
  job.command.clear();
  job.worker.count = 0;
  job.parameter_server.count = 0;
  job.evaluator.count = 0;
  job.master.container = {.image_uri = "trainer:1"};
  absl::StatusOr<TrialLaunch> launch = BuildTrialLaunch(
      MakeContext(job), ReplicaRequests(job), {{"127.0.0.1", 1000, {}}});
  ASSERT_OK(launch);
  EXPECT_EQ(launch->replicas[0].argv.front(), "--epochs=10");
}

TEST(ReplicaEnvTest, AVertexJobsClusterSpecIsByWorkerPool) {
  JobSpec job = MakeJob();
  job.dialect = SpecDialect::kVertex;
  const TrialLaunch launch = BuildOrDie(MakeContext(job));
  const nlohmann::json job_json = nlohmann::json::parse(kTrainingInput);
  const nlohmann::json cluster = {
      {"workerpool0", {"127.0.0.1:1000"}},
      {"workerpool1", {"127.0.0.1:1001", "127.0.0.1:1002"}},
      {"workerpool2", {"127.0.0.1:1003"}}};
  EXPECT_EQ(
      nlohmann::json::parse(launch.replicas[2].env.at("CLUSTER_SPEC")),
      nlohmann::json(
          {{"cluster", cluster},
           {"environment", "cloud"},
           {"task", {{"type", "workerpool1"}, {"index", 1}, {"trial", "7"}}},
           {"job", job_json}}));
  EXPECT_EQ(nlohmann::json::parse(
                launch.replicas[4].env.at("CLUSTER_SPEC"))["task"]["type"],
            "workerpool3");
  // TF_CONFIG keeps TensorFlow's names.
  EXPECT_TRUE(
      nlohmann::json::parse(launch.replicas[2].env.at("TF_CONFIG"))["cluster"]
          .contains("worker"));
}

// Vertex AI sets TF_CONFIG on distributed jobs only; AI Platform on every
// job. CLUSTER_SPEC and the trial's number are there either way.
TEST(ReplicaEnvTest, AVertexJobOfOneReplicaHasNoTfConfig) {
  JobSpec job = MakeJob();
  job.worker.count = 0;
  job.parameter_server.count = 0;
  job.evaluator.count = 0;
  job.dialect = SpecDialect::kVertex;
  const std::vector<ReplicaPlacement> one = {{"127.0.0.1", 1000, {}}};
  absl::StatusOr<TrialLaunch> launch =
      BuildTrialLaunch(MakeContext(job), ReplicaRequests(job), one);
  ASSERT_OK(launch);
  ASSERT_EQ(launch->replicas.size(), 1u);
  const auto& env = launch->replicas[0].env;
  EXPECT_FALSE(env.contains("TF_CONFIG"));
  EXPECT_EQ(nlohmann::json::parse(env.at("CLUSTER_SPEC"))["task"]["type"],
            "workerpool0");
  EXPECT_EQ(env.at("CLOUD_ML_TRIAL_ID"), "7");

  job.dialect = SpecDialect::kAiPlatform;
  launch = BuildTrialLaunch(MakeContext(job), ReplicaRequests(job), one);
  ASSERT_OK(launch);
  EXPECT_EQ(nlohmann::json::parse(
                launch->replicas[0].env.at("TF_CONFIG"))["task"]["type"],
            "master");
}

TEST(ReplicaEnvTest, AipDirsLieUnderTheBaseOutputDirectoryWhenGiven) {
  JobSpec job = MakeJob();
  job.base_output_directory = "/out/study";
  job.master.container = {.image_uri = "trainer:1"};
  const TrialLaunch launch = BuildOrDie(MakeContext(job));
  const auto& env = launch.replicas[0].env;
  EXPECT_EQ(env.at("AIP_MODEL_DIR"), "/out/study/7/model/");
  EXPECT_EQ(env.at("AIP_CHECKPOINT_DIR"), "/out/study/7/checkpoints/");
  EXPECT_EQ(env.at("AIP_TENSORBOARD_LOG_DIR"), "/out/study/7/logs/");
  EXPECT_THAT(launch.replicas[0].container->mounts,
              ElementsAre("/var/hptune/mnist_1/7", "/out/study/7",
                          "/data/jobs/mnist_1/7"));
}

// Freeze-thaw: trial 7 continues trial 3, so it loads and writes trial 3's
// checkpoints; its model and logs stay its own.
TEST(ReplicaEnvTest, AContinuationSharesTheCheckpointsOfTheTrialItResumes) {
  JobSpec job = MakeJob();
  TrialContext context = MakeContext(job);
  context.checkpoint_trial = 3;
  context.checkpoint_trial_dir = "/var/hptune/mnist_1/3";
  TrialLaunch launch = BuildOrDie(context);
  EXPECT_EQ(launch.replicas[0].env.at("AIP_CHECKPOINT_DIR"),
            "/data/jobs/mnist_1/3/checkpoints/");
  EXPECT_EQ(launch.replicas[0].env.at("AIP_MODEL_DIR"),
            "/data/jobs/mnist_1/7/model/");
  context.job_dir.clear();
  launch = BuildOrDie(context);
  EXPECT_EQ(launch.replicas[0].env.at("AIP_CHECKPOINT_DIR"),
            "/var/hptune/mnist_1/3/checkpoints/");
  EXPECT_EQ(launch.replicas[0].env.at("AIP_TENSORBOARD_LOG_DIR"),
            "/var/hptune/mnist_1/7/logs/");
  // In a container, the checkpoints' trial is mounted too.
  job.base_output_directory = "/out/study";
  job.master.container = {.image_uri = "trainer:1"};
  context = MakeContext(job);
  context.checkpoint_trial = 3;
  context.checkpoint_trial_dir = "/var/hptune/mnist_1/3";
  launch = BuildOrDie(context);
  EXPECT_EQ(launch.replicas[0].env.at("AIP_CHECKPOINT_DIR"),
            "/out/study/3/checkpoints/");
  EXPECT_THAT(launch.replicas[0].container->mounts,
              ElementsAre("/var/hptune/mnist_1/7", "/out/study/7",
                          "/out/study/3", "/data/jobs/mnist_1/7"));
}

}  // namespace
}  // namespace hptune::launch
