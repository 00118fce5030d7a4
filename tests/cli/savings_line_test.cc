// How run's summary and jobs describe show what early stopping saved:
// when they show it, and the Job JSON with earlyStoppingSavings added.
#include "src/cli/savings_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace hptune::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

Trial Succeeded(int64_t step, bool stopped) {
  Trial t;
  t.state = TrialState::kSucceeded;
  t.stopped_early = stopped;
  t.final_measurement = Measurement{.step = step, .metrics = {{"loss", 1}}};
  return t;
}

TEST(SavingsLineTest, ShownOnlyWhenTheStudyStopsEarlyOrATrialWasStopped) {
  JobSpec job;
  job.study = StudySpec{};
  const std::vector<Trial> none = {Succeeded(10, false)};
  EXPECT_FALSE(JobSavings(job, none).has_value());
  // A client may stop its own trial without the study's rule.
  EXPECT_TRUE(
      JobSavings(job, {Succeeded(10, false), Succeeded(4, true)}).has_value());
  job.study->enable_early_stopping = true;
  std::optional<StoppingSavings> saved = JobSavings(job, none);
  ASSERT_TRUE(saved.has_value());
  EXPECT_THAT(SavingsLine(*saved),
              StartsWith("early stopping: 0 of 1 trials stopped early"));
}

TEST(SavingsLineTest, TheJobJsonKeepsItsKeysAndGainsTheSavings) {
  const std::string job = R"({"jobId": "j", "state": "SUCCEEDED"})";
  nlohmann::ordered_json without =
      nlohmann::ordered_json::parse(WithSavingsJson(job, std::nullopt));
  std::vector<std::string> keys;
  for (const auto& [key, value] : without.items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("jobId", "state", "earlyStoppingSavings"));
  EXPECT_TRUE(without["earlyStoppingSavings"].is_null());

  JobSpec spec;
  spec.study = StudySpec{};
  spec.study->enable_early_stopping = true;
  // Every trial stopped: the saving is unknown, and null says so.
  const nlohmann::json with = nlohmann::json::parse(
      WithSavingsJson(job, JobSavings(spec, {Succeeded(4, true)})));
  const nlohmann::json& saved = with["earlyStoppingSavings"];
  EXPECT_EQ(saved["trialsStopped"], 1);
  EXPECT_EQ(saved["stepsRun"], 4);
  EXPECT_TRUE(saved["stepsSaved"].is_null());
  EXPECT_TRUE(saved["gpuSecondsSaved"].is_null());
  EXPECT_THAT(saved["summary"].get<std::string>(),
              StartsWith("1 of 1 trials stopped early; saving unknown"));
}

// Four trials ran to their end, of 45, 10, 30 and 20 steps: a full trial
// is 25 steps, the mean of the middle two (not the lower 20, the upper 30
// nor the mean of all, 26.25). The one stopped at step 5 left 20 unrun.
TEST(SavingsLineTest, AnEvenCountOfFullLengthsTakesTheMiddleTwosMean) {
  JobSpec job;
  job.study = StudySpec{};
  job.study->enable_early_stopping = true;
  const std::optional<StoppingSavings> saved = JobSavings(
      job, {Succeeded(45, false), Succeeded(10, false), Succeeded(30, false),
            Succeeded(20, false), Succeeded(5, true)});
  ASSERT_TRUE(saved.has_value());
  EXPECT_THAT(SavingsLine(*saved),
              StartsWith("early stopping: 1 of 5 trials stopped early; saved "
                         "about 20 of 130 steps (15%)"));
  const nlohmann::json json = nlohmann::json::parse(
      WithSavingsJson(R"({"jobId": "j"})", saved))["earlyStoppingSavings"];
  EXPECT_EQ(json["fullTrialSteps"], 25.0);
  EXPECT_EQ(json["stepsSaved"], 20.0);
}

}  // namespace
}  // namespace hptune::cli
