// Vertex AI's projects.locations.hyperparameterTuningJobs (and customJobs,
// each run once) on `hptune serve
// --rest`, driven by the real gcloud (`gcloud ai hp-tuning-jobs`, its
// aiplatform endpoint pointed at the server): describe shows each trial
// the server stored, list finds the job, cancel cancels, errors are
// Google's with the server's messages naming Vertex's fields. DELETE, which
// gcloud 528 lacks (`gcloud ai hp-tuning-jobs` has no delete), is sent by
// the test's own client as Google's client libraries send it; the
// Operation it answers is polled with `gcloud ai operations describe`.
// gcloud sends only container or package jobs: the job of a
// host trainer is created with AI Platform's body (any tuning job is a
// HyperparameterTuningJob here), and gcloud's own create runs where root,
// podman and the tests' image are (tests/testdata/containers). Skips,
// saying why, without gcloud.
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/gcloud_cli.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Gcloud;
using ::testing::HasSubstr;
using testing::ProcessResult;
using testing::ServeProcess;
using Json = nlohmann::json;

constexpr char kJobs[] =
    "/v1/projects/p1/locations/us-central1/hyperparameterTuningJobs";
constexpr char kImage[] = "localhost/hptune-test/python:1";

// AI Platform's create body for a host trainer: `steps` reports of `loss`.
std::string HostJobBody(const std::string& id, int steps, double seconds) {
  const std::string trainer =
      testing::SourceDir() + "/tests/testdata/curve_trainer.py";
  Json input = {
      {"region", "us-central1"},
      {"command", {trainer}},
      {"args",
       {"--y=0.5", "--steps=" + std::to_string(steps),
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
           {"maxValue", 1}}}}}}};
  return Json{{"jobId", id}, {"trainingInput", input}}.dump();
}

httplib::Result Send(int port, const std::string& method,
                     const std::string& path, const std::string& body = "") {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(60));
  const httplib::Headers headers = {
      {"Authorization", "Bearer " + testing::DefaultToken()}};
  if (method == "DELETE") return client.Delete(path, headers);
  return client.Post(path, headers, body, "application/json");
}

// The trials the server stored for a job's study.
std::vector<v1::Trial> StoredTrials(const ServeProcess& server,
                                    const std::string& job_id) {
  v1::ListTrialsRequest request;
  request.set_study(job_id);
  v1::ListTrialsResponse reply;
  EXPECT_TRUE(server.StudyStub()
                  ->ListTrials(testing::Context().get(), request, &reply)
                  .ok());
  return {reply.trials().begin(), reply.trials().end()};
}

// Each trial gcloud shows is the stored one: state, value, measurements.
void ExpectStoredTrials(const Json& shown, const std::vector<v1::Trial>& stored,
                        size_t steps) {
  ASSERT_EQ(shown.size(), stored.size()) << shown.dump();
  for (size_t i = 0; i < stored.size(); ++i) {
    SCOPED_TRACE(i);
    const Json& trial = shown[i];
    const v1::Trial& want = stored[i];
    EXPECT_EQ(trial["id"], std::to_string(want.id()));
    EXPECT_EQ(trial["state"], "SUCCEEDED");
    ASSERT_EQ(trial["parameters"].size(), 1u);
    EXPECT_EQ(trial["parameters"][0]["parameterId"], "x");
    EXPECT_DOUBLE_EQ(trial["parameters"][0]["value"].get<double>(),
                     want.parameters().at("x").double_value());
    const Json& final_measurement = trial["finalMeasurement"];
    EXPECT_EQ(final_measurement["stepCount"],
              std::to_string(want.final_measurement().step()));
    EXPECT_EQ(final_measurement["metrics"][0]["metricId"], "loss");
    EXPECT_DOUBLE_EQ(final_measurement["metrics"][0]["value"].get<double>(),
                     want.final_measurement().metrics().at("loss"));
    EXPECT_EQ(trial["measurements"].size(), steps);
    EXPECT_TRUE(trial.contains("startTime") && trial.contains("endTime"));
  }
}

class RestVertexGcloudTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::FindGcloud().empty()) {
      GTEST_SKIP() << "gcloud (google-cloud-cli) not found";
    }
  }

  // With `--allow-command` rules (the trainers of tests/testdata/ and no
  // image), or with no rule: every command and image allowed.
  void StartServer(bool with_rules = true) {
    std::vector<std::string> flags = {"--rest", "127.0.0.1:0"};
    if (with_rules) {
      flags.insert(flags.end(), {"--allow-command",
                                 testing::SourceDir() + "/tests/testdata/"});
    }
    server_.emplace(testing::MakeTempDir(), flags);
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    port_ = testing::RestPort(*server_);
    ASSERT_GT(port_, 0) << server_->Output();
    gcloud_.emplace(server_->dir(), port_);
  }

  // `gcloud ai hp-tuning-jobs ARGS --region us-central1`, as JSON.
  Json HpTuningJobs(std::vector<std::string> args) const {
    args.insert(args.begin(), {"ai", "hp-tuning-jobs"});
    args.insert(args.end(), {"--region", "us-central1"});
    return gcloud_->Json(args);
  }

  // gcloud's description of tuning job `id` (a CustomJob where `custom`)
  // once it is in `state`.
  Json DescribeUntil(const std::string& id, const std::string& state,
                     bool custom = false) const {
    const std::string path =
        custom ? "/v1/projects/p1/locations/us-central1/customJobs/" + id
               : std::string(kJobs) + "/" + id;
    const Json job =
        gcloud_->JsonOnceIn({"ai", custom ? "custom-jobs" : "hp-tuning-jobs",
                             "describe", id, "--region", "us-central1"},
                            path, {state}, std::chrono::seconds(120));
    EXPECT_EQ(job.value("state", ""), state) << job.dump() << server_->Output();
    return job;
  }

  // DELETE of ended job `id` answers a done Operation, which gcloud reads
  // back done; then neither gcloud nor the store has the job or its study.
  void ExpectDeletes(const std::string& id) const {
    httplib::Result deleted =
        Send(port_, "DELETE", std::string(kJobs) + "/" + id);
    ASSERT_TRUE(deleted);
    ASSERT_EQ(deleted->status, 200) << deleted->body;
    const Json operation = Json::parse(deleted->body);
    EXPECT_EQ(operation["name"],
              "projects/p1/locations/us-central1/operations/delete-" + id);
    EXPECT_EQ(operation["done"], true);
    const Json polled =
        gcloud_->Json({"ai", "operations", "describe", "delete-" + id,
                       "--region", "us-central1"});
    EXPECT_EQ(polled.value("done", false), true) << polled.dump();
    EXPECT_EQ(polled["name"], operation["name"]);

    ProcessResult gone = gcloud_->Run(
        {"ai", "hp-tuning-jobs", "describe", id, "--region", "us-central1"});
    EXPECT_NE(gone.exit_code, 0) << gone.out;
    EXPECT_THAT(gone.err, HasSubstr("NOT_FOUND")) << gone.err;
    v1::GetJobRequest get;
    get.set_job_id(id);
    v1::Job job;
    EXPECT_EQ(server_->JobStub()
                  ->GetJob(testing::Context().get(), get, &job)
                  .error_code(),
              grpc::StatusCode::NOT_FOUND);
    v1::GetStudyRequest study;
    study.set_name(id);
    v1::Study found;
    EXPECT_EQ(server_->StudyStub()
                  ->GetStudy(testing::Context().get(), study, &found)
                  .error_code(),
              grpc::StatusCode::NOT_FOUND);
  }

  std::optional<ServeProcess> server_;
  std::optional<Gcloud> gcloud_;
  int port_ = 0;
};

