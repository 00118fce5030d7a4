// JobService over the wire: a small tuning job submitted to a real
// `hptune serve`, watched to the end with WatchJob, its logs read back, and
// the SIGTERM drain that leaves jobs resumable.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::PollUntil;
using testing::ServeProcess;

// A config's trainingInput as the CLI sends it: JSON -> TrainingInput.
v1::TrainingInput CurveJob(int max_trials, int steps, double step_seconds) {
  const std::string trainer =
      testing::SourceDir() + "/tests/testdata/curve_trainer.py";
  const std::string json =
      R"({"scaleTier": "BASIC",
          "command": ["python3", ")" +
      trainer + R"("],
          "args": ["--steps=)" +
      std::to_string(steps) + R"(", "--step_seconds=)" +
      std::to_string(step_seconds) +
      R"(", "--stdout_metrics"],
          "hyperparameters": {
            "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
            "maxTrials": )" +
      std::to_string(max_trials) + R"(, "maxParallelTrials": 2,
            "algorithm": "RANDOM_SEARCH", "seed": "11",
            "params": [
              {"parameterName": "x", "type": "DOUBLE", "minValue": 0,
               "maxValue": 1},
              {"parameterName": "y", "type": "DOUBLE", "minValue": 0,
               "maxValue": 1}]}})";
  v1::TrainingInput input;
  auto status = google::protobuf::util::JsonStringToMessage(json, &input);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return input;
}

grpc::Status Submit(const ServeProcess& server, const std::string& id,
                    const v1::TrainingInput& input, v1::Job* job,
                    const std::string& backend = "") {
  v1::SubmitJobRequest request;
  request.set_job_id(id);
  *request.mutable_training_input() = input;
  request.set_backend(backend);
  return server.JobStub()->SubmitJob(Context().get(), request, job);
}

v1::Job GetJob(const ServeProcess& server, const std::string& id) {
  v1::GetJobRequest request;
  request.set_job_id(id);
  v1::Job job;
  grpc::Status status =
      server.JobStub()->GetJob(Context().get(), request, &job);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return job;
}

