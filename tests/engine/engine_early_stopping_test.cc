// TuningEngine::CheckEarlyStopping reads only the curves a rule needs, keeps
// them between checks and reads only what was reported since; these tests
// pin that it still decides as a policy given every trial would, and never
// judges with a stale curve.
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/engine/stopping_study.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using algorithms::StoppingDecision;

StudySpec Spec() { return testing::StoppingStudy(50, 50); }

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
    EXPECT_OK(created);
    if (!created.ok()) return 0;
    for (int step = 1; step <= steps; ++step) {
      EXPECT_OK(engine_.AddMeasurement(
          study, created->number,
          {.step = step, .metrics = {{"accuracy", value}}}));
    }
    return created->number;
  }

  void CompletedTrials(const std::string& study, int count, double value) {
    for (int k = 0; k < count; ++k) {
      const int64_t number = ActiveTrial(study, "done", value, 10);
      ASSERT_OK(engine_.CompleteTrial(study, number, std::nullopt));
    }
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, clock_};
};

TEST_F(EngineEarlyStoppingTest,
       OnlyTheAskedTrialsComeBackDecidedAsByAFullCheck) {
  ASSERT_OK(engine_.CreateStudy("s", Spec()));
  // Completed values 0.1..0.6 put the median at 0.35: 0.2 is stopped by the
  // median rules, 0.5 is kept.
  for (int k = 1; k <= 6; ++k) CompletedTrials("s", 1, 0.1 * k);
  const int64_t bad = ActiveTrial("s", "a", 0.2, 10);
  const int64_t good = ActiveTrial("s", "b", 0.5, 10);
  ActiveTrial("s", "c", 0.3, 10);
  for (const char* rule : {"median", "median-at-step", "asha"}) {
    SCOPED_TRACE(rule);
    auto all = engine_.CheckEarlyStopping("s", rule);
    ASSERT_OK(all);
    ASSERT_EQ(all->size(), 3u);
    // Twice: the second call reads the SUCCEEDED curves from the cache.
    for (int call = 0; call < 2; ++call) {
      auto some = engine_.CheckEarlyStopping("s", rule, {bad, good});
      ASSERT_OK(some);
      ASSERT_EQ(some->size(), 2u);
      EXPECT_EQ((*some)[0], (*all)[0]);
      EXPECT_EQ((*some)[1], (*all)[1]);
    }
  }
  auto median = engine_.CheckEarlyStopping("s", "median", {bad});
  ASSERT_OK(median);
  ASSERT_EQ(median->size(), 1u);
  EXPECT_TRUE((*median)[0].stop) << (*median)[0].reason;
}

TEST_F(EngineEarlyStoppingTest, AStudyCreatedAgainUnderItsNameIsJudgedAfresh) {
  // Both incarnations' trials end at the same instant, so only the study's
  // create time tells their cached curves apart.
  ASSERT_OK(engine_.CreateStudy("s", Spec()));
  clock_.Advance(std::chrono::seconds(2));
  CompletedTrials("s", 5, 0.9);
  const int64_t judged = ActiveTrial("s", "a", 0.5, 10);
  auto first = engine_.CheckEarlyStopping("s", "median", {judged});
  ASSERT_OK(first);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_TRUE((*first)[0].stop) << (*first)[0].reason;

  ASSERT_OK(store_.DeleteStudy("s"));
  clock_.Advance(std::chrono::seconds(-1));
  ASSERT_OK(engine_.CreateStudy("s", Spec()));
  clock_.Advance(std::chrono::seconds(1));
  CompletedTrials("s", 5, 0.1);
  ASSERT_EQ(ActiveTrial("s", "a", 0.5, 10), judged);
  auto second = engine_.CheckEarlyStopping("s", "median", {judged});
  ASSERT_OK(second);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_FALSE((*second)[0].stop) << (*second)[0].reason;
}

// Counts the measurements and the studies CheckEarlyStopping reads from the
// store.
class CountingStore : public store::MemoryStore {
 public:
  using MemoryStore::MemoryStore;
  absl::StatusOr<StudyRecord> GetStudy(std::string_view name) override {
    ++studies_read;
    return MemoryStore::GetStudy(name);
  }
  absl::StatusOr<std::vector<Measurement>> ListMeasurements(
      std::string_view study, int64_t number, int64_t skip) override {
    auto measurements = MemoryStore::ListMeasurements(study, number, skip);
    if (measurements.ok()) read += measurements->size();
    return measurements;
  }
  size_t read = 0;
  int studies_read = 0;
};

