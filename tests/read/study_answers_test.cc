// The read side's answers about a study, computed from a real SQLite file
// and from MemoryStore: the same answers from both stores, and the same as
// core's and the algorithms' functions give over the stored trials.
#include "hptune/read/study_answers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/store/open_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::read {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

StudyRecord Study(const std::string& name) {
  StudyRecord study;
  study.name = name;
  study.spec.SetSingleMetric("acc", Goal::kMaximize);
  study.spec.max_trials = 20;
  study.spec.search_space = SearchSpace({{.name = "lr",
                                          .type = ParameterType::kDouble,
                                          .min_value = 1e-4,
                                          .max_value = 1,
                                          .scale = ScaleType::kLog}});
  return study;
}

Trial Finished(double lr, double acc, int64_t step = 10) {
  Trial trial;
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"lr", ParameterValue::Double(lr)}};
  trial.final_measurement =
      Measurement{.step = step, .metrics = {{"acc", acc}}};
  return trial;
}

// Ran `seconds` for `step` steps, stopped early or not.
Trial Ran(int64_t step, double seconds, bool stopped) {
  Trial trial = Finished(0.01, 0.5, step);
  trial.stopped_early = stopped;
  trial.start_time = FromUnixMicros(1'700'000'000'000'000);
  trial.end_time = *trial.start_time + std::chrono::microseconds(
                                           static_cast<int64_t>(seconds * 1e6));
  return trial;
}

// A job whose trials each hold a master with 2 GPUs and one worker.
JobRecord JobWithTwoGpus(const std::string& id) {
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  masterConfig: {acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}}\n"
      "  workerType: n1-standard-4\n"
      "  workerCount: 1\n"
      "  command: [python3, train.py]\n"
      "  hyperparameters:\n"
      "    hyperparameterMetricTag: acc\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: "
      "1}\n");
  EXPECT_TRUE(parsed.job) << parsed.errors.size();
  JobRecord job;
  job.job_id = id;
  job.study_name = id;
  job.training_input_json = TrainingInputToJson(*parsed.job);
  return job;
}

using StoreFactory = std::function<std::unique_ptr<store::Store>()>;

class StudyAnswersTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam()();
    ASSERT_NE(store_, nullptr);
  }
  void AddTrials(const std::string& study, std::vector<Trial> trials) {
    ASSERT_OK(store_->AddTrials(study, std::move(trials), std::nullopt));
  }
  std::unique_ptr<store::Store> store_;
};

TEST_P(StudyAnswersTest, BestAndOptimalAreCoresOverTheStoredTrials) {
  ASSERT_OK(store_->CreateStudy(Study("s")));
  AddTrials("s", {Finished(0.1, 0.5), Finished(0.01, 0.9), Finished(0.2, 0.9),
                  Finished(0.001, 0.7)});
  StoreStudyAnswers answers(*store_);
  absl::StatusOr<std::optional<Trial>> best = answers.BestTrial("s");
  ASSERT_OK(best.status());
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->number, 2);  // Ties go to the earlier trial.
  absl::StatusOr<std::vector<Trial>> optimal = answers.OptimalTrials("s");
  ASSERT_OK(optimal.status());
  EXPECT_THAT(*optimal, ElementsAre(Field(&Trial::number, 2)));
}

TEST_P(StudyAnswersTest, SeveralObjectivesGiveTheFeasibleParetoFront) {
  StudyRecord study = Study("front");
  study.spec.SetMetrics({{.id = "acc", .goal = Goal::kMaximize},
                         {.id = "ms", .goal = Goal::kMinimize}});
  ASSERT_OK(store_->CreateStudy(study));
  std::vector<Trial> trials;
  for (auto [acc, ms] : {std::pair{0.9, 50.0}, {0.8, 10.0}, {0.7, 60.0}}) {
    Trial t = Finished(0.01, acc);
    t.final_measurement->metrics["ms"] = ms;
    trials.push_back(std::move(t));
  }
  AddTrials("front", std::move(trials));
  absl::StatusOr<std::vector<Trial>> optimal =
      StoreStudyAnswers(*store_).OptimalTrials("front");
  ASSERT_OK(optimal.status());
  EXPECT_THAT(*optimal,
              ElementsAre(Field(&Trial::number, 1), Field(&Trial::number, 2)));
}

TEST_P(StudyAnswersTest, ImportanceIsTheAlgorithmsReportOverTheTrials) {
  ASSERT_OK(store_->CreateStudy(Study("imp")));
  std::vector<Trial> trials;
  for (int i = 1; i <= 12; ++i) trials.push_back(Finished(i / 20.0, i / 12.0));
  AddTrials("imp", trials);
  absl::StatusOr<algorithms::ImportanceReport> report =
      StoreStudyAnswers(*store_).Importance("imp");
  ASSERT_OK(report.status());
  absl::StatusOr<std::vector<Trial>> stored = store_->ListTrialSummaries("imp");
  ASSERT_OK(stored.status());
  absl::StatusOr<algorithms::ImportanceReport> expected =
      algorithms::StudyImportance(Study("imp"), *stored);
  ASSERT_OK(expected.status());
  EXPECT_EQ(report->trials, 12);
  EXPECT_EQ(report->note, expected->note);
  ASSERT_EQ(report->importances.size(), 1u);
  EXPECT_EQ(report->importances[0].importance,
            expected->importances[0].importance);
}

