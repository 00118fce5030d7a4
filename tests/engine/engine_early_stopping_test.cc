// TuningEngine::CheckEarlyStopping reads only the curves a rule needs and
// caches SUCCEEDED trials' curves; these tests pin that it still decides as
// a policy given every trial would, and never judges with a stale curve.
#include <set>

#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/engine/engine.h"
#include "hptune/store/memory_store.h"

namespace hptune::engine {
namespace {

using algorithms::StoppingDecision;
using algorithms::StoppingRule;

StudySpec Spec() {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "lr",
                                    .type = ParameterType::kDouble,
                                    .min_value = 0,
                                    .max_value = 1}});
  spec.goal = Goal::kMaximize;
  spec.metric_tag = "accuracy";
  spec.max_trials = 50;
  spec.max_parallel_trials = 50;
  spec.algorithm = Algorithm::kRandomSearch;
  spec.enable_early_stopping = true;
  spec.seed = 1;
  return spec;
}

class EngineEarlyStoppingTest : public ::testing::Test {
 protected:
  // A trial of study `study` for client `client` that reported `value` at
  // steps 1..steps.
  int64_t ActiveTrial(const std::string& study, const std::string& client,
                      double value, int steps) {
    Trial trial;
    trial.parameters["lr"] = ParameterValue::Double(0.1);
    trial.state = TrialState::kActive;
    trial.client_id = client;
    absl::StatusOr<Trial> created = engine_.CreateTrial(study, trial);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return 0;
    for (int step = 1; step <= steps; ++step) {
      EXPECT_TRUE(
          engine_
              .AddMeasurement(study, created->number,
                              {.step = step, .metrics = {{"accuracy", value}}})
              .ok());
    }
    return created->number;
  }

  void CompletedTrials(const std::string& study, int count, double value) {
    for (int k = 0; k < count; ++k) {
      const int64_t number = ActiveTrial(study, "done", value, 10);
      ASSERT_TRUE(engine_.CompleteTrial(study, number, std::nullopt).ok());
    }
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, clock_};
};

TEST_F(EngineEarlyStoppingTest,
       OnlyTheAskedTrialsComeBackDecidedAsByAFullCheck) {
  ASSERT_TRUE(engine_.CreateStudy("s", Spec()).ok());
  // Completed values 0.1..0.6 put the median at 0.35: 0.2 is stopped by the
  // median rules, 0.5 is kept.
  for (int k = 1; k <= 6; ++k) CompletedTrials("s", 1, 0.1 * k);
  const int64_t bad = ActiveTrial("s", "a", 0.2, 10);
  const int64_t good = ActiveTrial("s", "b", 0.5, 10);
  ActiveTrial("s", "c", 0.3, 10);
  for (StoppingRule rule : {StoppingRule::kMedian, StoppingRule::kMedianAtStep,
                            StoppingRule::kAsha}) {
    SCOPED_TRACE(std::string(algorithms::ToString(rule)));
    auto all = engine_.CheckEarlyStopping("s", rule);
    ASSERT_TRUE(all.ok()) << all.status();
    ASSERT_EQ(all->size(), 3u);
    // Twice: the second call reads the SUCCEEDED curves from the cache.
    for (int call = 0; call < 2; ++call) {
      auto some = engine_.CheckEarlyStopping("s", rule, {bad, good});
      ASSERT_TRUE(some.ok()) << some.status();
      ASSERT_EQ(some->size(), 2u);
      EXPECT_EQ((*some)[0], (*all)[0]);
      EXPECT_EQ((*some)[1], (*all)[1]);
    }
  }
  auto median = engine_.CheckEarlyStopping("s", StoppingRule::kMedian, {bad});
  ASSERT_TRUE(median.ok()) << median.status();
  ASSERT_EQ(median->size(), 1u);
  EXPECT_TRUE((*median)[0].stop) << (*median)[0].reason;
}

TEST_F(EngineEarlyStoppingTest, AStudyCreatedAgainUnderItsNameIsJudgedAfresh) {
  // Both incarnations' trials end at the same instant, so only the study's
  // create time tells their cached curves apart.
  ASSERT_TRUE(engine_.CreateStudy("s", Spec()).ok());
  clock_.Advance(std::chrono::seconds(2));
  CompletedTrials("s", 5, 0.9);
  const int64_t judged = ActiveTrial("s", "a", 0.5, 10);
  auto first = engine_.CheckEarlyStopping("s", StoppingRule::kMedian, {judged});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_TRUE((*first)[0].stop) << (*first)[0].reason;

  ASSERT_TRUE(store_.DeleteStudy("s").ok());
  clock_.Advance(std::chrono::seconds(-1));
  ASSERT_TRUE(engine_.CreateStudy("s", Spec()).ok());
  clock_.Advance(std::chrono::seconds(1));
  CompletedTrials("s", 5, 0.1);
  ASSERT_EQ(ActiveTrial("s", "a", 0.5, 10), judged);
  auto second =
      engine_.CheckEarlyStopping("s", StoppingRule::kMedian, {judged});
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->size(), 1u);
  EXPECT_FALSE((*second)[0].stop) << (*second)[0].reason;
}

TEST_F(EngineEarlyStoppingTest, AnUnknownStudyIsNotFound) {
  auto decisions = engine_.CheckEarlyStopping("nope", StoppingRule::kMedian);
  EXPECT_TRUE(absl::IsNotFound(decisions.status())) << decisions.status();
}

}  // namespace
}  // namespace hptune::engine
