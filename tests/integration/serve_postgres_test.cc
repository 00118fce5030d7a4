// `hptune serve` on a PostgreSQL store (docs/operations.md, "PostgreSQL"):
// a server whose runner lease is lost (the database ended its session, as
// after a network partition or a database restart) must stop running jobs,
// since another server may now take them over. It drains as on SIGTERM,
// stopping its trainers and leaving the job resumable, and exits non-zero
// naming the database; another server then takes the database and the job.
// The real binary, real trainers and a real PostgreSQL server.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

// One trial that runs far longer than the test.
void SubmitLongJob(const ServeProcess& server) {
  const std::string trainer =
      testing::SourceDir() + "/tests/integration/testdata/crash_trainer.py";
  const std::string json =
      R"({"command": ["python3", ")" + trainer +
      R"("], "args": ["--steps=10000", "--step_seconds=0.05",
      "--ledger=)" +
      server.dir() + R"(/ledger.txt"],
      "hyperparameters": {"goal": "MINIMIZE",
        "hyperparameterMetricTag": "loss", "maxTrials": 1,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]}})";
  v1::SubmitJobRequest submit;
  submit.set_job_id("leased");
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  json, submit.mutable_training_input())
                  .ok());
  v1::Job job;
  const grpc::Status status =
      server.JobStub()->SubmitJob(Context().get(), submit, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

bool TrialReported(const ServeProcess& server) {
  v1::ListTrialsRequest request;
  request.set_study("leased");
  v1::ListTrialsResponse reply;
  return server.StudyStub()
             ->ListTrials(Context().get(), request, &reply)
             .ok() &&
         reply.trials_size() == 1 && reply.trials(0).measurements_size() > 0;
}

TEST(ServePostgresTest, AServerThatLosesItsLeaseStopsItsJobsAndExits) {
  absl::StatusOr<testing::PostgresServer*> postgres =
      testing::PostgresServer::Shared();
  HPTUNE_SKIP_UNLESS_AVAILABLE(postgres.ok(), "postgresql",
                               postgres.status().message());
  absl::StatusOr<std::string> url = (*postgres)->NewDatabase();
  ASSERT_TRUE(url.ok()) << url.status();
  ServeProcess first(testing::MakeTempDir(), {"--db", *url});
  std::string error;
  ASSERT_TRUE(first.Start(&error)) << error;
  ASSERT_NO_FATAL_FAILURE(SubmitLongJob(first));
  ASSERT_TRUE(testing::PollUntil([&] { return TrialReported(first); },
                                 std::chrono::seconds(30)))
      << first.Output();

  ASSERT_GE(testing::EndRunnerLeaseSessions(*url), 1);
  const std::optional<int> exit_code =
      first.WaitForExit(std::chrono::seconds(30));
  ASSERT_TRUE(exit_code.has_value()) << "still serving:\n" << first.Output();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(first.Output(),
              HasSubstr("lost the runner lease on database \"postgresql:///"));
  EXPECT_THAT(first.Output(), HasSubstr("hptune serve: drained"));
  EXPECT_TRUE(testing::ReplicasUnder(first.runs_dir()).empty());

  // The lease is free: another server takes the database and the job.
  ServeProcess second(testing::MakeTempDir(), {"--db", *url});
  ASSERT_TRUE(second.Start(&error)) << error;
  EXPECT_EQ(JobStateOf(second, "leased"), v1::Job::RUNNING);
  v1::CancelJobRequest cancel;
  cancel.set_job_id("leased");
  v1::Job job;
  EXPECT_TRUE(second.JobStub()->CancelJob(Context().get(), cancel, &job).ok());
}

}  // namespace
}  // namespace hptune
