// The embedding API: a scheduler's own designer (EngineOptions::designers,
// StudySpec::custom_algorithm) and its own stopping rule, through engine.h.
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What the sweep designers saw, shared with the test.
struct SweepLog {
  int created = 0;
  size_t last_completed = 0;
  size_t last_pending = 0;
  // What the factory was last given.
  algorithms::DesignerOptions last_options;
  uint64_t last_seed = 0;
  // The curves the designers want, and the reports of each completed trial
  // the last Update was given.
  int curves_wanted = 0;
  std::vector<std::vector<Measurement>> last_reports;
};

// Walks x = 0, 0.1, 0.2, ...; its state is the next index.
class SweepDesigner : public algorithms::Designer {
 public:
  explicit SweepDesigner(SweepLog& log) : log_(log) {}

  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) override {
    log_.last_completed = completed.size();
    log_.last_pending = active.size();
    log_.last_reports.clear();
    for (const Trial& t : completed)
      log_.last_reports.push_back(t.measurements);
    return absl::OkStatus();
  }
  int CurvesWanted() const override { return log_.curves_wanted; }
  absl::StatusOr<std::vector<algorithms::Suggestion>> Suggest(
      int count) override {
    std::vector<algorithms::Suggestion> out;
    for (int i = 0; i < count; ++i, ++next_) {
      out.push_back({{{"x", ParameterValue::Double(next_ / 10.0)}},
                     absl::StrCat("sweep[", next_, "]")});
    }
    return out;
  }
  std::string SaveState() const override { return std::to_string(next_); }
  absl::Status RestoreState(std::string_view state) override {
    next_ = state.empty() ? 0 : std::stoi(std::string(state));
    return absl::OkStatus();
  }

 private:
  SweepLog& log_;
  int next_ = 0;
};

algorithms::DesignerFactory SweepFactory(SweepLog& log) {
  return [&log](const Problem&, const algorithms::DesignerOptions& options,
                uint64_t seed)
             -> absl::StatusOr<std::unique_ptr<algorithms::Designer>> {
    ++log.created;
    log.last_options = options;
    log.last_seed = seed;
    return std::make_unique<SweepDesigner>(log);
  };
}

StudySpec SweepSpec() {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "x",
                                    .type = ParameterType::kDouble,
                                    .min_value = 0,
                                    .max_value = 10}});
  spec.SetSingleMetric("m");
  spec.max_trials = 20;
  spec.max_parallel_trials = 5;
  spec.custom_algorithm = "SWEEP";
  spec.seed = 3;
  return spec;
}

std::vector<std::string> Origins(const SuggestResponse& response) {
  std::vector<std::string> origins;
  for (const Trial& t : response.trials) origins.push_back(t.origin);
  return origins;
}

class EngineEmbeddingTest : public ::testing::Test {
 protected:
  EngineOptions WithSweep() {
    EngineOptions options;
    EXPECT_OK(options.designers.Register("SWEEP", SweepFactory(log_)));
    return options;
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  SweepLog log_;
};

TEST_F(EngineEmbeddingTest, AStudyNamingAUserDesignerGetsItsSuggestions) {
  TuningEngine engine(store_, WithSweep(), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));

  auto first = engine.SuggestTrials("s", 2, "a");
  ASSERT_OK(first);
  EXPECT_THAT(Origins(*first), ElementsAre("sweep[0]", "sweep[1]"));
  EXPECT_EQ(first->trials[1].parameters.at("x").AsDouble(), 0.1);
  ASSERT_OK(engine.CompleteTrial(
      "s", 1, Measurement{.step = 1, .metrics = {{"m", 1}}}));

  // The next call's designer is restored from the saved state and sees the
  // history: one trial completed, one pending.
  auto second = engine.SuggestTrials("s", 2, "b");
  ASSERT_OK(second);
  EXPECT_THAT(Origins(*second), ElementsAre("sweep[2]", "sweep[3]"));
  EXPECT_EQ(log_.last_completed, 1u);
  EXPECT_EQ(log_.last_pending, 1u);
  EXPECT_EQ(*store_.GetDesignerState("s"), "4");
  EXPECT_EQ(engine.GetStudy("s")->spec.custom_algorithm, "SWEEP");
}

