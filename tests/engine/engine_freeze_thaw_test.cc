// Freeze-thaw in TuningEngine: a study whose rule pauses trials
// ("asha-resume") hands out a continuation of a paused trial once the rule
// promotes it, before new trials, past maxTrials, and completes only when
// none is left to resume.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/engine/stopping_study.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

// The trial numbers the designer was last given as completed.
struct Seen {
  std::vector<int64_t> completed;
};

// Suggests lr = 0.1, 0.2, ... in turn, and notes what it was given.
class RecordingDesigner : public algorithms::Designer {
 public:
  explicit RecordingDesigner(Seen& seen) : seen_(seen) {}
  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>&) override {
    seen_.completed.clear();
    for (const Trial& t : completed) seen_.completed.push_back(t.number);
    next_ = static_cast<int>(completed.size());
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<algorithms::Suggestion>> Suggest(
      int count) override {
    std::vector<algorithms::Suggestion> out;
    for (int i = 0; i < count; ++i) {
      out.push_back({{{"lr", ParameterValue::Double(0.1 * ++next_)}}, "rec"});
    }
    return out;
  }

 private:
  Seen& seen_;
  int next_ = 0;
};

StudySpec Spec(const std::string& rule) {
  StudySpec spec = testing::StoppingStudy(6, 1);
  spec.early_stopping_rule = rule;
  spec.algorithm = Algorithm::kUnspecified;
  spec.custom_algorithm = "RECORD";
  return spec;
}

class EngineFreezeThawTest : public ::testing::Test {
 protected:
  // The next trial SuggestTrials hands out.
  Trial Next() {
    auto response = engine_.SuggestTrials("s", 1, "runner");
    EXPECT_OK(response);
    if (!response.ok() || response->trials.empty()) return Trial{};
    return response->trials.front();
  }

  // Reports `value` at steps from..to, a second apart, asking the study's
  // rule after each; true when it said stop (and the trial was stopped).
  bool Train(int64_t trial, int from, int to, double value) {
    for (int step = from; step <= to; ++step) {
      clock_.Advance(std::chrono::seconds(1));
      EXPECT_OK(engine_.AddMeasurement(
          "s", trial, {.step = step, .metrics = {{"accuracy", value}}}));
      auto decisions = engine_.CheckEarlyStopping("s", {trial});
      EXPECT_OK(decisions);
      if (decisions.ok() && !decisions->empty() && decisions->front().stop) {
        EXPECT_OK(engine_.StopTrial("s", trial, decisions->front().reason));
        EXPECT_OK(engine_.CompleteTrial("s", trial, std::nullopt));
        return true;
      }
    }
    EXPECT_OK(engine_.CompleteTrial("s", trial, std::nullopt));
    return false;
  }

  // Trial 1 runs its 12 steps at 0.5 (rungs at 2 and 6); trial 2 is paused
  // at rung 2 with 0.4, behind it; trials 3 to 6 are paused there at 0.1.
  void PauseTrialTwoBehindTrialOne() {
    EXPECT_FALSE(Train(Next().number, 1, 12, 0.5));
    EXPECT_TRUE(Train(Next().number, 1, 12, 0.4));
    for (int k = 3; k <= 6; ++k) EXPECT_TRUE(Train(Next().number, 1, 12, 0.1));
  }

  EngineOptions Recording() {
    EngineOptions options;
    EXPECT_OK(options.designers.Register(
        "RECORD",
        [this](const Problem&, const algorithms::DesignerOptions&, uint64_t)
            -> absl::StatusOr<std::unique_ptr<algorithms::Designer>> {
          return std::make_unique<RecordingDesigner>(seen_);
        }));
    return options;
  }

