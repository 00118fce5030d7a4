// With --server, `hptune studies importance|describe` and `hptune jobs
// describe` ask the server's read side (GetParameterImportance,
// ListOptimalTrials, GetStoppingSavings) instead of downloading every
// trial to compute the answer, and print what --db prints on the same
// file. The server is the real StudyService and JobService over a SQLite
// file on 127.0.0.1, in this process, behind an interceptor that counts
// the calls by method; the client is the real binary.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/read/cached_study_answers.h"
#include "hptune/store/open_store.h"
#include "nlohmann/json.hpp"
#include "src/jobs/job_manager.h"
#include "src/server/job_service.h"
#include "src/server/study_service.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcessWithEnv;

constexpr char kToken[] = "answers-test-token";

// Counts every call by its method ("/hptune.v1.StudyService/ListTrials").
class CallCounter
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_[info->method()];
    return nullptr;  // Only counted, not intercepted.
  }
  int Calls(const std::string& service, const std::string& method) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_["/hptune.v1." + service + "/" + method];
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> calls_;
};

// Random search over x1, x2 in [0, 1] of 10 (x1 - 0.7)^2 + (x2 - 0.2)^2:
// 30 results told to the engine.
void MakeStudy(engine::TuningEngine& engine, const std::string& name) {
  StudySpec spec;
  std::vector<ParameterSpec> parameters;
  for (const char* x : {"x1", "x2"}) {
    parameters.push_back({.name = x,
                          .type = ParameterType::kDouble,
                          .min_value = 0,
                          .max_value = 1,
                          .scale = ScaleType::kLinear});
  }
  spec.search_space = SearchSpace(std::move(parameters));
  spec.SetSingleMetric("loss", Goal::kMinimize);
  spec.algorithm = Algorithm::kRandomSearch;
  spec.max_trials = 30;
  ASSERT_OK(engine.OpenOrCreateStudy(name, spec).status());
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (int i = 0; i < 30; ++i) {
    const double x1 = uniform(random), x2 = uniform(random);
    Trial trial;
    trial.state = TrialState::kSucceeded;
    trial.parameters = {{"x1", ParameterValue::Double(x1)},
                        {"x2", ParameterValue::Double(x2)}};
    const double loss = 10 * (x1 - 0.7) * (x1 - 0.7) + (x2 - 0.2) * (x2 - 0.2);
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{"loss", loss}}};
    ASSERT_OK(engine.CreateTrial(name, std::move(trial)).status());
  }
}

Trial Ran(int64_t step, double seconds, bool stopped) {
  Trial trial;
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"lr", ParameterValue::Double(0.01)}};
  trial.final_measurement = Measurement{.step = step, .metrics = {{"acc", 1}}};
  trial.stopped_early = stopped;
  trial.start_time = FromUnixMicros(1'700'000'000'000'000);
  trial.end_time = *trial.start_time + std::chrono::microseconds(
                                           static_cast<int64_t>(seconds * 1e6));
  return trial;
}

// A finished job whose study stopped two of six trials early.
void MakeStoppedJob(store::Store& store, engine::TuningEngine& engine,
                    const std::string& id) {
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  workerType: n1-standard-4\n"
      "  workerCount: 1\n"
      "  command: [python3, train.py]\n"
      "  hyperparameters:\n"
      "    hyperparameterMetricTag: acc\n"
      "    maxTrials: 6\n"
      "    enableTrialEarlyStopping: true\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: "
      "1}\n",
      ConfigFormat::kYaml, id);
  ASSERT_TRUE(parsed.job) << parsed.errors.size();
  ASSERT_OK(engine.CreateStudy(id, *parsed.job->study).status());
  ASSERT_OK(store.AddTrials(
      id,
      {Ran(70, 140, false), Ran(150, 300, false), Ran(90, 180, false),
       Ran(110, 220, false), Ran(25, 50, true), Ran(25, 50, true)},
      std::nullopt));
  JobRecord job;
  job.job_id = id;
  job.study_name = id;
  job.state = JobState::kSucceeded;
  job.training_input_json = TrainingInputToJson(*parsed.job);
  ASSERT_OK(store.CreateJob(job));
}

class CliServerAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    db_ = dir_ + "/hptune.db";
    auto store = store::OpenSqliteStore(db_, hptune::SystemClock());
    ASSERT_OK(store.status());
    store_ = *std::move(store);
    engine_ =
        std::make_unique<engine::TuningEngine>(*store_, hptune::SystemClock());
    MakeStudy(*engine_, "thirty");
    MakeStoppedJob(*store_, *engine_, "stopjob");
    StartServer();
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
  }

  // The server's services as `hptune serve` composes them
  // (src/server/server.cc), without a job to run.
  void StartServer() {
    auto answers = read::CachedStudyAnswers::Create(
        *store_, std::make_unique<read::StoreStudyAnswers>(*store_));
    ASSERT_OK(answers.status());
    answers_ = *std::move(answers);
    launcher_ = std::make_unique<launch::LocalLauncher>(
        launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()});
    runner::JobRunnerOptions runner;
    runner.runs_dir = dir_ + "/runs";
    jobs_ = std::make_unique<jobs::JobManager>(*store_, *engine_, *launcher_,
                                               runner, hptune::DefaultEnv());
    access_ = std::make_unique<server::JobAccess>(
        *store_, server::JobAccessRules{}, hptune::DefaultEnv());
    quotas_ = std::make_unique<server::UserQuotas>(
        *store_, server::QuotaLimits{}, static_cast<int64_t>(::geteuid()));
    studies_ = std::make_unique<server::StudyService>(
        *engine_, *answers_, auth_, *access_, 0, quotas_.get());
    auto policy = server::CommandPolicy::Parse(hptune::DefaultEnv(), {});
    ASSERT_OK(policy.status());
    job_service_ = std::make_unique<server::JobService>(
        *store_, *jobs_, auth_, "local", *std::move(policy), *access_, *quotas_,
        hptune::DefaultEnv());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterService(studies_.get());
    builder.RegisterService(job_service_.get());
    std::vector<
        std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        interceptors;
    auto counter = std::make_unique<CallCounter>();
    counter_ = counter.get();
    interceptors.push_back(std::move(counter));
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }

  // The binary with `args`, then `--server` this server.
  testing::ProcessResult OverServer(std::vector<std::string> args) {
    args.insert(args.begin(), HPTUNE_BINARY);
    args.push_back("--server");
    args.push_back("127.0.0.1:" + std::to_string(port_));
    return RunProcessWithEnv(
        args, {std::string("HPTUNE_TOKEN=") + kToken, "HPTUNE_DB"});
  }
  // The same with `--db` the server's file.
  testing::ProcessResult OnFile(std::vector<std::string> args) {
    args.insert(args.begin(), HPTUNE_BINARY);
    args.push_back("--db");
    args.push_back(db_);
    return RunProcessWithEnv(args, {"HPTUNE_DB"});
  }

  std::string dir_, db_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<engine::TuningEngine> engine_;
  std::unique_ptr<read::CachedStudyAnswers> answers_;
  std::unique_ptr<launch::LocalLauncher> launcher_;
  std::unique_ptr<jobs::JobManager> jobs_;
  server::TokenAuthenticator auth_{kToken, DefaultEnv()};
  std::unique_ptr<server::JobAccess> access_;
  std::unique_ptr<server::UserQuotas> quotas_;
  std::unique_ptr<server::StudyService> studies_;
  std::unique_ptr<server::JobService> job_service_;
  std::unique_ptr<grpc::Server> server_;
  CallCounter* counter_ = nullptr;
  int port_ = 0;
};

TEST_F(CliServerAnswersTest, ImportanceIsAskedOfTheServerNotComputedHere) {
  for (const char* format : {"table", "json", "csv"}) {
    counter_->Reset();
    auto served =
        OverServer({"studies", "importance", "thirty", "--format", format});
    ASSERT_EQ(served.exit_code, 0) << served.err;
    EXPECT_EQ(counter_->Calls("StudyService", "GetParameterImportance"), 1);
    EXPECT_EQ(counter_->Calls("StudyService", "ListTrials"), 0);
    auto local =
        OnFile({"studies", "importance", "thirty", "--format", format});
    ASSERT_EQ(local.exit_code, 0) << local.err;
    EXPECT_EQ(served.out, local.out) << format;
  }
}

TEST_F(CliServerAnswersTest, DescribeTakesTheBestTrialFromTheServer) {
  auto served = OverServer({"studies", "describe", "thirty"});
  ASSERT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(counter_->Calls("StudyService", "ListOptimalTrials"), 1);
  EXPECT_THAT(served.out, HasSubstr("best trial: "));
  auto local = OnFile({"studies", "describe", "thirty"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(served.out, local.out);
}

// 2 of 6 stopped at step 25 where a full trial is 100 steps: 150 steps of
// 620 saved (docs/designers.md, "What stopping saved").
TEST_F(CliServerAnswersTest, JobsDescribeAsksTheServerWhatStoppingSaved) {
  auto served = OverServer({"jobs", "describe", "stopjob"});
  ASSERT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(counter_->Calls("StudyService", "GetStoppingSavings"), 1);
  EXPECT_EQ(counter_->Calls("StudyService", "ListTrials"), 0);
  EXPECT_THAT(served.out,
              HasSubstr("early stopping: 2 of 6 trials stopped early; saved "
                        "about 150 of 620 steps (24%)"));
  auto local = OnFile({"jobs", "describe", "stopjob"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const std::string line = served.out.substr(served.out.find("early stopping"));
  EXPECT_THAT(local.out, HasSubstr(line));

  counter_->Reset();
  auto json = OverServer({"jobs", "describe", "stopjob", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(counter_->Calls("StudyService", "ListTrials"), 0);
  auto local_json = OnFile({"jobs", "describe", "stopjob", "--format", "json"});
  ASSERT_EQ(local_json.exit_code, 0) << local_json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["earlyStoppingSavings"],
            nlohmann::json::parse(local_json.out)["earlyStoppingSavings"]);
  EXPECT_EQ(nlohmann::json::parse(
                json.out)["earlyStoppingSavings"]["replicaSecondsSaved"],
            600.0);
}

}  // namespace
}  // namespace hptune