TEST(ServeJobTest, SubmittedJobIsWatchedToCompletion) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job submitted;
  grpc::Status status =
      Submit(server, "curve_job", CurveJob(3, 5, 0.01), &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(submitted.job_id(), "curve_job");
  EXPECT_EQ(submitted.training_input().hyperparameters().max_trials(), 3);

  auto stub = server.JobStub();
  auto context = Context(std::nullopt, std::chrono::seconds(60));
  v1::WatchJobRequest watch;
  watch.set_job_id("curve_job");
  auto reader = stub->WatchJob(context.get(), watch);
  std::vector<v1::JobEvent> events;
  v1::JobEvent event;
  while (reader->Read(&event)) events.push_back(event);
  status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message() << server.Output();

  ASSERT_GE(events.size(), 2u);
  EXPECT_TRUE(events.front().has_job());  // The state at the start.
  ASSERT_TRUE(events.back().has_job());
  EXPECT_EQ(events.back().job().state(), v1::Job::SUCCEEDED)
      << events.back().job().error_message();
  EXPECT_EQ(events.back().job().training_output().completed_trial_count(), 3);
  std::map<std::string, v1::Job::State> last_trial_state;
  for (const v1::JobEvent& e : events) {
    if (e.has_trial())
      last_trial_state[e.trial().trial_id()] = e.trial().state();
  }
  EXPECT_EQ(last_trial_state.size(), 3u);
  for (const auto& [id, state] : last_trial_state) {
    EXPECT_EQ(state, v1::Job::SUCCEEDED) << "trial " << id;
  }

  // The server's log has a line per job and trial start and end.
  EXPECT_TRUE(PollUntil(
      [&] {
        return server.Output().find(
                   "hptune serve: job curve_job: "
                   "SUCCEEDED") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << server.Output();
  const std::string log = server.Output();
  EXPECT_THAT(log, HasSubstr("hptune serve: job curve_job: running"));
  for (const std::string trial : {"1", "2", "3"}) {
    EXPECT_THAT(log, HasSubstr("job curve_job: trial " + trial + " started"));
    EXPECT_THAT(log,
                HasSubstr("job curve_job: trial " + trial + " SUCCEEDED, "));
  }

  v1::Job job = GetJob(server, "curve_job");
  ASSERT_EQ(job.training_output().trials_size(), 3);
  for (const v1::HyperparameterOutput& trial : job.training_output().trials()) {
    EXPECT_EQ(trial.final_metric().training_step(), 5);
    EXPECT_EQ(trial.all_metrics_size(), 5);
    EXPECT_EQ(trial.hyperparameters().size(), 2u);
  }
  EXPECT_FALSE(job.training_output().best_trial().trial_id().empty());

  v1::GetTrialLogsRequest logs;
  logs.set_job_id("curve_job");
  logs.set_trial_id(1);
  v1::LogChunk chunk;
  status = stub->GetTrialLogs(Context().get(), logs, &chunk);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_NE(chunk.data().find("loss="), std::string::npos) << chunk.data();
  EXPECT_TRUE(chunk.end_of_log());

  logs.set_replica("../../etc/passwd");
  status = stub->GetTrialLogs(Context().get(), logs, &chunk);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  // The trial must exist, though the job does.
  logs.set_replica("");
  logs.set_trial_id(99);
  status = stub->GetTrialLogs(Context().get(), logs, &chunk);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND)
      << status.error_message();
  logs.set_follow(false);
  auto stream_context = Context();
  auto stream = stub->StreamTrialLogs(stream_context.get(), logs);
  while (stream->Read(&chunk)) {
  }
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

// Following a trial the job has yet to create waits for it: trial 3 of a
// job running 2 at a time starts only when one of the first two ends. A
// trial beyond maxTrials is NOT_FOUND at once.
TEST(ServeJobTest, FollowingALaterTrialsLogWaitsForIt) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job submitted;
  grpc::Status status =
      Submit(server, "follow_job", CurveJob(3, 3, 0.05), &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  auto stub = server.JobStub();
  v1::GetTrialLogsRequest request;
  request.set_job_id("follow_job");
  request.set_trial_id(3);
  request.set_follow(true);
  auto context = Context(std::nullopt, std::chrono::seconds(120));
  auto reader = stub->StreamTrialLogs(context.get(), request);
  std::string log;
  bool ended = false;
  v1::LogChunk chunk;
  while (reader->Read(&chunk)) {
    log += chunk.data();
    ended = ended || chunk.end_of_log();
  }
  status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message() << server.Output();
  EXPECT_TRUE(ended);
  EXPECT_THAT(log, HasSubstr("loss="));

  request.set_trial_id(4);
  auto beyond_context = Context();
  auto beyond = stub->StreamTrialLogs(beyond_context.get(), request);
  while (beyond->Read(&chunk)) {
  }
  EXPECT_EQ(beyond->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(ServeJobTest, LogFileGetsTheJobLinesTimestampedAndPrivate) {
  const std::string dir = testing::MakeTempDir();
  const std::string log = dir + "/serve.log";
  ServeProcess server(dir, {"--log-file", log});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job submitted;
  grpc::Status status =
      Submit(server, "logged", CurveJob(1, 2, 0.01), &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(PollUntil(
      [&] {
        return testing::ReadFileOrEmpty(log).find(
                   " hptune serve: job logged: SUCCEEDED\n") !=
               std::string::npos;
      },
      std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(log) << server.Output();
  const std::string text = testing::ReadFileOrEmpty(log);
  // Each line starts with its time, e.g. 2026-11-25T07:00:00.123456Z.
  EXPECT_EQ(text.substr(0, 2), "20") << text;
  EXPECT_THAT(text, HasSubstr(" hptune serve: job logged: trial 1 started\n"));
  struct stat info;
  ASSERT_EQ(stat(log.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_THAT(server.Output(), Not(HasSubstr("job logged:")));
}

TEST(ServeJobTest, InvalidConfigIsRejectedWithTheParsersMessage) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::TrainingInput input = CurveJob(3, 5, 0.01);
  input.mutable_hyperparameters()->set_max_trials(0);
  v1::Job job;
  grpc::Status status = Submit(server, "bad_job", input, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(
      status.error_message().find("trainingInput.hyperparameters.maxTrials"),
      std::string::npos)
      << status.error_message();
  // A training job without hyperparameters is no mistake: it runs once
  // (docs/config.md, "One training run").
  input = CurveJob(1, 1, 0);
  input.clear_hyperparameters();
  status = Submit(server, "no_study", input, &job);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(job.training_output().is_hyperparameter_tuning_job());
  status = Submit(server, "9starts_with_digit", CurveJob(1, 1, 0), &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Same ID twice.
  ASSERT_TRUE(Submit(server, "twice", CurveJob(1, 1, 0), &job).ok());
  EXPECT_EQ(Submit(server, "twice", CurveJob(1, 1, 0), &job).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
  v1::GetJobRequest get;
  get.set_job_id("never_submitted");
  EXPECT_EQ(server.JobStub()->GetJob(Context().get(), get, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST(ServeJobTest, AVertexJobIsReadByTheConfigParserAndNamesItsFields) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::SubmitJobRequest request;
  request.set_job_id("vertex_job");
  request.set_vertex_job(R"({"studySpec": {
      "metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
      "parameters": [{"parameterId": "x",
        "doubleValueSpec": {"minValue": 1, "maxValue": 0}}]},
    "trialJobSpec": {"workerPoolSpecs": [{
      "machineSpec": {"machineType": "n1-standard-4"},
      "containerSpec": {"imageUri": "python:3.11"}}]}})");
  v1::Job job;
  grpc::Status status =
      server.JobStub()->SubmitJob(Context().get(), request, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("vertex_job.studySpec.parameters[0].doubleValueSpec."
                        "minValue: must be less than maxValue 0, got 1"));
  *request.mutable_training_input() = CurveJob(1, 1, 0);
  status = server.JobStub()->SubmitJob(Context().get(), request, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("vertex_job: cannot be used with training_input"));
}

TEST(ServeJobTest, ARequestWithoutAJobNamesBothWaysToGiveOne) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::SubmitJobRequest request;
  request.set_job_id("no_job");
  v1::Job job;
  grpc::Status status =
      server.JobStub()->SubmitJob(Context().get(), request, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "training_input: required (or vertex_job)");
}

TEST(ServeJobTest, AJobForAnotherBackendIsRefused) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  grpc::Status status =
      Submit(server, "on_slurm", CurveJob(1, 1, 0), &job, "slurm");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(),
            "backend: the job asks for slurm, but this server runs trials on "
            "local (start it with `hptune serve --backend slurm`, or leave "
            "the backend out to take the server's)");
  status = Submit(server, "on_k8s", CurveJob(1, 1, 0), &job, "kubernetes");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "backend: must be local, slurm or empty, got \"kubernetes\"");
  v1::GetJobRequest get;
  get.set_job_id("on_slurm");
  EXPECT_EQ(server.JobStub()->GetJob(Context().get(), get, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(
      Submit(server, "on_local", CurveJob(1, 1, 0), &job, "local").ok());
}

grpc::Status SubmitLabelled(const ServeProcess& server, const std::string& id,
                            const std::map<std::string, std::string>& labels,
                            v1::Job* job) {
  v1::SubmitJobRequest request;
  request.set_job_id(id);
  *request.mutable_training_input() = CurveJob(1, 1, 0);
  request.mutable_labels()->insert(labels.begin(), labels.end());
  return server.JobStub()->SubmitJob(Context().get(), request, job);
}

// The IDs of the jobs ListJobs returns for `labels`, newest first; the call's
// status in `status`.
std::vector<std::string> ListWithLabels(
    const ServeProcess& server,
    const std::map<std::string, std::string>& labels,
    grpc::Status* status = nullptr) {
  v1::ListJobsRequest request;
  request.mutable_labels()->insert(labels.begin(), labels.end());
  v1::ListJobsResponse reply;
  grpc::Status s = server.JobStub()->ListJobs(Context().get(), request, &reply);
  if (status != nullptr) *status = s;
  std::vector<std::string> ids;
  for (const v1::Job& job : reply.jobs()) ids.push_back(job.job_id());
  return ids;
}

std::map<std::string, std::string> LabelsOf(const v1::Job& job) {
  return {job.labels().begin(), job.labels().end()};
}

TEST(ServeJobTest, LabelsAreKeptAcrossARestartAndFilterTheJobList) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::map<std::string, std::string> vision = {{"team", "vision"},
                                                     {"owner", "ana"}};
  v1::Job job;
  grpc::Status status = SubmitLabelled(server, "vision_1", vision, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(LabelsOf(job), vision);
  ASSERT_TRUE(SubmitLabelled(server, "nlp_1", {{"team", "nlp"}}, &job).ok());
  ASSERT_TRUE(SubmitLabelled(server, "unlabelled", {}, &job).ok());
  EXPECT_TRUE(job.labels().empty());

  EXPECT_EQ(ListWithLabels(server, {{"team", "vision"}}),
            std::vector<std::string>{"vision_1"});
  EXPECT_EQ(ListWithLabels(server, {{"team", "*"}}),
            (std::vector<std::string>{"nlp_1", "vision_1"}));
  EXPECT_TRUE(
      ListWithLabels(server, {{"team", "vision"}, {"owner", "bo"}}).empty());
  EXPECT_EQ(ListWithLabels(server, {}).size(), 3u);

  // A label that breaks the rules is refused, and no job is recorded.
  status = SubmitLabelled(server, "bad_labels", {{"Team", "vision"}}, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "labels: key \"Team\" must be 1 to 63 characters, a lowercase "
            "letter followed by lowercase letters, digits, '_' and '-'");
  v1::GetJobRequest get;
  get.set_job_id("bad_labels");
  EXPECT_EQ(server.JobStub()->GetJob(Context().get(), get, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
  // So is a filter that no job could match.
  ListWithLabels(server, {{"team", "Vision"}}, &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "labels: value \"Vision\" of key \"team\" must be at most 63 "
            "characters of lowercase letters, digits, '_' and '-'");

  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "vision_1").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(30)))
      << server.Output();
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
  ASSERT_TRUE(server.Start(&error)) << error;
  EXPECT_EQ(LabelsOf(GetJob(server, "vision_1")), vision);
  EXPECT_EQ(ListWithLabels(server, {{"owner", "ana"}}),
            std::vector<std::string>{"vision_1"});
}

// The IDs on one page of ListJobs, and its next_page_token.
std::pair<std::vector<std::string>, std::string> ListPage(
    const ServeProcess& server, int page_size, const std::string& token) {
  v1::ListJobsRequest request;
  request.set_page_size(page_size);
  request.set_page_token(token);
  v1::ListJobsResponse reply;
  grpc::Status status =
      server.JobStub()->ListJobs(Context().get(), request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  std::vector<std::string> ids;
  for (const v1::Job& job : reply.jobs()) ids.push_back(job.job_id());
  return {ids, reply.next_page_token()};
}

TEST(ServeJobTest, AJobListPageHoldsPageSizeJobsAndItsTokenLeadsOn) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  for (const char* id : {"paged_1", "paged_2", "paged_3"}) {
    grpc::Status status = Submit(server, id, CurveJob(1, 1, 0), &job);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  using Page = std::pair<std::vector<std::string>, std::string>;
  // Newest first; the last page has no token.
  const Page first = ListPage(server, 2, "");
  EXPECT_EQ(first.first, (std::vector<std::string>{"paged_3", "paged_2"}));
  ASSERT_FALSE(first.second.empty());
  EXPECT_EQ(ListPage(server, 2, first.second), (Page{{"paged_1"}, ""}));
  EXPECT_EQ(ListPage(server, 3, ""),
            (Page{{"paged_3", "paged_2", "paged_1"}, ""}));
  const Page one = ListPage(server, 1, "");
  EXPECT_EQ(one.first, std::vector<std::string>{"paged_3"});
  EXPECT_EQ(ListPage(server, 1, one.second).first,
            std::vector<std::string>{"paged_2"});
}

grpc::Status UpdateLabels(const ServeProcess& server,
                          const v1::UpdateJobRequest& request, v1::Job* job) {
  return server.JobStub()->UpdateJob(Context().get(), request, job);
}

TEST(ServeJobTest, UpdateJobChangesLabelsAsGcloudDoesAndKeepsThem) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(SubmitLabelled(server, "tagged",
                             {{"team", "vision"}, {"draft", ""}}, &job)
                  .ok());
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "tagged").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(30)))
      << server.Output();

  // An ended job's labels still change. Updated, then removed: "stage" is
  // updated and removed in one request, so it ends removed.
  v1::UpdateJobRequest request;
  request.set_job_id("tagged");
  (*request.mutable_update_labels())["owner"] = "ana";
  (*request.mutable_update_labels())["team"] = "nlp";
  (*request.mutable_update_labels())["stage"] = "dev";
  request.add_remove_labels("draft");
  request.add_remove_labels("stage");
  request.add_remove_labels("never_set");
  grpc::Status status = UpdateLabels(server, request, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::map<std::string, std::string> updated = {{"owner", "ana"},
                                                      {"team", "nlp"}};
  EXPECT_EQ(LabelsOf(job), updated);
  EXPECT_EQ(job.state(), v1::Job::SUCCEEDED);

  // Refused requests change nothing.
  v1::UpdateJobRequest empty;
  empty.set_job_id("tagged");
  status = UpdateLabels(server, empty, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "nothing to update: give update_labels, remove_labels or "
            "clear_labels");
  v1::UpdateJobRequest bad = empty;
  (*bad.mutable_update_labels())["owner"] = "Bo";
  status = UpdateLabels(server, bad, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "update_labels: value \"Bo\" of key \"owner\" must be at most "
            "63 characters of lowercase letters, digits, '_' and '-'");
  v1::UpdateJobRequest bad_key = empty;
  bad_key.add_remove_labels("Team");
  EXPECT_EQ(UpdateLabels(server, bad_key, &job).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::UpdateJobRequest too_many = empty;
  for (int i = 0; i < 63; ++i) {
    (*too_many.mutable_update_labels())["k" + std::to_string(i)] = "v";
  }
  status = UpdateLabels(server, too_many, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "labels: at most 64 labels, got 65");
  v1::UpdateJobRequest missing = request;
  missing.set_job_id("no_such_job");
  EXPECT_EQ(UpdateLabels(server, missing, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(LabelsOf(GetJob(server, "tagged")), updated);

  // A running job's state changes do not undo a label change.
  ASSERT_TRUE(Submit(server, "running", CurveJob(1, 20, 0.05), &job).ok());
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "running").state() == v1::Job::RUNNING; },
      std::chrono::seconds(20)));
  v1::UpdateJobRequest tag_running = empty;
  tag_running.set_job_id("running");
  (*tag_running.mutable_update_labels())["watched"] = "yes";
  ASSERT_TRUE(UpdateLabels(server, tag_running, &job).ok());
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "running").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(30)));
  EXPECT_EQ(LabelsOf(GetJob(server, "running")),
            (std::map<std::string, std::string>{{"watched", "yes"}}));

  // Cleared first, then updated; kept across a restart.
  v1::UpdateJobRequest replace = empty;
  replace.set_clear_labels(true);
  (*replace.mutable_update_labels())["stage"] = "prod";
  ASSERT_TRUE(UpdateLabels(server, replace, &job).ok());
  EXPECT_EQ(LabelsOf(job),
            (std::map<std::string, std::string>{{"stage", "prod"}}));
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
  ASSERT_TRUE(server.Start(&error)) << error;
  EXPECT_EQ(LabelsOf(GetJob(server, "tagged")),
            (std::map<std::string, std::string>{{"stage", "prod"}}));
  EXPECT_EQ(GetJob(server, "tagged").state(), v1::Job::SUCCEEDED);
}

// Clients that each add their own labels to one running job at the same
// time (while its runner writes its state): every label is kept.
TEST(ServeJobTest, ConcurrentLabelUpdatesAreAllKept) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(Submit(server, "contended", CurveJob(2, 20, 0.05), &job).ok());
  constexpr int kClients = 4, kUpdates = 12;
  std::map<std::string, std::string> expected;
  std::vector<std::thread> clients;
  std::vector<int> failures(kClients, 0);
  for (int c = 0; c < kClients; ++c) {
    for (int u = 0; u < kUpdates; ++u) {
      expected["c" + std::to_string(c) + "_" + std::to_string(u)] = "v";
    }
    clients.emplace_back([&server, &failures, c] {
      auto stub = server.JobStub();
      for (int u = 0; u < kUpdates; ++u) {
        v1::UpdateJobRequest request;
        request.set_job_id("contended");
        (*request.mutable_update_labels())["c" + std::to_string(c) + "_" +
                                           std::to_string(u)] = "v";
        v1::Job updated;
        if (!stub->UpdateJob(Context().get(), request, &updated).ok()) {
          ++failures[c];
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(failures, std::vector<int>(kClients, 0));
  EXPECT_EQ(LabelsOf(GetJob(server, "contended")), expected);
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "contended").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(60)))
      << server.Output();
  EXPECT_EQ(LabelsOf(GetJob(server, "contended")), expected);
}

TEST(ServeJobTest, CancelStopsTheJob) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(Submit(server, "to_cancel", CurveJob(4, 400, 0.05), &job).ok());
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "to_cancel").state() == v1::Job::RUNNING; },
      std::chrono::seconds(20)));
  // Local trials run as soon as they are launched: never QUEUED for long.
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        const v1::Job running = GetJob(server, "to_cancel");
        return running.training_output().trials_size() == 2 &&
               std::all_of(running.training_output().trials().begin(),
                           running.training_output().trials().end(),
                           [](const v1::HyperparameterOutput& t) {
                             return t.state() == v1::Job::RUNNING;
                           });
      },
      std::chrono::seconds(20)));
  v1::CancelJobRequest cancel;
  cancel.set_job_id("to_cancel");
  grpc::Status status =
      server.JobStub()->CancelJob(Context().get(), cancel, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(job.state() == v1::Job::CANCELLING ||
              job.state() == v1::Job::CANCELLED)
      << job.state();
  EXPECT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "to_cancel").state() == v1::Job::CANCELLED; },
      std::chrono::seconds(20)));
  EXPECT_TRUE(testing::ReplicasUnder(server.runs_dir()).empty());
  status = server.JobStub()->CancelJob(Context().get(), cancel, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(),
            "job \"to_cancel\" has ended (CANCELLED): nothing to cancel");
}