TEST_F(RestVertexGcloudTest, DescribeShowsTheStoredTrialsListFindsTheJob) {
  StartServer();
  // Set up as docs/rest.md says: `gcloud config set`.
  gcloud_.emplace(server_->dir(), port_, testing::Gcloud::Setup::kConfigSet);
  httplib::Result created =
      Send(port_, "POST", "/v1/projects/p1/jobs", HostJobBody("host1", 3, 0.0));
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;

  const Json job = DescribeUntil("host1", "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["name"],
            "projects/p1/locations/us-central1/hyperparameterTuningJobs/host1");
  EXPECT_EQ(job["displayName"], "host1");
  EXPECT_EQ(job["maxTrialCount"], 2);
  EXPECT_EQ(job["studySpec"]["metrics"][0]["metricId"], "loss");
  EXPECT_EQ(job["studySpec"]["algorithm"], "RANDOM_SEARCH");
  EXPECT_TRUE(job.contains("createTime") && job.contains("endTime"));
  ExpectStoredTrials(job["trials"], StoredTrials(*server_, "host1"), 3);

  const Json list = HpTuningJobs({"list"});
  ASSERT_TRUE(list.is_array()) << list.dump();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["name"], job["name"]);
  EXPECT_EQ(list[0]["state"], "JOB_STATE_SUCCEEDED");

  // Another location has no such job.
  ProcessResult elsewhere = gcloud_->Run({"ai", "hp-tuning-jobs", "describe",
                                          "host1", "--region", "europe-west4"});
  EXPECT_NE(elsewhere.exit_code, 0);
  EXPECT_THAT(elsewhere.err, HasSubstr("is in location \"us-central1\""));

  ExpectDeletes("host1");
  httplib::Result missing = Send(port_, "DELETE", std::string(kJobs) + "/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404) << missing->body;
}

TEST_F(RestVertexGcloudTest, CancelStopsARunningJobThatDeleteRefused) {
  StartServer();
  httplib::Result created = Send(port_, "POST", "/v1/projects/p1/jobs",
                                 HostJobBody("long", 100000, 0.05));
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  // Not while it runs: the refusal names its state and says what to do.
  httplib::Result refused = Send(port_, "DELETE", std::string(kJobs) + "/long");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  const Json error = Json::parse(refused->body)["error"];
  EXPECT_EQ(error["status"], "FAILED_PRECONDITION");
  EXPECT_THAT(error["message"].get<std::string>(),
              ::testing::MatchesRegex(
                  "job \"long\" is (QUEUED|PREPARING|RUNNING): only an "
                  "ended job is deleted; cancel it first"));
  ProcessResult cancel = gcloud_->Run(
      {"ai", "hp-tuning-jobs", "cancel", "long", "--region", "us-central1"});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  DescribeUntil("long", "JOB_STATE_CANCELLED");
  ExpectDeletes("long");
}

// gcloud's create reaches the server's reader and policy: a field error
// names the Vertex field, an image the server does not allow is named.
TEST_F(RestVertexGcloudTest, CreateErrorsAreTheServersInVertexNames) {
  StartServer();
  const std::string config = server_->dir() + "/v.yaml";
  std::ofstream(config)
      << "studySpec:\n"
         "  metrics: [{metricId: loss, goal: MINIMIZE}]\n"
         "  parameters:\n"
         "  - {parameterId: x, doubleValueSpec: {minValue: 1, maxValue: 0}}\n"
         "trialJobSpec:\n"
         "  workerPoolSpecs:\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    replicaCount: 1\n"
         "    containerSpec: {imageUri: 'python:3.11-slim'}\n";
  ProcessResult bad =
      gcloud_->Run({"ai", "hp-tuning-jobs", "create", "--config", config,
                    "--region", "us-central1", "--display-name", "bad"});
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_THAT(bad.err, HasSubstr("studySpec.parameters[0]")) << bad.err;

  std::ofstream(config)
      << "studySpec:\n"
         "  metrics: [{metricId: loss, goal: MINIMIZE}]\n"
         "  parameters:\n"
         "  - {parameterId: x, doubleValueSpec: {minValue: 0, maxValue: 1}}\n"
         "trialJobSpec:\n"
         "  workerPoolSpecs:\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    replicaCount: 1\n"
         "    containerSpec: {imageUri: 'python:3.11-slim'}\n";
  ProcessResult image =
      gcloud_->Run({"ai", "hp-tuning-jobs", "create", "--config", config,
                    "--region", "us-central1", "--display-name", "img"});
  EXPECT_NE(image.exit_code, 0) << image.out;
  EXPECT_THAT(image.err, HasSubstr("python:3.11-slim")) << image.err;
}

