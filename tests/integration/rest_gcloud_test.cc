// AI Platform's REST API on `hptune serve --rest`, driven by the real
// gcloud (google-cloud-cli) with a configuration of its own pointed at the
// server (api_endpoint_overrides/ml, the server's token as its access
// token): describe shows the trials the server stored, list finds the
// job, update sets its labels, cancel cancels it, and errors come back as
// Google's JSON with the server's own messages. Jobs gcloud cannot submit for a
// host trainer (it demands packages on Cloud Storage or a container image) are
// created with the same request body gcloud sends. Skips, saying why, without
// gcloud.
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/gcloud_cli.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Gcloud;
using ::testing::HasSubstr;
using testing::PollUntil;
using testing::ProcessResult;
using testing::RestPort;
using testing::ServeProcess;
using Json = nlohmann::json;

// `gcloud ai-platform jobs ARGS --format=json`, parsed.
Json Jobs(const testing::Gcloud& gcloud, std::vector<std::string> args) {
  args.insert(args.begin(), {"ai-platform", "jobs"});
  return gcloud.Json(args);
}

// The body gcloud's `jobs submit training` sends, for a host trainer.
std::string CreateBody(const std::string& id, int steps, double seconds) {
  const std::string trainer =
      testing::SourceDir() + "/tests/testdata/curve_trainer.py";
  Json input = {
      {"enableWebAccess", false},
      {"region", "us-central1"},
      {"command", {trainer}},
      {"args",
       {"--steps=" + std::to_string(steps),
        "--step_seconds=" + std::to_string(seconds), "--stdout_metrics"}},
      {"hyperparameters",
       {{"goal", "MINIMIZE"},
        {"hyperparameterMetricTag", "loss"},
        {"maxTrials", 2},
        {"maxParallelTrials", 2},
        {"algorithm", "RANDOM_SEARCH"},
        {"params",
         {{{"parameterName", "x"},
           {"type", "DOUBLE"},
           {"minValue", 0},
           {"maxValue", 1}},
          {{"parameterName", "y"},
           {"type", "DOUBLE"},
           {"minValue", 0},
           {"maxValue", 1}}}}}}};
  return Json{{"jobId", id}, {"trainingInput", input}}.dump();
}

httplib::Result Post(int port, const std::string& path, const std::string& body,
                     const std::string& token) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(60));
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return client.Post(path, headers, body, "application/json");
}

class RestGcloudTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::FindGcloud().empty())
      GTEST_SKIP() << "gcloud (google-cloud-cli) not found";
    server_.emplace(
        testing::MakeTempDir(),
        std::vector<std::string>{"--rest", "127.0.0.1:0", "--allow-command",
                                 testing::SourceDir() + "/tests/testdata/"});
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    port_ = testing::RestPort(*server_);
    ASSERT_GT(port_, 0) << server_->Output();
    gcloud_.emplace(server_->dir(), port_);
  }

  // `gcloud ai-platform jobs stream-logs JOB`, its logging endpoint set as
  // docs/rest.md says.
  ProcessResult StreamLogs(const std::string& job_id) const {
    ProcessResult set =
        gcloud_->Run({"config", "set", "api_endpoint_overrides/logging",
                      "http://127.0.0.1:" + std::to_string(port_) + "/"});
    EXPECT_EQ(set.exit_code, 0) << set.err;
    return gcloud_->Run(
        {"ai-platform", "jobs", "stream-logs", job_id, "--polling-interval=1"});
  }

  std::optional<ServeProcess> server_;
  std::optional<testing::Gcloud> gcloud_;
  int port_ = 0;
};