TEST(ServeJobTest, SigtermDrainsAndTheNextServerFinishesTheJob) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(Submit(server, "drained", CurveJob(2, 30, 0.05), &job).ok());
  // Wait until a trial has reported: replicas are certainly running.
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        v1::Job j = GetJob(server, "drained");
        return j.training_output().trials_size() > 0 &&
               j.training_output().trials(0).all_metrics_size() > 0;
      },
      std::chrono::seconds(20)));
  ASSERT_FALSE(testing::ReplicasUnder(server.runs_dir()).empty());

  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
  EXPECT_TRUE(testing::ReplicasUnder(server.runs_dir()).empty());
  {
    // As the drain left it, before a server touches it again: the job and
    // its unfinished trials keep their states (the next server tells a
    // drained attempt from a failed one: AttemptsEndedByDrains... below).
    auto store = store::SqliteStore::Open(server.db(), hptune::SystemClock());
    ASSERT_TRUE(store.ok()) << store.status();
    auto left = (*store)->GetJob("drained");
    ASSERT_TRUE(left.ok()) << left.status();
    EXPECT_EQ(left->state, JobState::kRunning);
    auto trials = (*store)->ListTrials("drained");
    ASSERT_TRUE(trials.ok()) << trials.status();
    ASSERT_FALSE(trials->empty());
    for (const Trial& trial : *trials) {
      if (trial.state == TrialState::kSucceeded) continue;
      EXPECT_EQ(trial.state, TrialState::kActive) << trial.number;
    }
  }

  ASSERT_TRUE(server.Start(&error)) << error;
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "drained").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(60)))
      << server.Output();
  v1::Job done = GetJob(server, "drained");
  ASSERT_EQ(done.training_output().trials_size(), 2);
  EXPECT_EQ(done.training_output().trials(0).trial_id(), "1");
  EXPECT_EQ(done.training_output().trials(1).trial_id(), "2");
}

