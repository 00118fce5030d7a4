// Freeze-thaw continuations as trials say them: origin "resume[N]".
#include "hptune/core/trial_resume.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hptune {
namespace {

Trial WithOrigin(int64_t number, std::string origin) {
  Trial t;
  t.number = number;
  t.origin = std::move(origin);
  return t;
}

TEST(TrialResumeTest, AContinuationNamesTheTrialItResumes) {
  EXPECT_EQ(ResumeOrigin(12), "resume[12]");
  EXPECT_EQ(ResumedTrial(WithOrigin(13, ResumeOrigin(12))), 12);
}

TEST(TrialResumeTest, OtherOriginsResumeNothing) {
  for (const char* origin : {"", "user", "grid[3]", "gp", "resume[]",
                             "resume[x]", "resume[0]", "resume[-2]", "resume[3",
                             "resume[3]x", "resume[99999999999999999999]"}) {
    EXPECT_EQ(ResumedTrial(WithOrigin(5, origin)), std::nullopt) << origin;
  }
}

TEST(TrialResumeTest, ResumedTrialsAreLeftOutAndNotCounted) {
  const std::vector<Trial> trials = {
      WithOrigin(1, "random"), WithOrigin(2, "random"),
      WithOrigin(3, ResumeOrigin(2)), WithOrigin(4, ResumeOrigin(3)),
      WithOrigin(5, "user")};
  EXPECT_THAT(ResumedTrials(trials), ::testing::ElementsAre(2, 3));
  std::vector<int64_t> left;
  for (const Trial& t : WithoutResumed(trials)) left.push_back(t.number);
  EXPECT_THAT(left, ::testing::ElementsAre(1, 4, 5));
  EXPECT_EQ(TrialsAgainstBudget(trials), 3);
}

TEST(TrialResumeTest, AFailedContinuationLeavesItsTrialToTheDesigner) {
  std::vector<Trial> trials = {WithOrigin(1, "random"),
                               WithOrigin(2, ResumeOrigin(1))};
  for (TrialState ended : {TrialState::kFailed, TrialState::kCancelled}) {
    trials[1].state = ended;
    EXPECT_EQ(WithoutSuperseded(trials).size(), 2u);
    // Never resumed twice all the same.
    EXPECT_EQ(WithoutResumed(trials).size(), 1u);
  }
  for (TrialState standing :
       {TrialState::kActive, TrialState::kStopping, TrialState::kSucceeded,
        TrialState::kInfeasible}) {
    trials[1].state = standing;
    ASSERT_EQ(WithoutSuperseded(trials).size(), 1u);
    EXPECT_EQ(WithoutSuperseded(trials).front().number, 2);
  }
}

// The copied measurements are those reported before the continuation was
// created; an imported trial with old reports took over nothing.
TEST(TrialResumeTest, AContinuationTookOverAtItsLastCopiedStep) {
  Trial continuation = WithOrigin(7, ResumeOrigin(2));
  continuation.create_time = FromUnixMicros(50);
  for (int64_t step : {1, 2}) {
    continuation.measurements.push_back(
        {.step = step, .time = FromUnixMicros(10 * step)});
  }
  continuation.measurements.push_back({.step = 3, .time = FromUnixMicros(60)});
  EXPECT_EQ(ResumedAtStep(continuation), 2);
  Trial imported = continuation;
  imported.origin = "user";
  EXPECT_EQ(ResumedAtStep(imported), 0);
}

}  // namespace
}  // namespace hptune
