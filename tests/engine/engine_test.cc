#include "hptune/engine/engine.h"

#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/env_wrapper.h"
#include "src/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using ::hptune_testing::StatusHasCode;
using ::testing::HasSubstr;

StudySpec GridSpec(int max_trials, int max_parallel = 10) {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "units",
                                    .type = ParameterType::kInteger,
                                    .min_value = 1,
                                    .max_value = 3},
                                   {.name = "cell",
                                    .type = ParameterType::kCategorical,
                                    .categorical_values = {"gru", "lstm"}}});
  spec.SetSingleMetric("accuracy", Goal::kMaximize);
  spec.max_trials = max_trials;
  spec.max_parallel_trials = max_parallel;
  spec.algorithm = Algorithm::kGridSearch;
  spec.seed = 1;
  return spec;
}

std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a)
    key += name + "=" + value.ToString() + ";";
  return key;
}

Measurement Accuracy(int64_t step, double value) {
  return Measurement{.step = step, .metrics = {{"accuracy", value}}};
}

class EngineTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, clock_};
};

TEST_F(EngineTest, CreateStudyRejectsAnInvalidSpecNamingTheField) {
  StudySpec spec = GridSpec(5);
  spec.max_trials = 0;
  auto study = engine_.CreateStudy("bad", spec);
  EXPECT_TRUE(absl::IsInvalidArgument(study.status()));
  EXPECT_THAT(std::string(study.status().message()),
              HasSubstr("study.maxTrials"));
  EXPECT_THAT(std::string(study.status().message()), HasSubstr("0"));
}

TEST_F(EngineTest, CreateStudyRejectsABadNameAndADuplicate) {
  EXPECT_TRUE(absl::IsInvalidArgument(
      engine_.CreateStudy("9lives", GridSpec(5)).status()));
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(5)));
  EXPECT_TRUE(
      absl::IsAlreadyExists(engine_.CreateStudy("s", GridSpec(5)).status()));
}

// The real machine but for the seeds it hands out, which count up.
class CountedSeeds : public EnvWrapper {
 public:
  CountedSeeds() : EnvWrapper(DefaultEnv()) {}
  uint64_t RandomSeed() override { return next++; }
  uint64_t next = 1234;
};

TEST(EngineSeedTest, AStudyWithoutASeedGetsOneFromTheEnv) {
  FakeClock clock;
  store::MemoryStore store(clock);
  CountedSeeds env;
  TuningEngine engine(store, EngineOptions{.env = &env}, clock);
  StudySpec unseeded = GridSpec(5);
  unseeded.seed.reset();
  ASSERT_OK_AND_ASSIGN(StudyRecord first, engine.CreateStudy("a", unseeded));
  ASSERT_OK_AND_ASSIGN(StudyRecord seeded,
                       engine.CreateStudy("b", GridSpec(5)));
  ASSERT_OK_AND_ASSIGN(StudyRecord second, engine.CreateStudy("c", unseeded));
  EXPECT_EQ(first.seed, 1234u);
  EXPECT_EQ(seeded.seed, 1u);
  EXPECT_EQ(second.seed, 1235u);
}

TEST_F(EngineTest, WithoutAnEnvUnseededStudiesStillGetDistinctSeeds) {
  StudySpec unseeded = GridSpec(5);
  unseeded.seed.reset();
  std::set<uint64_t> seeds;
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_OK_AND_ASSIGN(StudyRecord study,
                         engine_.CreateStudy(name, unseeded));
    seeds.insert(study.seed);
  }
  EXPECT_EQ(seeds.size(), 3u);
}

TEST_F(EngineTest, OpenOrCreateReopensOnlyTheSameSpec) {
  ASSERT_OK(engine_.OpenOrCreateStudy("s", GridSpec(5)));
  EXPECT_OK(engine_.OpenOrCreateStudy("s", GridSpec(5)));
  auto other = engine_.OpenOrCreateStudy("s", GridSpec(6));
  EXPECT_TRUE(absl::IsFailedPrecondition(other.status()));
}