// `gcloud ai custom-jobs`: create's CustomJob reaches the reader (errors
// name jobSpec's fields); a tuning job is no custom job (NOT_FOUND, not
// listed).
TEST_F(RestVertexGcloudTest, CustomJobsAreReadAndTuningJobsAreNotCustomJobs) {
  StartServer(/*with_rules=*/false);
  httplib::Result created =
      Send(port_, "POST", "/v1/projects/p1/jobs", HostJobBody("tuned", 1, 0));
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  ProcessResult described = gcloud_->Run(
      {"ai", "custom-jobs", "describe", "tuned", "--region", "us-central1"});
  EXPECT_NE(described.exit_code, 0) << described.out;
  EXPECT_THAT(described.err, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(described.err,
              HasSubstr("is a hyperparameterTuningJob, not a customJob"));
  const Json listed =
      gcloud_->Json({"ai", "custom-jobs", "list", "--region", "us-central1"});
  EXPECT_EQ(listed, Json::array()) << listed.dump();

  const std::string config = server_->dir() + "/custom.yaml";
  auto write_config = [&](const std::string& machine_type) {
    std::ofstream(config) << "workerPoolSpecs:\n"
                             "- machineSpec: {machineType: "
                          << machine_type
                          << "}\n"
                             "  replicaCount: 1\n"
                             "  containerSpec: {imageUri: "
                          << kImage << "}\n";
  };
  write_config("n1-nope-4");
  ProcessResult bad =
      gcloud_->Run({"ai", "custom-jobs", "create", "--config", config,
                    "--region", "us-central1", "--display-name", "bad"});
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_THAT(bad.err,
              HasSubstr("jobSpec.workerPoolSpecs[0].machineSpec.machineType"));
}

std::string WhyNoContainers() {
  if (geteuid() != 0) return "the container tests run as root";
  if (::access("/usr/bin/podman", X_OK) != 0) return "podman is not installed";
  if (testing::RunProcess({"/usr/bin/podman", "image", "exists", kImage})
          .exit_code != 0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh)";
  }
  return "";
}

