// The text a submitted job crosses, counted through a real server in this
// process (docs/architecture.md, "A field's way"): `jobs submit J --config
// c.yaml --max-parallel-trials 4` parses the YAML once; the server reads the
// TrainingInput field by field and stores the job, parsing nothing; its
// reply and GetJob each decode what was stored (the study's spec and the
// trainingInput, 2 parses). The job's own thread would decode the stored
// study spec meanwhile, so the test holds it at its first log line
// ("running", before it reads anything) until the counts are taken, and
// releases it before the server stops.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/cli/backend_flags.h"
#include "src/cli/client/submit_flags.h"
#include "src/cli/flag_table.h"
#include "src/cli/flags.h"
#include "src/server/server.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

constexpr char kConfig[] = R"(trainingInput:
  command: [/bin/true]
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerType: n1-standard-4
  workerCount: 2
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 12
    maxParallelTrials: 3
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 3.0, scaleType: UNIT_LOG_SCALE}
)";

// Holds each job's thread at its first log line until Open().
class StartGate {
 public:
  void Hold(const std::string& line) {
    if (!line.ends_with(": running")) return;
    std::unique_lock lock(mutex_);
    ++held_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  int held() {
    std::lock_guard lock(mutex_);
    return held_;
  }
  // Whether a job's thread reached the gate within `timeout`: the job starts
  // on its own thread, after SubmitJob has answered.
  bool WaitUntilHeld(std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return held_ > 0; });
  }
  void Open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int held_ = 0;
  bool open_ = false;
};

// Opens the gate when the test ends, before the server joins the job's
// thread, whatever assertion ended it.
struct OpenOnExit {
  StartGate& gate;
  ~OpenOnExit() { gate.Open(); }
};

// The submission `hptune jobs submit J --config <config>
// --max-parallel-trials 4` sends.
absl::StatusOr<cli::client::Submission> BuildAsTheCliDoes(
    const std::string& job_id, const std::string& config) {
  std::vector<std::string> argv = {"--config", config, "--max-parallel-trials",
                                   "4"};
  cli::RepeatedSlurmFlags slurm_flags = cli::TakeRepeatedSlurmFlags(argv);
  std::set<std::string> flags = cli::ValueFlagNames(cli::kSubmitCommand);
  flags.insert("config");
  absl::StatusOr<cli::ParsedArgs> args = cli::ParseArgs(argv, flags, {});
  if (!args.ok()) return args.status();
  return cli::client::BuildSubmission(DefaultEnv(), job_id, args->Get("config"),
                                      *args, std::move(slurm_flags), "/");
}

grpc::Status Call(auto method, auto& stub, const auto& request, auto* reply) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(60));
  return ((*stub).*method)(&context, request, reply);
}

TEST(SubmissionParseCountTest, TheServerParsesNoTextOfASubmittedJob) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = dir + "/c.yaml";
  std::ofstream(config) << kConfig;
  StartGate gate;
  server::ServerOptions options;
  options.env = &DefaultEnv();
  options.listen_address = "127.0.0.1:0";
  options.db_path = dir + "/hptune.db";
  options.state_dir = dir + "/runs";
  options.allow_unauthenticated = true;
  options.allow_root_trials = true;  // The test may run as root.
  options.trial_lease_seconds = 0;   // No lease sweeps between the counts.
  options.job_log = [&gate](const std::string& line) { gate.Hold(line); };
  auto server = server::HptuneServer::Start(std::move(options));
  ASSERT_OK(server);
  OpenOnExit open_on_exit{gate};
  auto stub = v1::JobService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string((*server)->port()),
                          grpc::InsecureChannelCredentials()));

  int64_t before = config_internal::TextParseCount();
  auto submission = BuildAsTheCliDoes("j1", config);
  ASSERT_OK(submission);
  EXPECT_EQ(config_internal::TextParseCount() - before, 1);  // The YAML.

  v1::SubmitJobRequest request;
  request.set_job_id("j1");
  *request.mutable_training_input() = submission->training_input;
  v1::Job submitted;
  before = config_internal::TextParseCount();
  grpc::Status status =
      Call(&v1::JobService::Stub::SubmitJob, stub, request, &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const int64_t submit_parses = config_internal::TextParseCount() - before;
  // Nothing is read from text: the request is read field by field, and the
  // reply describes the JobSpec just stored without reading it back.
  EXPECT_EQ(submit_parses, 0);
  EXPECT_EQ(submitted.training_input().hyperparameters().max_parallel_trials(),
            4);

  ASSERT_TRUE(gate.WaitUntilHeld(std::chrono::seconds(60)));

  v1::GetJobRequest get;
  get.set_job_id("j1");
  v1::Job got;
  before = config_internal::TextParseCount();
  status = Call(&v1::JobService::Stub::GetJob, stub, get, &got);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(config_internal::TextParseCount() - before, 2);  // The same two.
  EXPECT_EQ(got.training_input().SerializeAsString(),
            submission->training_input.SerializeAsString());
  // The reply from the spec in hand is what the stored job reads back as.
  EXPECT_EQ(submitted.training_input().SerializeAsString(),
            got.training_input().SerializeAsString());
  EXPECT_EQ(submitted.training_output().hyperparameter_metric_tag(),
            got.training_output().hyperparameter_metric_tag());
  // Each count was taken while the job's thread waited at its first line.
  EXPECT_EQ(gate.held(), 1);
}

}  // namespace
}  // namespace hptune
