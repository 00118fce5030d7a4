// CachedStudyAnswers keeps each study's answers until the store's event log
// names the study: it computes again after a new trial, a measurement or a
// new state, and not otherwise. A counting wrapper of the real
// StoreStudyAnswers counts the computations.
#include "hptune/read/cached_study_answers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::read {
namespace {

using ::hptune_testing::StatusHasCode;

// Counts each answer asked of it, by kind, and passes it on.
class CountingAnswers final : public StudyAnswers {
 public:
  explicit CountingAnswers(store::Store& store) : inner_(store) {}
  std::map<std::string, int> counts;

  absl::StatusOr<StudyRecord> Study(std::string_view study) override {
    ++counts["study"];
    return inner_.Study(study);
  }
  absl::StatusOr<std::optional<Trial>> BestTrial(
      std::string_view study) override {
    ++counts["best"];
    return inner_.BestTrial(study);
  }
  absl::StatusOr<std::vector<Trial>> OptimalTrials(
      std::string_view study) override {
    ++counts["optimal"];
    return inner_.OptimalTrials(study);
  }
  absl::StatusOr<algorithms::ImportanceReport> Importance(
      std::string_view study) override {
    ++counts["importance"];
    return inner_.Importance(study);
  }
  absl::StatusOr<std::optional<StoppingSavings>> Savings(
      std::string_view study) override {
    ++counts["savings"];
    return inner_.Savings(study);
  }

 private:
  StoreStudyAnswers inner_;
};

StudyRecord Study(const std::string& name) {
  StudyRecord study;
  study.name = name;
  study.spec.SetSingleMetric("acc");
  study.spec.max_trials = 50;
  study.spec.enable_early_stopping = true;
  study.spec.search_space = SearchSpace({{.name = "lr",
                                          .type = ParameterType::kDouble,
                                          .min_value = 1e-4,
                                          .max_value = 1,
                                          .scale = ScaleType::kLog}});
  return study;
}

Trial Finished(double acc) {
  Trial trial;
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"lr", ParameterValue::Double(0.01)}};
  trial.final_measurement = Measurement{.step = 10, .metrics = {{"acc", acc}}};
  return trial;
}

class CachedStudyAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::OpenSqliteStore(testing::MakeTempDir() + "/h.db",
                                        hptune::SystemClock());
    ASSERT_OK(store.status());
    store_ = *std::move(store);
    for (const char* name : {"a", "b"}) {
      ASSERT_OK(store_->CreateStudy(Study(name)));
      Add(name, Finished(0.5));
    }
    auto counting = std::make_unique<CountingAnswers>(*store_);
    counting_ = counting.get();
    auto cached = CachedStudyAnswers::Create(*store_, std::move(counting));
    ASSERT_OK(cached.status());
    cached_ = *std::move(cached);
  }
  void Add(const std::string& study, Trial trial) {
    ASSERT_OK(store_->AddTrials(study, {std::move(trial)}, std::nullopt));
  }
  // Asks every kept answer about `study`.
  void AskAll(const std::string& study) {
    EXPECT_OK(cached_->BestTrial(study).status());
    EXPECT_OK(cached_->OptimalTrials(study).status());
    EXPECT_OK(cached_->Importance(study).status());
    EXPECT_OK(cached_->Savings(study).status());
  }
  std::map<std::string, int> Computed() const { return counting_->counts; }
  static std::map<std::string, int> Each(int n) {
    return {{"best", n}, {"optimal", n}, {"importance", n}, {"savings", n}};
  }

  std::unique_ptr<store::Store> store_;
  CountingAnswers* counting_ = nullptr;
  std::unique_ptr<CachedStudyAnswers> cached_;
};

TEST_F(CachedStudyAnswersTest, AStudyThatDidNotChangeIsNotComputedAgain) {
  AskAll("a");
  AskAll("a");
  AskAll("a");
  EXPECT_EQ(Computed(), Each(1));
  absl::StatusOr<std::optional<Trial>> best = cached_->BestTrial("a");
  ASSERT_OK(best.status());
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->number, 1);
}

TEST_F(CachedStudyAnswersTest, ANewTrialIsSeen) {
  AskAll("a");
  Add("a", Finished(0.9));
  AskAll("a");
  EXPECT_EQ(Computed(), Each(2));
  absl::StatusOr<std::optional<Trial>> best = cached_->BestTrial("a");
  ASSERT_OK(best.status());
  EXPECT_EQ((*best)->number, 2);
}

TEST_F(CachedStudyAnswersTest, AMeasurementAndANewStateAreSeen) {
  Trial running;
  running.state = TrialState::kActive;
  running.parameters = {{"lr", ParameterValue::Double(0.1)}};
  Add("a", running);
  AskAll("a");
  ASSERT_OK(store_->AddMeasurement(
      "a", 2, Measurement{.step = 30, .metrics = {{"acc", 0.2}}}));
  absl::StatusOr<std::optional<StoppingSavings>> saved = cached_->Savings("a");
  ASSERT_OK(saved.status());
  EXPECT_EQ((*saved)->steps_run, 40);  // 10 + the running trial's 30.
  EXPECT_EQ(Computed()["savings"], 2);
  ASSERT_OK(store_->UpdateTrial("a", 2, [](Trial& t) {
    return t.TransitionTo(TrialState::kFailed, SystemClock().Now());
  }));
  AskAll("a");
  // Savings were asked after the measurement too; the others were not.
  EXPECT_EQ(
      Computed(),
      (std::map<std::string, int>{
          {"best", 2}, {"optimal", 2}, {"importance", 2}, {"savings", 3}}));
}

TEST_F(CachedStudyAnswersTest, AnotherStudysChangeKeepsThisOnesAnswers) {
  AskAll("a");
  AskAll("b");
  Add("b", Finished(0.7));
  AskAll("a");
  EXPECT_EQ(Computed()["importance"], 2);  // a once, b once.
  AskAll("b");
  EXPECT_EQ(Computed(), Each(3));
}

TEST_F(CachedStudyAnswersTest, AStudyDeletedAndMadeAgainIsComputedAfresh) {
  AskAll("a");
  ASSERT_OK(store_->DeleteStudy("a"));
  EXPECT_THAT(cached_->BestTrial("a").status(),
              StatusHasCode(absl::StatusCode::kNotFound));
  ASSERT_OK(store_->CreateStudy(Study("a")));
  absl::StatusOr<std::optional<Trial>> best = cached_->BestTrial("a");
  ASSERT_OK(best.status());
  EXPECT_FALSE(best->has_value());
}

TEST_F(CachedStudyAnswersTest, ErrorsAreNotKeptAndTheStudyIsPassedThrough) {
  EXPECT_FALSE(cached_->Importance("missing").ok());
  EXPECT_FALSE(cached_->Importance("missing").ok());
  EXPECT_EQ(Computed()["importance"], 2);
  ASSERT_OK(cached_->Study("a").status());
  ASSERT_OK(cached_->Study("a").status());
  EXPECT_EQ(Computed()["study"], 2);
}

}  // namespace
}  // namespace hptune::read