TEST_F(EngineTest, SuggestionsAreActiveFeasibleAndAssignedToTheClient) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  auto response = engine_.SuggestTrials("s", 3, "worker-a");
  ASSERT_OK(response);
  ASSERT_EQ(response->trials.size(), 3u);
  std::set<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    const Trial& t = response->trials[i];
    EXPECT_EQ(t.number, i + 1);
    EXPECT_EQ(t.state, TrialState::kActive);
    EXPECT_EQ(t.client_id, "worker-a");
    EXPECT_OK(GridSpec(6).search_space.CheckAssignment(t.parameters));
    seen.insert(Key(t.parameters));
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(EngineTest, AClientAskingAgainGetsItsUnfinishedTrialsBack) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  auto first = engine_.SuggestTrials("s", 2, "a");
  auto again = engine_.SuggestTrials("s", 2, "a");
  ASSERT_TRUE(first.ok() && again.ok());
  ASSERT_EQ(again->trials.size(), 2u);
  EXPECT_EQ(again->trials[0].number, first->trials[0].number);
  EXPECT_EQ(again->trials[1].number, first->trials[1].number);
  auto other = engine_.SuggestTrials("s", 1, "b");
  ASSERT_OK(other);
  EXPECT_EQ(other->trials[0].number, 3);
}

TEST_F(EngineTest, MaxParallelTrialsCapsPendingTrials) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6, 2)));
  auto response = engine_.SuggestTrials("s", 5, "a");
  ASSERT_OK(response);
  EXPECT_EQ(response->trials.size(), 2u);
  EXPECT_EQ(response->note, "maxParallelTrials (2) trials are pending");
  EXPECT_TRUE(engine_.SuggestTrials("s", 1, "b")->trials.empty());
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  EXPECT_EQ(engine_.SuggestTrials("s", 1, "b")->trials.size(), 1u);
}

TEST_F(EngineTest, MaxTrialsEndsTheStudyOnceEverythingFinished) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(2)));
  auto response = engine_.SuggestTrials("s", 5, "a");
  ASSERT_EQ(response->trials.size(), 2u);
  EXPECT_EQ(response->note, "maxTrials (2) reached");
  EXPECT_FALSE(response->study_completed);
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  EXPECT_EQ(engine_.GetStudy("s")->state, StudyState::kActive);
  ASSERT_OK(engine_.MarkTrialFailed("s", 2, "replica exited 1"));
  auto study = engine_.GetStudy("s");
  EXPECT_EQ(study->state, StudyState::kCompleted);
  EXPECT_EQ(study->reason, "maxTrials (2) reached");
  auto after = engine_.SuggestTrials("s", 1, "a");
  EXPECT_TRUE(after->trials.empty());
  EXPECT_TRUE(after->study_completed);
}

TEST_F(EngineTest, AnExhaustedGridCompletesTheStudyEarly) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(100)));
  auto all = engine_.SuggestTrials("s", 100, "a");
  ASSERT_EQ(all->trials.size(), 6u);
  EXPECT_EQ(all->note, "the search space is exhausted");
  for (const Trial& t : all->trials) {
    EXPECT_EQ(engine_.GetStudy("s")->state, StudyState::kActive);
    ASSERT_OK(engine_.CompleteTrial("s", t.number, Accuracy(1, 0.1)));
  }
  // Completed as the last trial ended, not only when someone asks again.
  EXPECT_EQ(engine_.GetStudy("s")->state, StudyState::kCompleted);
  auto last = engine_.SuggestTrials("s", 1, "a");
  EXPECT_TRUE(last->trials.empty());
  EXPECT_TRUE(last->study_completed);
  EXPECT_EQ(engine_.GetStudy("s")->reason,
            "the search space is exhausted after 6 trials");
}

TEST_F(EngineTest, AConditionalSpaceIsExhaustedByItsActiveCombinations) {
  // cell: gru | lstm -> units in {1, 2}: three points, not 2 x 2.
  StudySpec spec = GridSpec(10);
  spec.algorithm = Algorithm::kRandomSearch;
  spec.search_space =
      SearchSpace({{.name = "cell",
                    .type = ParameterType::kCategorical,
                    .categorical_values = {"gru", "lstm"}},
                   {.name = "units",
                    .type = ParameterType::kInteger,
                    .min_value = 1,
                    .max_value = 2,
                    .condition = ParentCondition{
                        .parent = "cell", .categorical_values = {"lstm"}}}});
  ASSERT_OK(engine_.CreateStudy("s", spec));
  const auto add = [&](ParameterAssignment parameters, TrialState state) {
    Trial t;
    t.parameters = std::move(parameters);
    t.state = state;
    if (state == TrialState::kSucceeded) t.final_measurement = Accuracy(1, 0.5);
    return engine_.CreateTrial("s", std::move(t));
  };
  ASSERT_OK(add({{"cell", ParameterValue::Categorical("gru")}},
                TrialState::kSucceeded));
  // An inactive parameter is refused, as a missing active one is.
  EXPECT_THAT(add({{"cell", ParameterValue::Categorical("gru")},
                   {"units", ParameterValue::Integer(1)}},
                  TrialState::kSucceeded),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(add({{"cell", ParameterValue::Categorical("lstm")}},
                  TrialState::kSucceeded),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  ASSERT_OK(add({{"cell", ParameterValue::Categorical("lstm")},
                 {"units", ParameterValue::Integer(1)}},
                TrialState::kSucceeded));
  auto last = add({{"cell", ParameterValue::Categorical("lstm")},
                   {"units", ParameterValue::Integer(2)}},
                  TrialState::kActive);
  ASSERT_OK(last);
  ASSERT_OK(engine_.CompleteTrial("s", last->number, Accuracy(1, 0.25)));
  EXPECT_EQ(engine_.GetStudy("s")->state, StudyState::kCompleted);
  EXPECT_EQ(engine_.GetStudy("s")->reason,
            "the search space is exhausted after 3 trials");
}

TEST_F(EngineTest, CompleteWithoutFinalUsesTheLastReportedObjective) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(10, 0.3)));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(20, 0.6)));
  ASSERT_OK(engine_.AddMeasurement(
      "s", 1, Measurement{.step = 30, .metrics = {{"loss", 0.1}}}));
  auto trial = engine_.CompleteTrial("s", 1, std::nullopt);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  EXPECT_EQ(trial->final_measurement->step, 20);
  EXPECT_EQ(trial->FinalObjective("accuracy"), 0.6);
  EXPECT_EQ(trial->measurements.size(), 3u);
}

