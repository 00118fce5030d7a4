// Tests for DecodeStoredJob, DecodeTfConfigJob and DecodeStoredStudySpec:
// what hptune wrote reads back as it was, its shape checked and no rule.
#include "hptune/core/stored_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/job_validation.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

JobSpec ValidJob() {
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  workerCount: 2\n"
      "  workerType: n1-standard-8\n"
      "  masterConfig: {imageUri: gcr.io/p/trainer:1}\n"
      "  hyperparameters:\n"
      "    goal: MAXIMIZE\n"
      "    hyperparameterMetricTag: accuracy\n"
      "    maxTrials: 4\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 1}\n",
      ConfigFormat::kYaml, "j1");
  EXPECT_THAT(parsed.errors, IsEmpty());
  return *parsed.job;
}

TEST(StoredSpecTest, AStoredJobDecodesAsItWasWritten) {
  const JobSpec job = ValidJob();
  absl::StatusOr<JobSpec> back =
      DecodeStoredJob(TrainingInputToJson(job), "j1");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, job);
}

// A rule added (or a machine type dropped) since a job was stored does not
// make it unreadable: decoding checks the shape alone.
TEST(StoredSpecTest, DecodingChecksNoRules) {
  JobSpec job = ValidJob();
  job.master.machine_type = "n1-retired-4";
  job.study->max_trials = 0;
  ASSERT_THAT(ValidateJob(job), Not(IsEmpty()));
  absl::StatusOr<JobSpec> back =
      DecodeStoredJob(TrainingInputToJson(job), "j1");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, job);
  absl::StatusOr<StudySpec> study =
      DecodeStoredStudySpec(StudySpecToJson(*job.study));
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(*study, *job.study);
}

// The selection is written only when it is not AI Platform's rule, so a
// study stored before hptune had it reads as the last measurement.
TEST(StoredSpecTest, TheBestMeasurementSelectionIsStored) {
  JobSpec job = ValidJob();
  EXPECT_THAT(StudySpecToJson(*job.study),
              Not(HasSubstr("measurementSelectionType")));
  job.study->measurement_selection = MeasurementSelection::kBest;
  absl::StatusOr<StudySpec> study =
      DecodeStoredStudySpec(StudySpecToJson(*job.study));
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->measurement_selection, MeasurementSelection::kBest);
}

TEST(StoredSpecTest, TextOfTheWrongShapeIsRefused) {
  EXPECT_THAT(DecodeStoredJob(R"({"trainingInput": {"masterTyp": "x"}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trainingInput.masterTyp")));
  EXPECT_THAT(DecodeStoredStudySpec(R"({"maxTrials": "four"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hyperparameters.maxTrials")));
  EXPECT_THAT(DecodeStoredStudySpec("[]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hyperparameters")));
}

TEST(StoredSpecTest, TfConfigsJobDecodesInEitherForm) {
  JobSpec job = ValidJob();
  job.job_id.clear();
  const std::string json = TrainingInputToJson(job);
  const std::string bare =
      json.substr(json.find(':') + 1, json.size() - json.find(':') - 2);
  for (const std::string& form : {json, bare}) {
    absl::StatusOr<JobSpec> back =
        DecodeTfConfigJob(R"({"cluster": {}, "job": )" + form + "}");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, job);
  }
  EXPECT_THAT(DecodeTfConfigJob(R"({"cluster": {}})"),
              StatusHasCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(DecodeTfConfigJob("not json"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace hptune
