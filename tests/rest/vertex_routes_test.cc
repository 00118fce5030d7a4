// What the Vertex routes decide before any call: the IDs of new jobs, a
// create body's errors in Vertex's field paths (a tuning job's or a
// CustomJob's), and list's filter in Vertex's states.
#include "src/rest/vertex_routes.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "src/rest/list_filter.h"

namespace hptune::rest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(VertexJobIdsTest, IdsAreHptuneJobIdsFromTheClockAndNeverRepeat) {
  Timestamp now = FromUnixMicros(1'800'000'000'123'456);
  VertexJobIds ids([&now] { return now; });
  const std::string first = ids.Next();
  EXPECT_EQ(first, "hpt_1800000000123");
  EXPECT_TRUE(ValidateJobId(first, "jobId").empty());
  // The same millisecond, and a clock set back: still new IDs.
  EXPECT_EQ(ids.Next(), "hpt_1800000000124");
  now = FromUnixMicros(1'700'000'000'000'000);
  EXPECT_EQ(ids.Next(), "hpt_1800000000125");
  now = FromUnixMicros(1'900'000'000'000'000);
  EXPECT_EQ(ids.Next(), "hpt_1900000000000");
}

// A body's errors name the Vertex fields as written, before any call (no
// channel is needed).
TEST(VertexRoutesTest, CreateBodyErrorsNameVertexFields) {
  VertexJobIds ids([] { return FromUnixMicros(0); });
  const std::string body = R"({
    "displayName": "my-job", "maxTrialCount": 4,
    "studySpec": {
      "metrics": [{"metricId": "loss", "goal": "LOWER"}],
      "parameters": [{"parameterId": "x",
                      "doubleValueSpec": {"minValue": 0, "maxValue": 1}}]},
    "trialJobSpec": {"workerPoolSpecs": [{
      "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
      "containerSpec": {"imageUri": "localhost/trainer:1"}}]}})";
  RestReply reply = CreateVertexJob(
      {}, {.project = "p1", .location = "us-central1"}, body, ids);
  EXPECT_EQ(reply.http_status, 400);
  const nlohmann::json error = nlohmann::json::parse(reply.json)["error"];
  EXPECT_EQ(error["status"], "INVALID_ARGUMENT");
  EXPECT_THAT(error["message"].get<std::string>(),
              HasSubstr("studySpec.metrics[0].goal"));
  EXPECT_THAT(error["message"].get<std::string>(),
              Not(HasSubstr("vertex_job")));

  reply = CreateVertexJob({}, {.project = "p1", .location = "us-central1"},
                          R"({"trainingInput": {}})", ids);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json, HasSubstr("must be a HyperparameterTuningJob"));

  // Where trials run is the server's to say.
  nlohmann::json slurm = nlohmann::json::parse(body);
  slurm["studySpec"]["metrics"][0]["goal"] = "MINIMIZE";
  slurm["slurm"] = {{"partition", "gpu"}};
  reply = CreateVertexJob({}, {.project = "p1", .location = "us-central1"},
                          slurm.dump(), ids);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json,
              HasSubstr("slurm: the server chooses where trials run"));
}

// customJobs.create reads a CustomJob with the reader of a tuning job's
// trialJobSpec; each collection refuses the other's resource by name.
TEST(VertexRoutesTest, CustomJobBodiesAreCustomJobsInTheirFieldNames) {
  VertexJobIds ids([] { return FromUnixMicros(0); });
  const VertexPlace place{.project = "p1", .location = "us-central1"};
  const nlohmann::json custom = {
      {"displayName", "one run"},
      {"jobSpec",
       {{"workerPoolSpecs",
         {{{"machineSpec", {{"machineType", "n1-standard-4"}}},
           {"replicaCount", "1"},
           {"containerSpec", {{"command", {"python3"}}}}}}}}}};
  RestReply reply = CreateVertexJob({}, place, custom.dump(), ids,
                                    api::VertexResource::kCustomJob);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json,
              HasSubstr("jobSpec.workerPoolSpecs[0].containerSpec.imageUri: "
                        "required"));

  nlohmann::json tuning = custom;
  tuning["trialJobSpec"] = tuning["jobSpec"];
  tuning.erase("jobSpec");
  tuning["studySpec"] = {
      {"metrics", {{{"metricId", "loss"}, {"goal", "MINIMIZE"}}}},
      {"parameters",
       {{{"parameterId", "x"},
         {"doubleValueSpec", {{"minValue", 0}, {"maxValue", 1}}}}}}};
  tuning["trialJobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] =
      "localhost/trainer:1";
  reply = CreateVertexJob({}, place, tuning.dump(), ids,
                          api::VertexResource::kCustomJob);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json,
              HasSubstr("the body: must be a CustomJob (with jobSpec); a "
                        "HyperparameterTuningJob (studySpec, trialJobSpec) is "
                        "created with hyperparameterTuningJobs"));

  nlohmann::json valid = custom;
  valid["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] =
      "localhost/trainer:1";
  reply = CreateVertexJob({}, place, valid.dump(), ids);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json,
              HasSubstr("the body: must be a HyperparameterTuningJob (with "
                        "studySpec and trialJobSpec); a CustomJob (jobSpec) is "
                        "created with customJobs"));
}

TEST(VertexRoutesTest, ListFilterTakesVertexStates) {
  v1::ListJobsRequest request;
  ASSERT_TRUE(
      ApplyVertexListFilter(
          R"(state="JOB_STATE_PENDING" AND labels.team=vision)", request)
          .ok());
  EXPECT_THAT(request.states(), ElementsAre(v1::Job::PREPARING));
  EXPECT_EQ(request.labels().at("team"), "vision");
  EXPECT_THAT(ApplyVertexListFilter("state=RUNNING", request).message(),
              HasSubstr("no job state \"RUNNING\""));
  EXPECT_THAT(ReadPageSize("x").status().message(),
              HasSubstr("pageSize: must be a number of jobs, got \"x\""));
  EXPECT_EQ(*ReadPageSize(""), 0);
}

}  // namespace
}  // namespace hptune::rest