TEST_F(EngineTest, BestMeasurementSelectionKeepsTheBestReportByTheGoal) {
  StudySpec spec = GridSpec(6);
  spec.measurement_selection = MeasurementSelection::kBest;
  ASSERT_OK(engine_.CreateStudy("s", spec));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(10, 0.3)));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(20, 0.8)));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(30, 0.8)));
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(40, 0.5)));
  auto trial = engine_.CompleteTrial("s", 1, std::nullopt);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->final_measurement->step, 20);  // The earlier of a tie.
  EXPECT_EQ(trial->FinalObjective("accuracy"), 0.8);
}

TEST_F(EngineTest, BestMeasurementOfAMinimizedMetricIsTheLowest) {
  StudySpec spec = GridSpec(6);
  spec.SetSingleMetric(spec.metric_tag(), Goal::kMinimize);
  spec.measurement_selection = MeasurementSelection::kBest;
  ASSERT_OK(engine_.CreateStudy("s", spec));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  for (double value : {0.9, 0.2, 0.7}) {
    ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(value * 10, value)));
  }
  auto trial = engine_.CompleteTrial("s", 1, std::nullopt);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->FinalObjective("accuracy"), 0.2);
  // A final measurement given by the client is the result either way.
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  ASSERT_OK(engine_.AddMeasurement("s", 2, Accuracy(1, 0.1)));
  auto given = engine_.CompleteTrial("s", 2, Accuracy(2, 0.6));
  ASSERT_OK(given);
  EXPECT_EQ(given->FinalObjective("accuracy"), 0.6);
}

TEST_F(EngineTest, ATrialThatReportedNothingEndsWithoutAMadeUpNumber) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  auto trial = engine_.CompleteTrial("s", 1, std::nullopt);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->final_measurement, std::nullopt);
  EXPECT_EQ(trial->reason,
            "the trial reported no value of metric \"accuracy\"");
  EXPECT_EQ(*engine_.BestTrial("s"), std::nullopt);
}

TEST_F(EngineTest, AFinalMeasurementWithoutTheMetricIsRejected) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  auto trial = engine_.CompleteTrial(
      "s", 1, Measurement{.step = 1, .metrics = {{"loss", 1}}});
  EXPECT_TRUE(absl::IsInvalidArgument(trial.status()));
  EXPECT_EQ(engine_.GetTrial("s", 1)->state, TrialState::kActive);
}

TEST_F(EngineTest, NonFiniteMeasurementsAreRejectedAtIngestion) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  absl::Status status = engine_.AddMeasurement("s", 1, Accuracy(1, NAN));
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_TRUE(engine_.GetTrial("s", 1)->measurements.empty());
}

TEST_F(EngineTest, EndingATrialTwiceIsAnError) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "a"));
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  auto again = engine_.MarkTrialInfeasible("s", 1, "diverged");
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      engine_.MarkTrialInfeasible("s", 1, "").status()));
}

TEST_F(EngineTest, BestTrialFollowsTheGoal) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 3, "a"));
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  ASSERT_OK(engine_.CompleteTrial("s", 2, Accuracy(1, 0.9)));
  ASSERT_OK(engine_.CompleteTrial("s", 3, Accuracy(1, 0.7)));
  EXPECT_EQ((*engine_.BestTrial("s"))->number, 2);
}