// Four ran to their end, at steps 70, 150, 90 and 110, 2 s a step: a full
// trial is 100 steps. Two stopped at step 25: 75 steps and 150 s each left
// unrun, times the job's 2 replicas and 2 GPUs.
TEST_P(StudyAnswersTest, SavingsUseTheStoredTrialsAndTheJobsFootprint) {
  StudyRecord study = Study("stopped");
  study.spec.enable_early_stopping = true;
  ASSERT_OK(store_->CreateStudy(study));
  AddTrials("stopped",
            {Ran(70, 140, false), Ran(150, 300, false), Ran(90, 180, false),
             Ran(110, 220, false), Ran(25, 50, true), Ran(25, 50, true)});
  ASSERT_OK(store_->CreateJob(JobWithTwoGpus("stopped")));
  absl::StatusOr<std::optional<StoppingSavings>> saved =
      StoreStudyAnswers(*store_).Savings("stopped");
  ASSERT_OK(saved.status());
  ASSERT_TRUE(saved->has_value());
  const StoppingSavings& s = **saved;
  EXPECT_EQ(s.trials_stopped, 2);
  EXPECT_EQ(s.steps_run, 470);
  EXPECT_EQ(s.steps_saved, 150.0);
  EXPECT_DOUBLE_EQ(*s.trial_seconds_saved, 300);
  EXPECT_DOUBLE_EQ(*s.replica_seconds_saved, 600);
  EXPECT_DOUBLE_EQ(*s.gpu_seconds_saved, 600);
}

// A running trial has no final measurement yet: its last report, from its
// curve, counts in the steps run.
TEST_P(StudyAnswersTest, ARunningTrialsLastReportCountsInTheStepsRun) {
  StudyRecord study = Study("running");
  study.spec.enable_early_stopping = true;
  ASSERT_OK(store_->CreateStudy(study));
  Trial running;
  running.state = TrialState::kActive;
  running.parameters = {{"lr", ParameterValue::Double(0.01)}};
  AddTrials("running", {Ran(40, 10, false), running});
  for (int64_t step : {5, 12}) {
    ASSERT_OK(store_->AddMeasurement(
        "running", 2, Measurement{.step = step, .metrics = {{"acc", 0.1}}}));
  }
  absl::StatusOr<std::optional<StoppingSavings>> saved =
      StoreStudyAnswers(*store_).Savings("running");
  ASSERT_OK(saved.status());
  ASSERT_TRUE(saved->has_value());
  EXPECT_EQ((*saved)->steps_run, 52);
  // Without a job: no replica-seconds.
  EXPECT_FALSE((*saved)->replica_seconds_saved.has_value());
}

TEST_P(StudyAnswersTest, SavingsShowOnlyWhereTheStudyStopsEarlyOrATrialWas) {
  ASSERT_OK(store_->CreateStudy(Study("plain")));
  AddTrials("plain", {Ran(40, 10, false)});
  StoreStudyAnswers answers(*store_);
  absl::StatusOr<std::optional<StoppingSavings>> none =
      answers.Savings("plain");
  ASSERT_OK(none.status());
  EXPECT_FALSE(none->has_value());
  // A client may stop its own trial without the study's rule.
  AddTrials("plain", {Ran(20, 10, true)});
  absl::StatusOr<std::optional<StoppingSavings>> some =
      answers.Savings("plain");
  ASSERT_OK(some.status());
  EXPECT_TRUE(some->has_value());
}

TEST_P(StudyAnswersTest, TheStudyShownSaysItsJobFailed) {
  ASSERT_OK(store_->CreateStudy(Study("j")));
  JobRecord job = JobWithTwoGpus("j");
  job.state = JobState::kFailed;
  job.error_message = "out of memory";
  ASSERT_OK(store_->CreateJob(job));
  absl::StatusOr<StudyRecord> shown = StoreStudyAnswers(*store_).Study("j");
  ASSERT_OK(shown.status());
  EXPECT_EQ(shown->state, StudyState::kFailed);
  EXPECT_EQ(shown->reason, "job FAILED: out of memory");
}

TEST_P(StudyAnswersTest, EachAnswerNamesAStudyThatIsNotThere) {
  StoreStudyAnswers answers(*store_);
  EXPECT_THAT(answers.Study("nope").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(answers.BestTrial("nope").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(answers.OptimalTrials("nope").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(answers.Importance("nope").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(answers.Savings("nope").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
}

INSTANTIATE_TEST_SUITE_P(
    Stores, StudyAnswersTest,
    ::testing::Values(StoreFactory([]() -> std::unique_ptr<store::Store> {
                        auto store = store::OpenSqliteStore(
                            testing::MakeTempDir() + "/h.db",
                            hptune::SystemClock());
                        return store.ok() ? *std::move(store) : nullptr;
                      }),
                      StoreFactory([] {
                        return store::NewMemoryStore(hptune::SystemClock());
                      })),
    [](const ::testing::TestParamInfo<StoreFactory>& info) {
      return info.index == 0 ? std::string("Sqlite") : std::string("Memory");
    });

}  // namespace
}  // namespace hptune::read
