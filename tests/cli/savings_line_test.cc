// How run's summary and jobs describe show what early stopping saved: the
// line, and the Job JSON with earlyStoppingSavings added. When a study
// shows savings at all is the read side's rule (tests/read/).
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

// What early stopping saved `trials`, one replica each.
StoppingSavings Saved(const std::vector<Trial>& trials) {
  std::vector<const Trial*> pointers;
  for (const Trial& t : trials) pointers.push_back(&t);
  return ComputeStoppingSavings(pointers, TrialFootprint{});
}

TEST(SavingsLineTest, TheLineSaysHowManyOfHowManyWereStopped) {
  EXPECT_THAT(SavingsLine(Saved({Succeeded(10, false)})),
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

  // Every trial stopped: the saving is unknown, and null says so.
  const nlohmann::json with =
      nlohmann::json::parse(WithSavingsJson(job, Saved({Succeeded(4, true)})));
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
  const StoppingSavings saved =
      Saved({Succeeded(45, false), Succeeded(10, false), Succeeded(30, false),
             Succeeded(20, false), Succeeded(5, true)});
  EXPECT_THAT(SavingsLine(saved),
              StartsWith("early stopping: 1 of 5 trials stopped early; saved "
                         "about 20 of 130 steps (15%)"));
  const nlohmann::json json = nlohmann::json::parse(
      WithSavingsJson(R"({"jobId": "j"})", saved))["earlyStoppingSavings"];
  EXPECT_EQ(json["fullTrialSteps"], 25.0);
  EXPECT_EQ(json["stepsSaved"], 20.0);
}

}  // namespace
}  // namespace hptune::cli