TEST_F(EngineTest, ParameterImportanceReadsTheStudysTrials) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(6)));
  ASSERT_OK(engine_.SuggestTrials("s", 4, "a"));
  for (int64_t trial = 1; trial <= 4; ++trial) {
    ASSERT_OK(engine_.CompleteTrial("s", trial, Accuracy(1, 0.1 * trial)));
  }
  ASSERT_OK_AND_ASSIGN(algorithms::ImportanceReport report,
                       engine_.ParameterImportance("s"));
  EXPECT_EQ(report.trials, 4);
  ASSERT_EQ(report.importances.size(), 2u);
  EXPECT_TRUE(absl::IsNotFound(engine_.ParameterImportance("none").status()));
}

// A job's resumed trials are history on top of maxTrials: the study runs
// maxTrials trials of its own, and its messages say both.
TEST_F(EngineTest, ResumedTrialsWidenTheBudgetBeyondMaxTrials) {
  ASSERT_OK_AND_ASSIGN(StudyRecord study,
                       engine_.CreateStudy("s", GridSpec(2), 3));
  EXPECT_EQ(study.TrialBudget(), 5);
  EXPECT_EQ(engine_.GetStudy("s")->resumed_trials, 3);
  ASSERT_OK_AND_ASSIGN(auto suggested, engine_.SuggestTrials("s", 10, "a"));
  EXPECT_EQ(suggested.trials.size(), 5u);
  EXPECT_EQ(suggested.note, "maxTrials (2 beyond 3 resumed) reached");
}

TEST_F(EngineTest, UserTrialsSeedTheStudyAndAreNotRepeated) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(100)));
  Trial known;
  known.parameters = {{"units", ParameterValue::Integer(1)},
                      {"cell", ParameterValue::Categorical("gru")}};
  known.state = TrialState::kSucceeded;
  known.final_measurement = Accuracy(5, 0.8);
  auto created = engine_.CreateTrial("s", known);
  ASSERT_OK(created);
  EXPECT_EQ(created->number, 1);
  EXPECT_EQ(created->origin, "user");
  auto rest = engine_.SuggestTrials("s", 100, "a");
  ASSERT_EQ(rest->trials.size(), 5u);
  for (const Trial& t : rest->trials) EXPECT_NE(t.parameters, known.parameters);

  Trial bad = known;
  bad.parameters["units"] = ParameterValue::Integer(9);
  EXPECT_TRUE(absl::IsInvalidArgument(engine_.CreateTrial("s", bad).status()));
}

TEST_F(EngineTest, QueuedUserTrialsAreHandedOutBeforeNewOnes) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(100, 1)));
  Trial queued;
  queued.parameters = {{"units", ParameterValue::Integer(3)},
                       {"cell", ParameterValue::Categorical("lstm")}};
  auto created = engine_.CreateTrial("s", queued);
  ASSERT_OK(created);
  EXPECT_EQ(created->state, TrialState::kRequested);

  auto response = engine_.SuggestTrials("s", 1, "worker");
  ASSERT_OK(response);
  ASSERT_EQ(response->trials.size(), 1u);
  EXPECT_EQ(response->trials[0].number, 1);
  EXPECT_EQ(response->trials[0].state, TrialState::kActive);
  EXPECT_EQ(response->trials[0].client_id, "worker");
  EXPECT_EQ(engine_.GetTrial("s", 1)->state, TrialState::kActive);
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  EXPECT_EQ(engine_.SuggestTrials("s", 1, "worker")->trials[0].number, 2);
}

TEST_F(EngineTest, TrialsToRunNeedRoomInTheBudget) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(1)));
  Trial queued;
  queued.parameters = {{"units", ParameterValue::Integer(1)},
                       {"cell", ParameterValue::Categorical("gru")}};
  ASSERT_OK(engine_.CreateTrial("s", queued));
  auto over = engine_.CreateTrial("s", queued);
  EXPECT_TRUE(absl::IsFailedPrecondition(over.status()));
  EXPECT_EQ(over.status().message(),
            "study \"s\": maxTrials (1) reached; a trial to run cannot be "
            "added");
  // Known results are history, accepted whatever the budget.
  Trial known = queued;
  known.state = TrialState::kSucceeded;
  known.final_measurement = Accuracy(1, 0.3);
  EXPECT_OK(engine_.CreateTrial("s", known));
}