TEST(EngineEarlyStoppingCurvesTest, ACurveAndItsSpecAreReadOnceAndJudgedWhole) {
  FakeClock clock;
  CountingStore store(clock);
  TuningEngine engine(store, clock);
  ASSERT_OK(engine.CreateStudy("s", Spec()));
  auto trial_reporting = [&](double value, int steps) -> int64_t {
    Trial trial;
    trial.parameters["lr"] = ParameterValue::Double(0.1);
    trial.state = TrialState::kActive;
    absl::StatusOr<Trial> created = engine.CreateTrial("s", trial);
    EXPECT_OK(created);
    for (int step = 1; step <= steps; ++step) {
      EXPECT_OK(engine.AddMeasurement(
          "s", created->number,
          {.step = step, .metrics = {{"accuracy", value}}}));
    }
    return created->number;
  };
  for (int k = 1; k <= 6; ++k) {
    const int64_t done = trial_reporting(0.1 * k, 10);
    ASSERT_OK(engine.CompleteTrial("s", done, std::nullopt));
  }
  const int64_t judged = trial_reporting(0.2, 5);
  auto check = [&](TuningEngine& e) {
    auto decisions = e.CheckEarlyStopping("s", "median", {judged});
    EXPECT_OK(decisions);
    return decisions.ok() && decisions->size() == 1 ? (*decisions)[0]
                                                    : StoppingDecision{};
  };

  const int studies_read_before = store.studies_read;
  const StoppingDecision first = check(engine);
  EXPECT_TRUE(first.stop) << first.reason;
  EXPECT_EQ(store.studies_read, studies_read_before + 1);
  EXPECT_EQ(store.read, 6u * 10 + 5);
  EXPECT_EQ(check(engine), first);
  EXPECT_EQ(store.read, 6u * 10 + 5) << "nothing new was reported";

  // The trial improves: the next check reads the three new points only,
  // and judges the whole curve, as a fresh engine would.
  for (int step = 6; step <= 8; ++step) {
    ASSERT_OK(engine.AddMeasurement(
        "s", judged, {.step = step, .metrics = {{"accuracy", 0.9}}}));
  }
  const StoppingDecision later = check(engine);
  EXPECT_FALSE(later.stop) << later.reason;
  EXPECT_EQ(store.read, 6u * 10 + 5 + 3);
  EXPECT_EQ(store.studies_read, studies_read_before + 1)
      << "the spec is read once";
  TuningEngine fresh(store, clock);
  EXPECT_EQ(check(fresh), later);
}

// A study's spec read by the config parser, its hyperparameters block
// with `stopping` (the early-stopping lines).
StudySpec ParsedSpec(const std::string& stopping) {
  ConfigParseResult result = ParseJobConfig(
      "trainingInput:\n"
      "  hyperparameters:\n"
      "    goal: MAXIMIZE\n"
      "    hyperparameterMetricTag: accuracy\n"
      "    maxTrials: 50\n"
      "    maxParallelTrials: 50\n"
      "    earlyStoppingRule: median-at-step\n" +
          stopping +
          "    params:\n"
          "    - {parameterName: lr, type: DOUBLE, minValue: 0.01, "
          "maxValue: 1}\n",
      ConfigFormat::kYaml);
  EXPECT_TRUE(result.errors.empty()) << result.errors.front().ToString();
  return result.job && result.job->study ? *result.job->study : StudySpec{};
}

// median-at-step's warmupSteps (Optuna's n_warmup_steps), from the config
// to the engine's check: a hopeless trial is kept until its step reaches it.
TEST_F(EngineEarlyStoppingTest, WarmupStepsKeepATrialUntilThatStep) {
  ASSERT_OK(engine_.CreateStudy("cold", ParsedSpec("")));
  ASSERT_OK(engine_.CreateStudy(
      "warm", ParsedSpec("    earlyStoppingSettings: {warmupSteps: 8}\n")));
  int64_t hopeless = 0;
  for (const char* study : {"cold", "warm"}) {
    CompletedTrials(study, 6, 0.9);
    hopeless = ActiveTrial(study, "a", 0.1, 5);
  }
  auto cold = engine_.CheckEarlyStopping("cold");
  ASSERT_OK(cold);
  EXPECT_TRUE(cold->front().stop) << cold->front().reason;
  auto warm = engine_.CheckEarlyStopping("warm");
  ASSERT_OK(warm);
  EXPECT_FALSE(warm->front().stop);
  EXPECT_EQ(warm->front().reason, "step 5 is before the warm-up's step 8");
  for (int step = 6; step <= 8; ++step) {
    ASSERT_OK(engine_.AddMeasurement(
        "warm", hopeless, {.step = step, .metrics = {{"accuracy", 0.1}}}));
  }
  warm = engine_.CheckEarlyStopping("warm");
  ASSERT_OK(warm);
  EXPECT_TRUE(warm->front().stop) << warm->front().reason;
  EXPECT_THAT(
      engine_.CreateStudy(
          "bad", ParsedSpec("    earlyStoppingSettings: {warmupSteps: -1}\n")),
      hptune_testing::StatusIs(
          absl::StatusCode::kInvalidArgument,
          ::testing::HasSubstr("study.earlyStoppingSettings.warmupSteps: "
                               "must be 0 to 1000000000000, got -1")));
}

// The rule's factory checks a study's settings when the study is created.
TEST(EngineStoppingSettingsTest, ABadSettingIsRefusedWhenTheStudyIsCreated) {
  FakeClock clock;
  store::MemoryStore store(clock);
  TuningEngine engine(store, clock);
  StudySpec spec = Spec();
  spec.enable_early_stopping = true;
  spec.early_stopping_rule = "convex";
  spec.stopping_settings = {.rule = "convex",
                            .values = {{"minMeasurementCount", int64_t{1}}}};
  EXPECT_THAT(engine.CreateStudy("s", spec),
              hptune_testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("study.convexStopping."
                                       "minMeasurementCount: must be 2 to "
                                       "1000, got 1")));
  spec.stopping_settings.values = {{"minMeasurementCount", int64_t{3}}};
  EXPECT_OK(engine.CreateStudy("s", spec));
}

TEST_F(EngineEarlyStoppingTest, AnUnknownStudyIsNotFound) {
  auto decisions = engine_.CheckEarlyStopping("nope", "median");
  EXPECT_TRUE(absl::IsNotFound(decisions.status())) << decisions.status();
}

}  // namespace
}  // namespace hptune::engine
