// What the REST gateway reads from a request before any call: create's and
// patch's bodies, list's filter, and the error it answers with.
#include <string>

#include "gmock/gmock.h"
#include "grpcpp/support/status.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "src/rest/google_error.h"
#include "src/rest/job_body_reading.h"
#include "src/rest/list_filter.h"

namespace hptune::rest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// What gcloud's `ai-platform jobs submit training` sends.
constexpr char kGcloudBody[] = R"({
  "jobId": "j1",
  "labels": {"team": "vision"},
  "trainingInput": {
    "enableWebAccess": false,
    "region": "us-central1",
    "command": ["/opt/train.py"],
    "hyperparameters": {
      "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy",
      "maxTrials": 4,
      "params": [{"parameterName": "lr", "type": "DOUBLE",
                  "minValue": 0.001, "maxValue": 0.1}]}}})";

TEST(RestRequestTest, CreateReadsGcloudsBodyThroughTheConfigReader) {
  absl::StatusOr<v1::SubmitJobRequest> request = ReadCreateJobBody(kGcloudBody);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->job_id(), "j1");
  EXPECT_THAT(request->labels(), UnorderedElementsAre(Pair("team", "vision")));
  EXPECT_THAT(request->training_input().command(),
              ElementsAre("/opt/train.py"));
  EXPECT_EQ(request->training_input().hyperparameters().max_trials(), 4);
  EXPECT_EQ(request->training_input().hyperparameters().params(0).max_value(),
            0.1);
}

TEST(RestRequestTest, CreateRefusalsNameTheField) {
  EXPECT_THAT(ReadCreateJobBody("[1]").status().message(),
              HasSubstr("must be a JSON object"));
  EXPECT_THAT(ReadCreateJobBody("{").status().message(),
              HasSubstr("line 1, column 1: invalid JSON"));
  EXPECT_THAT(ReadCreateJobBody(R"({"trainingInput": {}})").status().message(),
              HasSubstr("jobId: required"));
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "j", "predictionInput": {}})")
                  .status()
                  .message(),
              HasSubstr("predictionInput: not supported"));
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "j", "trainingInput":
                                   {"enableWebAccess": true}})")
                  .status()
                  .message(),
              HasSubstr("trainingInput.enableWebAccess: only false"));
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "j", "trainingInput": {},
                                   "labels": {"a": 1}})")
                  .status()
                  .message(),
              HasSubstr("labels.a: must be a string"));
}

TEST(RestRequestTest, CreateReadsTheBodyFromTextOnce) {
  const int64_t before = config_internal::TextParseCount();
  ASSERT_TRUE(ReadCreateJobBody(kGcloudBody).ok());
  EXPECT_EQ(config_internal::TextParseCount() - before, 1);
}

TEST(RestRequestTest, CreateRefusesWhatOnlyTheServerChooses) {
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "j", "trainingInput": {},
                                   "backend": {"type": "slurm"}})")
                  .status()
                  .message(),
              HasSubstr("backend: not supported: the server chooses"));
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "a b", "trainingInput": {}})")
                  .status()
                  .message(),
              HasSubstr("jobId: "));
  EXPECT_THAT(ReadCreateJobBody(R"({"jobId": "j", "trainingInpt": {}})")
                  .status()
                  .message(),
              HasSubstr("did you mean trainingInput"));
}

TEST(RestRequestTest, PatchReplacesTheLabelsAndTakesOnlyTheirMask) {
  absl::StatusOr<v1::UpdateJobRequest> patch = ReadPatchJobBody(
      "j1", R"({"labels": {"k": "v"}, "etag": "x"})", "labels,etag");
  ASSERT_TRUE(patch.ok()) << patch.status();
  EXPECT_EQ(patch->job_id(), "j1");
  EXPECT_TRUE(patch->clear_labels());
  EXPECT_THAT(patch->update_labels(), UnorderedElementsAre(Pair("k", "v")));
  EXPECT_THAT(ReadPatchJobBody("j1", "{}", "").status().message(),
              HasSubstr("updateMask: must name labels"));
  EXPECT_THAT(
      ReadPatchJobBody("j1", "{}", "labels,trainingInput").status().message(),
      HasSubstr("not trainingInput"));
}

TEST(RestRequestTest, ListFilterTakesStatesLabelsAndAnIdPrefix) {
  v1::ListJobsRequest request;
  ASSERT_TRUE(ApplyListFilter("state=RUNNING AND labels.team=\"vision\" AND "
                              "jobId:mnist*",
                              request)
                  .ok());
  EXPECT_THAT(request.states(), ElementsAre(v1::Job::RUNNING));
  EXPECT_THAT(request.labels(), UnorderedElementsAre(Pair("team", "vision")));
  EXPECT_EQ(request.job_id_prefix(), "mnist");
  EXPECT_TRUE(ApplyListFilter("  ", request).ok());
  EXPECT_THAT(ApplyListFilter("state=DONE", request).message(),
              HasSubstr("no job state \"DONE\""));
  EXPECT_THAT(ApplyListFilter("createTime>2020", request).message(),
              HasSubstr("cannot read \"createTime>2020\""));
  EXPECT_THAT(ApplyListFilter("trainingInput.region=x", request).message(),
              HasSubstr("not \"trainingInput.region=x\""));
}

TEST(RestRequestTest, ErrorsTakeGooglesHttpCodesAndShape) {
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::INVALID_ARGUMENT), 400);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::FAILED_PRECONDITION), 400);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::UNAUTHENTICATED), 401);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::PERMISSION_DENIED), 403);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::NOT_FOUND), 404);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::ALREADY_EXISTS), 409);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::RESOURCE_EXHAUSTED), 429);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::UNAVAILABLE), 503);
  EXPECT_EQ(HttpCodeOf(grpc::StatusCode::INTERNAL), 500);
  const nlohmann::json body = nlohmann::json::parse(
      GoogleErrorJson(grpc::StatusCode::NOT_FOUND, "job \"x\" not found"));
  EXPECT_EQ(body["error"]["code"], 404);
  EXPECT_EQ(body["error"]["status"], "NOT_FOUND");
  EXPECT_EQ(body["error"]["message"], "job \"x\" not found");
}

}  // namespace
}  // namespace hptune::rest