TEST_F(RestGcloudTest, DescribeShowsTheStoredTrialsAndListFindsTheJob) {
  // Set up as docs/rest.md says: `gcloud config set`.
  gcloud_.emplace(server_->dir(), port_, testing::Gcloud::Setup::kConfigSet);
  httplib::Result created =
      Post(port_, "/v1/projects/p1/jobs?alt=json", CreateBody("j1", 3, 0.0),
           testing::DefaultToken());
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  EXPECT_EQ(Json::parse(created->body)["jobId"], "j1");

  const Json job = gcloud_->JsonOnceIn(
      {"ai-platform", "jobs", "describe", "j1"}, "/v1/projects/p1/jobs/j1",
      {"SUCCEEDED"}, std::chrono::seconds(120));
  ASSERT_EQ(job.value("state", ""), "SUCCEEDED")
      << job.dump() << server_->Output();
  const Json& output = job["trainingOutput"];
  EXPECT_EQ(output["completedTrialCount"], "2");
  EXPECT_EQ(output["hyperparameterMetricTag"], "loss");
  EXPECT_EQ(output["isHyperparameterTuningJob"], true);
  ASSERT_EQ(output["trials"].size(), 2u);

  v1::GetJobRequest get;
  get.set_job_id("j1");
  v1::Job stored;
  ASSERT_TRUE(
      server_->JobStub()->GetJob(testing::Context().get(), get, &stored).ok());
  for (size_t i = 0; i < 2; ++i) {
    const Json& shown = output["trials"][i];
    const v1::HyperparameterOutput& trial =
        stored.training_output().trials(static_cast<int>(i));
    EXPECT_EQ(shown["trialId"], trial.trial_id());
    EXPECT_EQ(shown["state"], "SUCCEEDED");
    EXPECT_EQ(shown["hyperparameters"]["x"], trial.hyperparameters().at("x"));
    EXPECT_EQ(shown["finalMetric"]["trainingStep"], "3");
    EXPECT_DOUBLE_EQ(shown["finalMetric"]["objectiveValue"].get<double>(),
                     trial.final_metric().objective_value());
    EXPECT_EQ(shown["allMetrics"].size(), 3u);
    EXPECT_TRUE(shown.contains("startTime") && shown.contains("endTime"));
  }
  // consumedMLUnits: replica-hours (one replica per trial here) of the
  // stored trials' start-to-end times.
  double hours = 0;
  auto seconds = [](const google::protobuf::Timestamp& t) {
    return static_cast<double>(t.seconds()) + t.nanos() * 1e-9;
  };
  for (const v1::HyperparameterOutput& trial :
       stored.training_output().trials())
    hours += (seconds(trial.end_time()) - seconds(trial.start_time())) / 3600;
  EXPECT_GT(hours, 0);
  EXPECT_NEAR(output["consumedMLUnits"].get<double>(), hours, 1e-9);
  EXPECT_TRUE(job.contains("createTime") && job.contains("endTime"));
  // gcloud's own tables of the trials.
  ProcessResult summary =
      gcloud_->Run({"ai-platform", "jobs", "describe", "j1", "--summarize"});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_THAT(summary.out, HasSubstr("Training Output Trials"));
  EXPECT_THAT(
      summary.out,
      HasSubstr("x=" +
                stored.training_output().trials(0).hyperparameters().at("x")));

  Json list = Jobs(*gcloud_, {"list"});
  ASSERT_TRUE(list.is_array()) << list.dump();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["jobId"], "j1");
  EXPECT_EQ(list[0]["state"], "SUCCEEDED");

  // `jobs update` reads the job, then patches its labels.
  ProcessResult update = gcloud_->Run({"ai-platform", "jobs", "update", "j1",
                                       "--update-labels", "team=vision"});
  EXPECT_EQ(update.exit_code, 0) << update.err;
  EXPECT_EQ(Jobs(*gcloud_, {"describe", "j1"})["labels"]["team"], "vision");
}

// `gcloud ai-platform jobs stream-logs` reads Cloud Logging's entries.list
// here: the lines the trainer printed, with their task, until the job ended.
TEST_F(RestGcloudTest, StreamLogsShowsWhatTheTrainerPrinted) {
  httplib::Result created =
      Post(port_, "/v1/projects/p1/jobs?alt=json", CreateBody("logged", 2, 0.0),
           testing::DefaultToken());
  ASSERT_TRUE(created && created->status == 200);
  v1::GetJobRequest get;
  get.set_job_id("logged");
  get.set_omit_trials(true);
  v1::Job stored;
  ASSERT_TRUE(PollUntil(
      [&] {
        return server_->JobStub()
                   ->GetJob(testing::Context().get(), get, &stored)
                   .ok() &&
               stored.state() == v1::Job::SUCCEEDED;
      },
      std::chrono::seconds(60)))
      << server_->Output();
  ProcessResult logs = StreamLogs("logged");
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  // curve_trainer's --stdout_metrics lines, 2 steps of each of 2 trials.
  EXPECT_EQ(testing::CountOccurrences(logs.out, "loss="), 4) << logs.out;
  EXPECT_THAT(logs.out, HasSubstr("master-replica-0"));
}

