// SnapshotAnswers gives the answers StoreStudyAnswers gives, from the
// dashboard's snapshot of a real SQLite study: a running trial's steps come
// from its curve, a failed trial counts in no answer.
#include "src/dashboard/snapshot_answers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

Trial Finished(int64_t number, double acc, int64_t step, bool stopped) {
  Trial trial;
  trial.number = number;
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"lr", ParameterValue::Double(0.01 * number)}};
  trial.final_measurement =
      Measurement{.step = step, .metrics = {{"acc", acc}}};
  trial.stopped_early = stopped;
  trial.start_time = FromUnixMicros(1'700'000'000'000'000);
  trial.end_time = *trial.start_time + std::chrono::seconds(step);
  return trial;
}

std::vector<int64_t> Numbers(const std::vector<Trial>& trials) {
  std::vector<int64_t> numbers;
  for (const Trial& trial : trials) numbers.push_back(trial.number);
  return numbers;
}

TEST(SnapshotAnswersTest, AnswersAsTheStoreDoes) {
  const std::filesystem::path db =
      std::filesystem::temp_directory_path() /
      ("snapshot_answers_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(db);
  auto store = store::OpenSqliteStore(db.string(), SystemClock());
  ASSERT_OK(store.status());
  StudyRecord study;
  study.name = "s";
  study.spec.SetSingleMetric("acc", Goal::kMaximize);
  study.spec.enable_early_stopping = true;
  study.spec.search_space = SearchSpace({{.name = "lr",
                                          .type = ParameterType::kDouble,
                                          .min_value = 1e-4,
                                          .max_value = 1}});
  ASSERT_OK((*store)->CreateStudy(study));
  Trial running;
  running.state = TrialState::kActive;
  running.parameters = {{"lr", ParameterValue::Double(0.5)}};
  ASSERT_OK((*store)
                ->AddTrials(
                    "s",
                    {Finished(1, 0.5, 100, false), Finished(2, 0.9, 120, false),
                     Finished(3, 0.7, 30, true), running},
                    std::nullopt)
                .status());
  ASSERT_OK((*store)->AddMeasurement(
      "s", 4, Measurement{.step = 40, .metrics = {{"acc", 0.6}}}));

  auto cache = StudyCache::Create(**store);
  ASSERT_OK(cache.status());
  ChangeStream changes(**store, *std::move(cache), std::chrono::seconds(1), 1,
                       DefaultEnv());
  SnapshotAnswers from_snapshot(**store, changes);
  read::StoreStudyAnswers from_store(**store);

  auto best = from_snapshot.BestTrial("s");
  ASSERT_OK(best.status());
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->number, 2);
  auto optimal = from_snapshot.OptimalTrials("s");
  ASSERT_OK(optimal.status());
  EXPECT_EQ(Numbers(*optimal), Numbers(*from_store.OptimalTrials("s")));
  auto savings = from_snapshot.Savings("s");
  auto expected = from_store.Savings("s");
  ASSERT_OK(savings.status());
  ASSERT_OK(expected.status());
  ASSERT_TRUE(savings->has_value() && expected->has_value());
  EXPECT_EQ((*savings)->trials, (*expected)->trials);
  EXPECT_EQ((*savings)->trials_stopped, 1);
  EXPECT_EQ((*savings)->steps_run, (*expected)->steps_run);
  EXPECT_EQ((*savings)->steps_saved, (*expected)->steps_saved);
  auto importance = from_snapshot.Importance("s");
  ASSERT_OK(importance.status());
  EXPECT_EQ(importance->trials, from_store.Importance("s")->trials);
  EXPECT_TRUE(absl::IsNotFound(from_snapshot.BestTrial("gone").status()));
  changes.Stop();
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace hptune::dashboard