TEST_F(EngineTest, ACompletedStudyTakesNoTrialsToRun) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(1)));
  ASSERT_EQ(engine_.SuggestTrials("s", 1, "a")->trials.size(), 1u);
  ASSERT_OK(engine_.CompleteTrial("s", 1, Accuracy(1, 0.5)));
  Trial queued;
  queued.parameters = {{"units", ParameterValue::Integer(2)},
                       {"cell", ParameterValue::Categorical("gru")}};
  auto late = engine_.CreateTrial("s", queued);
  EXPECT_TRUE(absl::IsFailedPrecondition(late.status()));
  EXPECT_EQ(late.status().message(),
            "study \"s\" is completed (maxTrials (1) reached); it runs no "
            "more trials");
}

TEST_F(EngineTest, ConcurrentClientsNeverGetTheSamePoint) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(100)));
  std::vector<std::thread> threads;
  std::vector<std::vector<Trial>> got(6);
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      got[i] = engine_.SuggestTrials("s", 1, "c" + std::to_string(i))->trials;
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> points;
  std::set<int64_t> numbers;
  for (const auto& trials : got) {
    ASSERT_EQ(trials.size(), 1u);
    points.insert(Key(trials[0].parameters));
    numbers.insert(trials[0].number);
  }
  EXPECT_EQ(points.size(), 6u);
  EXPECT_EQ(numbers, (std::set<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST_F(EngineTest, UnknownStudyIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(engine_.SuggestTrials("nope", 1, "a").status()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(engine_.SuggestTrials("nope", 0, "a").status()));
}

TEST_F(EngineTest, ListStudiesIsByName) {
  for (const char* name : {"b", "c", "a"}) {
    ASSERT_OK(engine_.CreateStudy(name, GridSpec(5)));
  }
  auto studies = engine_.ListStudies();
  ASSERT_OK(studies);
  std::vector<std::string> names;
  for (const StudyRecord& s : *studies) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(EngineTest, DeleteStudyWaitsForItsJobToFinish) {
  ASSERT_OK(engine_.CreateStudy("job1", GridSpec(5)));
  ASSERT_OK(engine_.CreateStudy("other", GridSpec(5)));
  JobRecord job{.job_id = "job1", .study_name = "job1"};
  ASSERT_OK(store_.CreateJob(job));

  absl::Status refused = engine_.DeleteStudy("job1");
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("belongs to job \"job1\", which is QUEUED"));
  // Another study is not held by the job.
  EXPECT_OK(engine_.DeleteStudy("other"));

  ASSERT_OK(store_.UpdateJob("job1", [&](JobRecord& j) {
    return j.TransitionTo(JobState::kCancelled, clock_.Now());
  }));
  EXPECT_OK(engine_.DeleteStudy("job1"));
  EXPECT_TRUE(absl::IsNotFound(engine_.GetStudy("job1").status()));
  EXPECT_TRUE(absl::IsNotFound(engine_.DeleteStudy("job1")));
}

// A job's study need not share its name: job "nightly" tunes study
// "tuned", and a study named "nightly" belongs to no job. The job holds
// its study, found by the job's study_name, never by its ID.
TEST_F(EngineTest, DeleteStudyFindsTheJobByItsStudyNotItsId) {
  ASSERT_OK(engine_.CreateStudy("tuned", GridSpec(5)));
  ASSERT_OK(engine_.CreateStudy("nightly", GridSpec(5)));
  ASSERT_OK(store_.CreateJob({.job_id = "nightly", .study_name = "tuned"}));

  absl::Status refused = engine_.DeleteStudy("tuned");
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("study \"tuned\" belongs to job \"nightly\""));
  EXPECT_OK(engine_.GetStudy("tuned").status());
  // The study named like the job is nobody's job's: it goes.
  EXPECT_OK(engine_.DeleteStudy("nightly"));
  EXPECT_TRUE(absl::IsNotFound(engine_.GetStudy("nightly").status()));
}

TEST_F(EngineTest, TrialSummariesLeaveOutTheMeasurements) {
  ASSERT_OK(engine_.CreateStudy("s", GridSpec(5)));
  auto response = engine_.SuggestTrials("s", 1, "a");
  ASSERT_OK(response);
  ASSERT_OK(engine_.AddMeasurement("s", 1, Accuracy(1, 0.5)));
  auto full = engine_.ListTrials("s");
  auto summaries = engine_.ListTrialSummaries("s");
  ASSERT_TRUE(full.ok() && summaries.ok());
  EXPECT_EQ(full->at(0).measurements.size(), 1u);
  EXPECT_TRUE(summaries->at(0).measurements.empty());
  EXPECT_EQ(summaries->at(0).parameters, full->at(0).parameters);
}

}  // namespace
}  // namespace hptune::engine