// docs/cli.md: on SIGTERM new calls are refused and calls in flight get 5
// seconds. A watch open at the signal outlives the refusal of a new call
// and lasts its 5 seconds (fails with a drain deadline of 0).
TEST(ServeJobTest, ACallInFlightGetsFiveSecondsOfADrain) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(Submit(server, "in_flight", CurveJob(1, 600, 0.05), &job).ok());
  v1::WatchJobRequest request;
  request.set_job_id("in_flight");
  auto context = Context(std::nullopt, std::chrono::seconds(120));
  auto watch = server.JobStub()->WatchJob(context.get(), request);
  v1::JobEvent event;
  ASSERT_TRUE(watch->Read(&event));  // The call is in flight.

  const auto signalled = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(server.pid(), SIGTERM), 0);
  // New calls are refused while the watch goes on.
  ASSERT_TRUE(PollUntil(
      [&] {
        v1::GetJobRequest get;
        get.set_job_id("in_flight");
        return !server.JobStub()
                    ->GetJob(
                        Context(std::nullopt, std::chrono::seconds(2)).get(),
                        get, &job)
                    .ok();
      },
      std::chrono::seconds(20)));
  while (watch->Read(&event)) {
  }
  const auto ended = std::chrono::steady_clock::now();
  EXPECT_FALSE(watch->Finish().ok());
  EXPECT_GE(ended - signalled, std::chrono::milliseconds(4900));
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
}