// A designer that wants curves gets the reports of the metric of as many
// of the latest SUCCEEDED trials as it wants; any other gets summaries.
TEST_F(EngineEmbeddingTest, ADesignerThatWantsCurvesGetsTheLatestEndedTrials) {
  TuningEngine engine(store_, WithSweep(), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  ASSERT_OK(engine.SuggestTrials("s", 3, "a"));
  for (int trial : {1, 3}) {
    for (int step : {1, 2, 3}) {
      ASSERT_OK(engine.AddMeasurement(
          "s", trial,
          Measurement{.step = step, .metrics = {{"m", trial + 1.0 / step}}}));
    }
    ASSERT_OK(engine.CompleteTrial(
        "s", trial, Measurement{.step = 3, .metrics = {{"m", 0.25}}}));
  }
  ASSERT_OK(engine.AddMeasurement(
      "s", 2, Measurement{.step = 1, .metrics = {{"m", 5}}}));
  auto reports = [&] {
    std::vector<std::vector<std::pair<int64_t, double>>> curves;
    for (const std::vector<Measurement>& reported : log_.last_reports) {
      curves.emplace_back();
      for (const Measurement& m : reported) {
        curves.back().emplace_back(m.step, m.metrics.at("m"));
      }
    }
    return curves;
  };
  using Curve = std::vector<std::pair<int64_t, double>>;
  const Curve third = {{1, 4.0}, {2, 3.5}, {3, 3 + 1.0 / 3}};

  ASSERT_OK(engine.SuggestTrials("s", 1, "b"));
  EXPECT_THAT(reports(), ElementsAre(Curve{}, Curve{}));

  log_.curves_wanted = 1;
  ASSERT_OK(engine.SuggestTrials("s", 1, "c"));
  EXPECT_THAT(reports(), ElementsAre(Curve{}, third));

  log_.curves_wanted = 50;
  ASSERT_OK(engine.SuggestTrials("s", 1, "d"));
  EXPECT_THAT(reports(),
              ElementsAre(Curve{{1, 2.0}, {2, 1.5}, {3, 1 + 1.0 / 3}}, third));
  EXPECT_EQ(log_.last_pending, 3u);
}

// A designer plans for every trial its study will hold, the trials resumed
// from an earlier job included (the GP seeds by that budget).
TEST_F(EngineEmbeddingTest, AUserDesignerIsGivenItsSettingsAndTheWholeBudget) {
  TuningEngine engine(store_, WithSweep(), clock_);
  StudySpec spec = SweepSpec();
  spec.seeding_trials = 6;
  ASSERT_OK(engine.CreateStudy("s", spec, /*resumed_trials=*/7));
  ASSERT_OK(engine.SuggestTrials("s", 1, "a"));
  EXPECT_EQ(log_.last_options.trial_budget, 20 + 7);
  EXPECT_EQ(log_.last_options.seeding_trials, 6);
  EXPECT_EQ(log_.last_seed, 3u);
}

TEST_F(EngineEmbeddingTest, TheBuiltinsStayBesideUserDesigners) {
  TuningEngine engine(store_, WithSweep(), clock_);
  StudySpec random = SweepSpec();
  random.custom_algorithm.clear();
  random.algorithm = Algorithm::kRandomSearch;
  ASSERT_OK(engine.CreateStudy("r", random));
  auto response = engine.SuggestTrials("r", 1, "a");
  ASSERT_OK(response);
  EXPECT_THAT(Origins(*response), ElementsAre("random[0]"));
  EXPECT_EQ(log_.created, 0);
}

TEST_F(EngineEmbeddingTest, AnUnregisteredNameIsRefusedAtCreateStudy) {
  TuningEngine engine(store_, clock_);  // The built-ins only.
  auto study = engine.CreateStudy("s", SweepSpec());
  EXPECT_TRUE(absl::IsInvalidArgument(study.status())) << study.status();
  EXPECT_THAT(
      std::string(study.status().message()),
      HasSubstr("algorithm \"SWEEP\" is not registered with this engine; "
                "registered: ALGORITHM_UNSPECIFIED, GRID_SEARCH, "
                "MULTI_FIDELITY_GP, QUASI_RANDOM_SEARCH, RANDOM_SEARCH"));
  EXPECT_TRUE(absl::IsNotFound(engine.GetStudy("s").status()));
}

TEST_F(EngineEmbeddingTest, AStudyNamingTwoDesignersIsRefused) {
  TuningEngine engine(store_, WithSweep(), clock_);
  StudySpec spec = SweepSpec();
  spec.algorithm = Algorithm::kRandomSearch;
  auto study = engine.CreateStudy("s", spec);
  EXPECT_TRUE(absl::IsInvalidArgument(study.status()));
  EXPECT_THAT(std::string(study.status().message()),
              HasSubstr("custom algorithm \"SWEEP\" and algorithm "
                        "RANDOM_SEARCH"));
}

TEST_F(EngineEmbeddingTest, ARegistryWithoutTheBuiltinsCanReplaceTheDefault) {
  EngineOptions options;
  options.designers = algorithms::DesignerRegistry();
  ASSERT_OK(options.designers.Register(ToString(Algorithm::kUnspecified),
                                       SweepFactory(log_)));
  TuningEngine engine(store_, std::move(options), clock_);
  StudySpec spec = SweepSpec();
  spec.custom_algorithm.clear();  // ALGORITHM_UNSPECIFIED, as from a config.
  ASSERT_OK(engine.CreateStudy("s", spec));
  auto response = engine.SuggestTrials("s", 1, "a");
  ASSERT_OK(response);
  EXPECT_THAT(Origins(*response), ElementsAre("sweep[0]"));

  spec.algorithm = Algorithm::kGridSearch;
  EXPECT_TRUE(absl::IsInvalidArgument(engine.CreateStudy("g", spec).status()));
}

// Where the suggestions of two studies meet: each designer's Suggest waits
// until both have arrived, which happens only when suggestions of different
// studies run at once. The deadline only bounds a failure.
struct Meeting {
  std::mutex mu;
  std::condition_variable changed;
  int arrived = 0;
};

class MeetingDesigner : public algorithms::Designer {
 public:
  explicit MeetingDesigner(Meeting& meeting) : meeting_(meeting) {}

  absl::Status Update(const std::vector<Trial>&,
                      const std::vector<Trial>&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<algorithms::Suggestion>> Suggest(
      int count) override {
    std::unique_lock lock(meeting_.mu);
    ++meeting_.arrived;
    meeting_.changed.notify_all();
    if (!meeting_.changed.wait_for(lock, std::chrono::seconds(30),
                                   [&] { return meeting_.arrived >= 2; })) {
      return absl::DeadlineExceededError(
          "the other study's suggestion never ran beside this one");
    }
    std::vector<algorithms::Suggestion> out;
    for (int i = 0; i < count; ++i) {
      out.push_back({{{"x", ParameterValue::Double(i)}}, "meeting"});
    }
    return out;
  }
  std::string SaveState() const override { return ""; }
  absl::Status RestoreState(std::string_view) override {
    return absl::OkStatus();
  }

 private:
  Meeting& meeting_;
};

TEST_F(EngineEmbeddingTest, SuggestionsOfDifferentStudiesRunAtOnce) {
  Meeting meeting;
  EngineOptions options;
  ASSERT_OK(options.designers.Register(
      "MEETING",
      [&meeting](const Problem&, const algorithms::DesignerOptions&, uint64_t)
          -> absl::StatusOr<std::unique_ptr<algorithms::Designer>> {
        return std::make_unique<MeetingDesigner>(meeting);
      }));
  TuningEngine engine(store_, std::move(options), clock_);
  StudySpec spec = SweepSpec();
  spec.custom_algorithm = "MEETING";
  ASSERT_OK(engine.CreateStudy("a", spec));
  ASSERT_OK(engine.CreateStudy("b", spec));

  auto b = std::async(std::launch::async,
                      [&] { return engine.SuggestTrials("b", 1, "y"); });
  absl::StatusOr<SuggestResponse> a = engine.SuggestTrials("a", 1, "x");
  EXPECT_OK(a);
  EXPECT_OK(b.get());
}

// Stops every ACTIVE trial with an odd number; records what it was given.
class OddTrialsPolicy : public algorithms::StoppingPolicy {
 public:
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> Decide(
      const Problem&, const std::vector<Trial>& trials) override {
    seen = trials.size();
    std::vector<algorithms::StoppingDecision> decisions;
    for (const Trial& t : trials) {
      if (t.state != TrialState::kActive) continue;
      decisions.push_back({.trial = t.number,
                           .stop = t.number % 2 == 1,
                           .reason = t.number % 2 == 1 ? "odd" : ""});
    }
    return decisions;
  }
  size_t seen = 0;
};

TEST_F(EngineEmbeddingTest, AUserStoppingPolicyDecidesOnTheStudysTrials) {
  TuningEngine engine(store_, WithSweep(), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  ASSERT_OK(engine.SuggestTrials("s", 3, "a"));
  ASSERT_OK(engine.AddMeasurement(
      "s", 2, Measurement{.step = 1, .metrics = {{"m", 1}}}));

  OddTrialsPolicy policy;
  auto all = engine.CheckEarlyStopping("s", policy);
  ASSERT_OK(all);
  EXPECT_EQ(policy.seen, 3u);
  ASSERT_EQ(all->size(), 3u);
  EXPECT_TRUE(all->at(0).stop);
  EXPECT_FALSE(all->at(1).stop);
  EXPECT_EQ(all->at(2).reason, "odd");

  auto only = engine.CheckEarlyStopping("s", policy, {3});
  ASSERT_OK(only);
  EXPECT_THAT(*only, ElementsAre(algorithms::StoppingDecision{
                         .trial = 3, .stop = true, .reason = "odd"}));
}

// A curve rule of the user's own gets the engine's cached curves.
class LongCurvesPolicy : public algorithms::CurveStoppingPolicy {
 public:
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> DecideOnCurves(
      const Problem&, std::span<const algorithms::TrialCurve> trials) override {
    std::vector<algorithms::StoppingDecision> decisions;
    for (const algorithms::TrialCurve& t : trials) {
      if (t.state != TrialState::kActive) continue;
      const bool stop = t.curve->points().size() >= 2;
      decisions.push_back({.trial = t.curve->trial(),
                           .stop = stop,
                           .reason = stop ? "two points" : ""});
    }
    return decisions;
  }
};

TEST_F(EngineEmbeddingTest, AUserCurvePolicyGetsTheReportedCurves) {
  TuningEngine engine(store_, WithSweep(), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  ASSERT_OK(engine.SuggestTrials("s", 2, "a"));
  for (int64_t step : {1, 2}) {
    ASSERT_OK(engine.AddMeasurement(
        "s", 1, Measurement{.step = step, .metrics = {{"m", 0.5}}}));
  }
  LongCurvesPolicy policy;
  auto decisions = engine.CheckEarlyStopping("s", policy);
  ASSERT_OK(decisions);
  EXPECT_THAT(*decisions,
              ElementsAre(
                  algorithms::StoppingDecision{
                      .trial = 1, .stop = true, .reason = "two points"},
                  algorithms::StoppingDecision{.trial = 2}));
}

// A rule registered by name (EngineOptions::stopping_rules) is what the
// engine's by-name check runs, and the built-ins stay beside it.
TEST_F(EngineEmbeddingTest, ARegisteredStoppingRuleIsCheckedByItsName) {
  EngineOptions options = WithSweep();
  ASSERT_OK(options.stopping_rules.Register("long-curves", [] {
    return absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>>(
        std::make_unique<LongCurvesPolicy>());
  }));
  TuningEngine engine(store_, std::move(options), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  ASSERT_OK(engine.SuggestTrials("s", 2, "a"));
  for (int64_t step : {1, 2}) {
    ASSERT_OK(engine.AddMeasurement(
        "s", 1, Measurement{.step = step, .metrics = {{"m", 0.5}}}));
  }
  auto decisions = engine.CheckEarlyStopping("s", "long-curves");
  ASSERT_OK(decisions);
  EXPECT_THAT(*decisions,
              ElementsAre(
                  algorithms::StoppingDecision{
                      .trial = 1, .stop = true, .reason = "two points"},
                  algorithms::StoppingDecision{.trial = 2}));
  // The built-in default is still there, and judges nobody this early.
  auto builtin = engine.CheckEarlyStopping("s", "median-at-step");
  ASSERT_OK(builtin);
  EXPECT_FALSE(builtin->at(0).stop);
}

// A study that names a rule (StudySpec::early_stopping_rule) is checked by
// it when the caller names none: what runners and the API do.
TEST_F(EngineEmbeddingTest, AStudyIsCheckedByTheRuleItNames) {
  EngineOptions options = WithSweep();
  ASSERT_OK(options.stopping_rules.Register("long-curves", [] {
    return absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>>(
        std::make_unique<LongCurvesPolicy>());
  }));
  TuningEngine engine(store_, std::move(options), clock_);
  StudySpec spec = SweepSpec();
  spec.enable_early_stopping = true;
  spec.early_stopping_rule = "long-curves";
  ASSERT_OK(engine.CreateStudy("s", spec));
  ASSERT_OK(engine.SuggestTrials("s", 1, "a"));
  for (int64_t step : {1, 2}) {
    ASSERT_OK(engine.AddMeasurement(
        "s", 1, Measurement{.step = step, .metrics = {{"m", 0.5}}}));
  }
  auto decisions = engine.CheckEarlyStopping("s");
  ASSERT_OK(decisions);
  EXPECT_THAT(*decisions,
              ElementsAre(algorithms::StoppingDecision{
                  .trial = 1, .stop = true, .reason = "two points"}));
}

TEST_F(EngineEmbeddingTest, AStudyNamingAnUnregisteredRuleIsNotCreated) {
  TuningEngine engine(store_, WithSweep(), clock_);
  StudySpec spec = SweepSpec();
  spec.enable_early_stopping = true;
  spec.early_stopping_rule = "nope";
  EXPECT_THAT(engine.CreateStudy("s", spec),
              hptune_testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  "study.earlyStoppingRule: no early-stopping rule is "
                  "registered as \"nope\"; registered: asha, "
                  "asha-resume, convex, decay-curve, envelope, median, "
                  "median-at-step"));
  EXPECT_THAT(
      engine.GetStudy("s"),
      hptune_testing::StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  spec.enable_early_stopping = false;
  EXPECT_THAT(engine.CreateStudy("s", spec),
              hptune_testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  "study.earlyStoppingRule: names rule \"nope\" but "
                  "enableTrialEarlyStopping is false"));
}

TEST_F(EngineEmbeddingTest, AnUnregisteredStoppingRuleIsRefusedByName) {
  TuningEngine engine(store_, WithSweep(), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  EXPECT_THAT(engine.CheckEarlyStopping("s", "nope"),
              hptune_testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  HasSubstr("stopping rule \"nope\" is not registered with "
                            "this engine; registered: asha, asha-resume, "
                            "convex, decay-curve, envelope, median, "
                            "median-at-step")));
}

// Registering a built-in's name on a registry without the built-ins replaces
// that rule for the enum overload too (what the server and runner call).
TEST_F(EngineEmbeddingTest, ARegistryWithoutTheBuiltinsCanReplaceARule) {
  EngineOptions options = WithSweep();
  options.stopping_rules = algorithms::StoppingRuleRegistry();
  ASSERT_OK(options.stopping_rules.Register("median-at-step", [] {
    return absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>>(
        std::make_unique<LongCurvesPolicy>());
  }));
  TuningEngine engine(store_, std::move(options), clock_);
  ASSERT_OK(engine.CreateStudy("s", SweepSpec()));
  ASSERT_OK(engine.SuggestTrials("s", 1, "a"));
  for (int64_t step : {1, 2}) {
    ASSERT_OK(engine.AddMeasurement(
        "s", 1, Measurement{.step = step, .metrics = {{"m", 0.5}}}));
  }
  auto decisions = engine.CheckEarlyStopping("s", "median-at-step");
  ASSERT_OK(decisions);
  EXPECT_THAT(*decisions,
              ElementsAre(algorithms::StoppingDecision{
                  .trial = 1, .stop = true, .reason = "two points"}));
  EXPECT_THAT(engine.CheckEarlyStopping("s", "asha"),
              hptune_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                       ::testing::_));
}

}  // namespace
}  // namespace hptune::engine