// A job without hyperparameters is one training run, and AI Platform shows
// no trials for it; its logs are still there.
TEST_F(RestGcloudTest, AJobWithoutHyperparametersShowsNoTrials) {
  Json body = Json::parse(CreateBody("once", 2, 0.0));
  body["trainingInput"].erase("hyperparameters");
  body["trainingInput"]["args"].push_back("--x=0.5");
  body["trainingInput"]["args"].push_back("--y=0.5");
  httplib::Result created =
      Post(port_, "/v1/projects/p1/jobs", body.dump(), testing::DefaultToken());
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;

  const Json job = gcloud_->JsonOnceIn(
      {"ai-platform", "jobs", "describe", "once"}, "/v1/projects/p1/jobs/once",
      {"SUCCEEDED", "FAILED"}, std::chrono::seconds(60));
  ASSERT_EQ(job.value("state", ""), "SUCCEEDED")
      << job.dump() << server_->Output();
  const Json& output = job["trainingOutput"];
  EXPECT_FALSE(output.value("isHyperparameterTuningJob", false));
  for (const char* field : {"trials", "completedTrialCount", "bestTrial",
                            "hyperparameterMetricTag"}) {
    EXPECT_FALSE(output.contains(field)) << field << ": " << job.dump();
  }
  EXPECT_TRUE(output.contains("consumedMLUnits")) << job.dump();
  const Json listed = Jobs(*gcloud_, {"list"});
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_FALSE(listed[0]["trainingOutput"].contains("trials"));

  ProcessResult logs = StreamLogs("once");
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(testing::CountOccurrences(logs.out, "loss="), 2) << logs.out;
}

TEST_F(RestGcloudTest, CancelStopsARunningJob) {
  httplib::Result created =
      Post(port_, "/v1/projects/p1/jobs", CreateBody("long", 100000, 0.05),
           testing::DefaultToken());
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  ProcessResult cancel =
      gcloud_->Run({"ai-platform", "jobs", "cancel", "long"});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  const Json job = gcloud_->JsonOnceIn(
      {"ai-platform", "jobs", "describe", "long"}, "/v1/projects/p1/jobs/long",
      {"CANCELLED"}, std::chrono::seconds(60));
  ASSERT_EQ(job.value("state", ""), "CANCELLED") << job.dump();
}

TEST_F(RestGcloudTest, ErrorsAreGooglesWithTheServersMessages) {
  ProcessResult missing =
      gcloud_->Run({"ai-platform", "jobs", "describe", "nope"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr("nope"));

  // gcloud's own submission of a container job meets the server's policy:
  // no --allow-image was given.
  const std::string config = server_->dir() + "/c.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  hyperparameters:\n"
                           "    goal: MINIMIZE\n"
                           "    hyperparameterMetricTag: loss\n"
                           "    maxTrials: 2\n"
                           "    params:\n"
                           "    - {parameterName: x, type: DOUBLE, "
                           "minValue: 0, maxValue: 1}\n";
  ProcessResult image = gcloud_->Run(
      {"ai-platform", "jobs", "submit", "training", "img1", "--config", config,
       "--region", "us-central1", "--master-image-uri", "python:3.11-slim"});
  EXPECT_NE(image.exit_code, 0) << image.out;
  EXPECT_THAT(image.err, HasSubstr("python:3.11-slim")) << image.err;

  httplib::Result anonymous = Post(port_, "/v1/projects/p1/jobs",
                                   CreateBody("j2", 1, 0.0), /*token=*/"");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  Json error = Json::parse(anonymous->body)["error"];
  EXPECT_EQ(error["code"], 401);
  EXPECT_EQ(error["status"], "UNAUTHENTICATED");

  httplib::Result web =
      Post(port_, "/v1/projects/p1/jobs",
           Json{{"jobId", "j3"}, {"trainingInput", {{"enableWebAccess", true}}}}
               .dump(),
           testing::DefaultToken());
  ASSERT_TRUE(web);
  EXPECT_EQ(web->status, 400);
  EXPECT_THAT(web->body, HasSubstr("trainingInput.enableWebAccess"));

  httplib::Result large =
      Post(port_, "/v1/projects/p1/jobs", std::string(5 << 20, ' '),
           testing::DefaultToken());
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 413);
  EXPECT_EQ(Json::parse(large->body)["error"]["status"], "RESOURCE_EXHAUSTED");
}

// Plain HTTP carries bearer tokens: off loopback without TLS is refused
// before anything starts (no gcloud needed).
TEST(RestFlagTest, RestOffLoopbackIsRefused) {
  const std::string dir = testing::MakeTempDir();
  ProcessResult serve = testing::RunProcess(
      {testing::HptuneBinary(), "serve", "--db", dir + "/hptune.db",
       "--state-dir", dir + "/runs", "--rest", "0.0.0.0:0"});
  EXPECT_EQ(serve.exit_code, 2) << serve.out;
  EXPECT_THAT(serve.err, HasSubstr("--rest \"0.0.0.0:0\": refusing to serve "
                                   "the REST API off loopback without TLS"));
}

}  // namespace
}  // namespace hptune