// Drains are no crashes: a trial drained more often than it may be re-run
// still runs to its end, each attempt's reports tagged with the attempt.
TEST(ServeJobTest, AttemptsEndedByDrainsDoNotCountAgainstRetries) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::Job job;
  ASSERT_TRUE(Submit(server, "drains", CurveJob(1, 60, 0.05), &job).ok());
  auto trial = [&] {
    v1::GetTrialRequest request;
    request.set_study("drains");
    request.set_trial_id(1);
    v1::Trial t;
    (void)server.StudyStub()->GetTrial(Context().get(), request, &t);
    return t;
  };
  auto reported_in = [&](int attempt) {
    const v1::Trial t = trial();
    return std::any_of(
        t.measurements().begin(), t.measurements().end(),
        [&](const v1::Measurement& m) { return m.attempt() == attempt; });
  };
  // A server runs 1 + 3 attempts of a trial; drain 4 of them.
  for (int attempt = 1; attempt <= 4; ++attempt) {
    ASSERT_TRUE(testing::PollUntil([&] { return reported_in(attempt); },
                                   std::chrono::seconds(30)))
        << "attempt " << attempt << "\n"
        << server.Output();
    EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
    ASSERT_TRUE(server.Start(&error)) << error;
  }
  ASSERT_TRUE(testing::PollUntil(
      [&] { return GetJob(server, "drains").state() == v1::Job::SUCCEEDED; },
      std::chrono::seconds(60)))
      << server.Output();
  const v1::Trial done = trial();
  EXPECT_EQ(done.state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(done.attempt(), 5);
  EXPECT_EQ(done.final_measurement().attempt(), 5);
}

}  // namespace
}  // namespace hptune