// gcloud's own create of a container job, run to the end: the server
// names it, keeps the location and the display name apart from the ID.
TEST_F(RestVertexGcloudTest, GcloudCreatesAJobThatRunsInContainers) {
  const std::string why = WhyNoContainers();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  StartServer(/*with_rules=*/false);
  const std::string config = server_->dir() + "/v.yaml";
  std::ofstream(config)
      << "studySpec:\n"
         "  metrics: [{metricId: loss, goal: MINIMIZE}]\n"
         "  algorithm: RANDOM_SEARCH\n"
         "  parameters:\n"
         "  - {parameterId: x, doubleValueSpec: {minValue: "
         "0, maxValue: 1}}\n"
         "trialJobSpec:\n"
         "  workerPoolSpecs:\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    replicaCount: 1\n"
         "    containerSpec:\n"
         "      imageUri: "
      << kImage
      << "\n"
         "      command: [python3, /app/cluster_trainer.py]\n";
  ProcessResult created =
      gcloud_->Run({"ai", "hp-tuning-jobs", "create", "--config", config,
                    "--region", "us-central1", "--display-name", "my-job",
                    "--max-trial-count", "4", "--parallel-trial-count", "2"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::smatch id;
  const std::string said = created.out + created.err;
  ASSERT_TRUE(std::regex_search(said, id, std::regex(R"(\[(hpt_[0-9]+)\])")))
      << said;

  const Json job = DescribeUntil(id[1], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["name"],
            "projects/p1/locations/us-central1/"
            "hyperparameterTuningJobs/" +
                id[1].str());
  EXPECT_EQ(job["displayName"], "my-job");
  EXPECT_EQ(job["maxTrialCount"], 4);
  EXPECT_EQ(job["parallelTrialCount"], 2);
  EXPECT_EQ(
      job["trialJobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"],
      kImage);
  ExpectStoredTrials(job["trials"], StoredTrials(*server_, id[1]), 1);
  const Json list = HpTuningJobs({"list"});
  ASSERT_EQ(list.size(), 1u) << list.dump();
  EXPECT_EQ(list[0]["displayName"], "my-job");

  // `gcloud ai hp-tuning-jobs stream-logs` reads Cloud Logging's
  // entries.list: the trainer's lines, under Vertex's task names.
  ProcessResult set =
      gcloud_->Run({"config", "set", "api_endpoint_overrides/logging",
                    "http://127.0.0.1:" + std::to_string(port_) + "/"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  ProcessResult logs = gcloud_->Run(
      {"ai", "hp-tuning-jobs", "stream-logs", id[1].str(), "--region",
       "us-central1", "--task-name", "workerpool0-0", "--polling-interval=1"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  // One line from each of the 4 trials' master.
  EXPECT_EQ(testing::CountOccurrences(logs.out, "master: workers"), 4)
      << logs.out;
  EXPECT_THAT(logs.out, HasSubstr("workerpool0-0"));
}

// `gcloud ai custom-jobs` runs a CustomJob once: create's master and worker
// containers form a cluster and the job SUCCEEDS; describe and list show
// Vertex's CustomJob; a job whose master cannot start FAILS with Vertex's
// `error`; cancel ends a running one, and DELETE removes it.
TEST_F(RestVertexGcloudTest, GcloudRunsCustomJobsOnce) {
  const std::string why = WhyNoContainers();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  StartServer(/*with_rules=*/false);
  const std::string config = server_->dir() + "/custom.yaml";
  auto create = [&](const std::string& display_name, const std::string& args,
                    int pools) {
    std::ofstream out(config);
    out << "workerPoolSpecs:\n";
    for (int i = 0; i < pools; ++i) {
      out << "- machineSpec: {machineType: n1-standard-4}\n"
             "  replicaCount: 1\n"
             "  containerSpec:\n"
             "    imageUri: "
          << kImage << "\n    command: [python3, " << args << "]\n";
    }
    out.close();
    ProcessResult made = gcloud_->Run(
        {"ai", "custom-jobs", "create", "--config", config, "--region",
         "us-central1", "--display-name", display_name});
    EXPECT_EQ(made.exit_code, 0) << made.err;
    std::smatch id;
    const std::string said = made.out + made.err;
    EXPECT_TRUE(
        std::regex_search(said, id, std::regex(R"(customJobs/(hpt_[0-9]+))")))
        << said;
    return id.empty() ? std::string() : id[1].str();
  };
  auto describe_until = [&](const std::string& id, const std::string& state) {
    return DescribeUntil(id, state, /*custom=*/true);
  };

  const std::string ran = create("pair", "/app/cluster_trainer.py", 2);
  ASSERT_FALSE(ran.empty());
  const Json job = describe_until(ran, "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["name"], "projects/p1/locations/us-central1/customJobs/" + ran);
  EXPECT_EQ(job["displayName"], "pair");
  EXPECT_EQ(job["jobSpec"]["workerPoolSpecs"].size(), 2u) << job.dump();
  EXPECT_TRUE(job.contains("startTime") && job.contains("endTime"));
  EXPECT_FALSE(job.contains("error") || job.contains("trials"));
  const std::vector<v1::Trial> trials = StoredTrials(*server_, ran);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::SUCCEEDED);
  EXPECT_TRUE(trials[0].parameters().empty());

  const std::string failed = create("missing", "/app/nope.py", 1);
  const Json broken = describe_until(failed, "JOB_STATE_FAILED");
  EXPECT_EQ(broken["error"]["code"], 2) << broken.dump();
  EXPECT_THAT(broken["error"].value("message", ""),
              HasSubstr("master-0 exited with code 2"));

  const Json listed =
      gcloud_->Json({"ai", "custom-jobs", "list", "--region", "us-central1"});
  ASSERT_EQ(listed.size(), 2u) << listed.dump();
  EXPECT_EQ(HpTuningJobs({"list"}), Json::array());

  const std::string held =
      create("held", "/app/cluster_trainer.py, --hold=1", 1);
  describe_until(held, "JOB_STATE_RUNNING");
  ProcessResult cancelled = gcloud_->Run(
      {"ai", "custom-jobs", "cancel", held, "--region", "us-central1"});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  describe_until(held, "JOB_STATE_CANCELLED");
  httplib::Result deleted =
      Send(port_, "DELETE",
           "/v1/projects/p1/locations/us-central1/customJobs/" + held);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 200) << deleted->body;
  ProcessResult gone = gcloud_->Run(
      {"ai", "custom-jobs", "describe", held, "--region", "us-central1"});
  EXPECT_NE(gone.exit_code, 0) << gone.out;
  EXPECT_THAT(gone.err, HasSubstr("NOT_FOUND")) << gone.err;
}

}  // namespace
}  // namespace hptune