  Seen seen_;
  // The same under asha-resume with maxTrials 7, up to trial 7, trial 2's
  // continuation, handed out.
  void ResumeTrialTwoWithRoomForOneMore() {
    StudySpec spec = Spec("asha-resume");
    spec.max_trials = 7;
    ASSERT_OK(engine_.CreateStudy("s", spec));
    PauseTrialTwoBehindTrialOne();
    EXPECT_EQ(Next().origin, "resume[2]");
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, Recording(), clock_};
};

TEST_F(EngineFreezeThawTest, APromotedPausedTrialIsContinuedPastMaxTrials) {
  ASSERT_OK(engine_.CreateStudy("s", Spec("asha-resume")));
  PauseTrialTwoBehindTrialOne();
  // 6 trials at rung 2 promote the top 2: trial 2 is due its steps.
  auto study = engine_.GetStudy("s");
  ASSERT_OK(study);
  EXPECT_EQ(study->state, StudyState::kActive) << study->reason;
  const Trial continuation = Next();
  EXPECT_EQ(continuation.number, 7);
  EXPECT_EQ(continuation.origin, "resume[2]");
  EXPECT_EQ(ResumedTrial(continuation), 2);
  auto paused = engine_.GetTrial("s", 2);
  auto stored = engine_.GetTrial("s", 7);
  ASSERT_OK(paused);
  ASSERT_OK(stored);
  EXPECT_EQ(stored->parameters, paused->parameters);
  EXPECT_EQ(stored->measurements, paused->measurements);
  EXPECT_EQ(stored->state, TrialState::kActive);
  // It goes on from step 3 and, best at rung 6, runs to the end.
  EXPECT_FALSE(Train(7, 3, 12, 0.6));
  auto best = engine_.BestTrial("s");
  ASSERT_OK(best);
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->number, 7);
  // Nothing else deserves resuming: the study is done, at 6 of 6 trials.
  study = engine_.GetStudy("s");
  ASSERT_OK(study);
  EXPECT_EQ(study->state, StudyState::kCompleted);
  EXPECT_THAT(study->reason, ::testing::HasSubstr("reached"));
  auto last = engine_.SuggestTrials("s", 1, "runner");
  ASSERT_OK(last);
  EXPECT_TRUE(last->trials.empty());
  EXPECT_TRUE(last->study_completed);
}

TEST_F(EngineFreezeThawTest, TheStoppingRuleEndsTheStudyWithTrialTwoStopped) {
  ASSERT_OK(engine_.CreateStudy("s", Spec("asha")));
  PauseTrialTwoBehindTrialOne();
  auto study = engine_.GetStudy("s");
  ASSERT_OK(study);
  EXPECT_EQ(study->state, StudyState::kCompleted);
  auto trials = engine_.ListTrials("s");
  ASSERT_OK(trials);
  EXPECT_EQ(trials->size(), 6u);
}

TEST_F(EngineFreezeThawTest, AContinuationDoesNotCountAgainstMaxTrials) {
  ResumeTrialTwoWithRoomForOneMore();
  EXPECT_FALSE(Train(7, 3, 12, 0.6));
  // A seventh new trial still fits: the continuation was not one. Its
  // designer read trial 2's training once, as trial 7.
  const Trial seventh = Next();
  EXPECT_EQ(seventh.number, 8);
  EXPECT_EQ(ResumedTrial(seventh), std::nullopt);
  EXPECT_THAT(seen_.completed, ::testing::ElementsAre(1, 3, 4, 5, 6, 7));
}

TEST_F(EngineFreezeThawTest, AFailedContinuationLeavesThePausedResult) {
  ResumeTrialTwoWithRoomForOneMore();
  ASSERT_OK(engine_.MarkTrialFailed("s", 7, "the checkpoint was corrupt"));
  // Trial 2 is not resumed again; the designer reads its paused result.
  const Trial next = Next();
  EXPECT_EQ(next.number, 8);
  EXPECT_EQ(ResumedTrial(next), std::nullopt);
  EXPECT_THAT(seen_.completed, ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7));
}

}  // namespace
}  // namespace hptune::engine
