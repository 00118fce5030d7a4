// `hptune serve` is a child subreaper: what a trainer leaves behind becomes
// the server's child when the trainer ends, also a process in a session of
// its own, which no process group reaches. The server must collect each
// one when it ends, however the trial ended, or every such process stays a
// zombie holding its pid until the server exits (issue 84).
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using testing::ServeProcess;

constexpr int kChildren = 50;

v1::TrainingInput SetsidJob(const std::string& started, bool hang) {
  const std::string trainer =
      testing::SourceDir() + "/tests/integration/testdata/setsid_trainer.py";
  const std::string json = absl::StrCat(
      R"({"command": ["python3", ")", trainer, R"("], "args": ["--children=)",
      kChildren, R"(", "--started=)", started, R"(", "--hang=)", hang ? 1 : 0,
      R"("], "hyperparameters": {"goal": "MAXIMIZE",
        "hyperparameterMetricTag": "accuracy", "maxTrials": 1,
        "maxParallelTrials": 1, "algorithm": "RANDOM_SEARCH",
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]}})");
  v1::TrainingInput input;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &input).ok());
  return input;
}

void Submit(const ServeProcess& server, const std::string& id,
            const v1::TrainingInput& input) {
  v1::SubmitJobRequest submit;
  submit.set_job_id(id);
  *submit.mutable_training_input() = input;
  v1::Job job;
  grpc::Status status =
      server.JobStub()->SubmitJob(Context().get(), submit, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

// Polls until the server has no zombie child; names those left otherwise.
void ExpectNoZombiesLeft(const ServeProcess& server) {
  std::vector<pid_t> zombies;
  const bool none = testing::PollUntil(
      [&] {
        zombies = testing::ZombieChildrenOf(server.pid());
        return zombies.empty();
      },
      std::chrono::seconds(30));
  EXPECT_TRUE(none) << zombies.size() << " zombie children of the server "
                    << "remain: " << absl::StrJoin(zombies, " ") << "\n"
                    << server.Output();
}

TEST(ServeZombieTest, ChildrenInSessionsOfTheirOwnAreCollectedAfterTheTrial) {
  const std::string dir = testing::MakeTempDir();
  testing::KillProcessesMentioning cleanup(dir);
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string started = dir + "/started";
  ASSERT_NO_FATAL_FAILURE(Submit(server, "ends", SetsidJob(started, false)));
  ASSERT_TRUE(testing::PollUntil(
      [&] { return JobStateOf(server, "ends") == v1::Job::SUCCEEDED; },
      std::chrono::seconds(60)))
      << "job state " << JobStateOf(server, "ends") << "\n"
      << server.Output();
  ASSERT_EQ(testing::CountOccurrences(testing::ReadFileOrEmpty(started), "\n"),
            kChildren);
  ExpectNoZombiesLeft(server);
}

TEST(ServeZombieTest, ChildrenInSessionsOfTheirOwnAreCollectedAfterACancel) {
  const std::string dir = testing::MakeTempDir();
  testing::KillProcessesMentioning cleanup(dir);
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string started = dir + "/started";
  ASSERT_NO_FATAL_FAILURE(
      Submit(server, "cancelled", SetsidJob(started, true)));
  ASSERT_TRUE(
      testing::PollUntil([&] { return std::filesystem::exists(started); },
                         std::chrono::seconds(60)))
      << server.Output();
  v1::CancelJobRequest cancel;
  cancel.set_job_id("cancelled");
  v1::Job job;
  grpc::Status status =
      server.JobStub()->CancelJob(Context().get(), cancel, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(testing::PollUntil(
      [&] { return JobStateOf(server, "cancelled") == v1::Job::CANCELLED; },
      std::chrono::seconds(60)))
      << "job state " << JobStateOf(server, "cancelled") << "\n"
      << server.Output();
  ExpectNoZombiesLeft(server);
}

}  // namespace
}  // namespace hptune
