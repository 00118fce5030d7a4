// A Vertex CustomJob as a job config and back: its jobSpec is read by the
// reader of a tuning job's trialJobSpec (the same job, no study), its
// errors name jobSpec's fields, and VertexCustomJobJson writes it as
// Vertex's CustomJob, which reads as the same job.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gmock/gmock.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// The pools of a tuning job's trialJobSpec, as a CustomJob's jobSpec.
constexpr char kJobSpec[] = R"(
  baseOutputDirectory: {outputUriPrefix: /srv/out}
  scheduling: {timeout: 3600s}
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: "1"
    containerSpec:
      imageUri: localhost/trainer:1
      command: [python3, -m, trainer.task]
      env: [{name: MODE, value: fast}]
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: "2"
    containerSpec: {imageUri: localhost/trainer:1}
)";

ConfigParseResult Read(const std::string& text) {
  return ParseJobConfig(text, ConfigFormat::kAuto, "job1");
}

TEST(VertexCustomJobTest, JobSpecReadsAsTheTuningJobsTrialJobSpecWithoutStudy) {
  ConfigParseResult custom = Read(
      "displayName: one run\nlabels: {team: vision}\n"
      "state: JOB_STATE_RUNNING\njobSpec:" +
      std::string(kJobSpec));
  ASSERT_TRUE(custom.errors.empty()) << custom.errors[0].message;
  EXPECT_FALSE(custom.job->study.has_value());
  EXPECT_EQ(custom.job->dialect, SpecDialect::kVertex);
  EXPECT_EQ(custom.job->display_name, "one run");
  EXPECT_EQ(custom.job->labels.at("team"), "vision");
  EXPECT_THAT(custom.ignored_fields, ::testing::ElementsAre("state"));

  ConfigParseResult tuning = Read(
      "displayName: one run\nlabels: {team: vision}\n"
      "studySpec:\n"
      "  metrics: [{metricId: loss, goal: MINIMIZE}]\n"
      "  parameters: [{parameterId: x, doubleValueSpec: {minValue: 0, "
      "maxValue: 1}}]\n"
      "trialJobSpec:" +
      std::string(kJobSpec));
  ASSERT_TRUE(tuning.errors.empty()) << tuning.errors[0].message;
  JobSpec without_study = *tuning.job;
  without_study.study.reset();
  EXPECT_EQ(*custom.job, without_study);
  EXPECT_EQ(custom.job->PoolConfigPath(TaskType::kWorker),
            "jobSpec.workerPoolSpecs[1]");
  EXPECT_EQ(tuning.job->PoolConfigPath(TaskType::kWorker),
            "trialJobSpec.workerPoolSpecs[1]");
}

TEST(VertexCustomJobTest, ErrorsNameJobSpecFields) {
  ConfigParseResult result = Read(
      "jobSpec:\n  workerPoolSpecs:\n"
      "  - machineSpec: {machineType: n1-standard-8}\n"
      "    containerSpec: {command: [x]}\n"
      "maxTrialCount: 2\n");
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_EQ(result.errors[0].field,
            "jobSpec.workerPoolSpecs[0].containerSpec.imageUri");
  // A CustomJob has no trial counts: the field is unknown there.
  EXPECT_EQ(result.errors[1].field, "maxTrialCount");

  // Beside a tuning job's fields, jobSpec is no field of that job.
  result = Read("studySpec: {}\njobSpec: {}\n");
  EXPECT_THAT(result.errors, ::testing::Contains(::testing::Field(
                                 &FieldError::field, std::string("jobSpec"))));
  result = Read("jobSpec: {}\n");
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].field, "jobSpec.workerPoolSpecs");
}

TEST(VertexCustomJobTest, WrittenAsVertexsCustomJobAndReadBackTheSame) {
  const ConfigParseResult read =
      Read("displayName: one run\njobSpec:" + std::string(kJobSpec));
  ASSERT_TRUE(read.errors.empty()) << read.errors[0].message;
  JobRecord record;
  record.job_id = "job1";
  record.state = JobState::kFailed;
  record.error_message = "trial 1: exit 3";
  record.create_time = FromUnixMicros(1'800'000'000'000'000);
  record.end_time = FromUnixMicros(1'800'000'060'000'000);
  record.labels = {{"team", "vision"}};
  const std::string text = VertexCustomJobJson(
      *read.job, record, {.name = "projects/p/locations/l/customJobs/job1"});
  const Json json = Json::parse(text);
  EXPECT_EQ(json["name"], "projects/p/locations/l/customJobs/job1");
  EXPECT_EQ(json["displayName"], "one run");
  EXPECT_EQ(json["jobSpec"]["workerPoolSpecs"][1]["replicaCount"], "2");
  EXPECT_EQ(json["state"], "JOB_STATE_FAILED");
  EXPECT_EQ(json["error"]["message"], "trial 1: exit 3");
  EXPECT_EQ(json["createTime"], "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(json["updateTime"], "2027-01-15T08:01:00.000000Z");
  EXPECT_EQ(json["labels"]["team"], "vision");
  for (const char* tuning : {"studySpec", "trialJobSpec", "trials"}) {
    EXPECT_FALSE(json.contains(tuning)) << tuning;
  }
  // Read back (the output-only fields ignored): the same job.
  const ConfigParseResult again = Read(text);
  ASSERT_TRUE(again.errors.empty()) << again.errors[0].message;
  JobSpec want = *read.job;
  want.labels = record.labels;
  EXPECT_EQ(*again.job, want);
}

}  // namespace
}  // namespace hptune
