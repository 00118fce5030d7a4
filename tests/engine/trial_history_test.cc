// TrialHistory gives what Store::ListTrialSummaries gives, reading only the
// trials that changed since its last call.
#include "src/engine/trial_history.h"

#include <chrono>
#include <string>

#include "gtest/gtest.h"
#include "hptune/env/clock.h"
#include "src/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;

// A MemoryStore that counts the trial reads TrialHistory makes.
class CountingStore : public store::MemoryStore {
 public:
  using MemoryStore::MemoryStore;
  absl::StatusOr<Trial> GetTrialSummary(std::string_view study,
                                        int64_t number) override {
    ++one_by_one;
    return Store::GetTrialSummary(study, number);
  }
  absl::StatusOr<std::vector<Trial>> ListTrialSummaries(
      std::string_view study) override {
    ++whole;
    return MemoryStore::ListTrialSummaries(study);
  }
  int one_by_one = 0;
  int whole = 0;
};

StudyRecord Study(const std::string& name, Timestamp created) {
  StudyRecord study;
  study.name = name;
  study.spec.search_space = SearchSpace({{.name = "lr",
                                          .type = ParameterType::kDouble,
                                          .min_value = 0,
                                          .max_value = 1}});
  study.spec.SetSingleMetric("loss");
  study.spec.max_trials = 100;
  study.spec.max_parallel_trials = 100;
  study.create_time = created;
  return study;
}

class TrialHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(store_.CreateStudy(Study("s", {}))); }

  // Adds `count` ACTIVE trials with lr 0, 0.01, ...
  void AddActive(int count) {
    std::vector<Trial> trials(count);
    for (int k = 0; k < count; ++k) {
      trials[k].parameters["lr"] = ParameterValue::Double(0.01 * k);
      trials[k].state = TrialState::kActive;
    }
    ASSERT_OK(store_.AddTrials("s", trials, std::nullopt));
  }
  void End(int64_t number, TrialState state) {
    ASSERT_OK(store_.UpdateTrial("s", number, [&](Trial& t) {
      if (state == TrialState::kSucceeded) {
        t.final_measurement = Measurement{.step = 1, .metrics = {{"loss", 1}}};
      }
      return t.TransitionTo(state, clock_.Now());
    }));
  }
  // Summaries() must equal the store's own answer.
  void ExpectAsTheStoreHasThem() {
    const int before = store_.whole;
    ASSERT_OK_AND_ASSIGN(std::vector<Trial> expected,
                         store_.ListTrialSummaries("s"));
    store_.whole = before;
    EXPECT_THAT(history_.Summaries("s"), IsOkAndHolds(expected));
  }

  FakeClock clock_;
  CountingStore store_{clock_};
  TrialHistory history_{store_, /*max_trials=*/1000};
};

TEST_F(TrialHistoryTest, EndedTrialsAreReadOnceAndPendingOnesEachTime) {
  AddActive(3);
  ExpectAsTheStoreHasThem();
  EXPECT_EQ(store_.one_by_one, 3);

  End(1, TrialState::kSucceeded);
  End(2, TrialState::kFailed);
  ASSERT_OK(
      store_.AddMeasurement("s", 3, {.step = 5, .metrics = {{"loss", 2}}}));
  store_.one_by_one = 0;
  ExpectAsTheStoreHasThem();
  EXPECT_EQ(store_.one_by_one, 3) << "the two that ended, and the pending one";

  store_.one_by_one = 0;
  ExpectAsTheStoreHasThem();
  EXPECT_EQ(store_.one_by_one, 1) << "the pending one alone";
  EXPECT_EQ(store_.whole, 0);
}

TEST_F(TrialHistoryTest, APendingTrialsChangesAreSeen) {
  AddActive(1);
  ExpectAsTheStoreHasThem();
  ASSERT_OK(store_.UpdateTrial("s", 1, [&](Trial& t) {
    t.attempt = 2;
    t.start_time = clock_.Now();
    return absl::OkStatus();
  }));
  ExpectAsTheStoreHasThem();
}

TEST_F(TrialHistoryTest, ManyTrialsToReadAreReadInOneGo) {
  AddActive(100);
  ExpectAsTheStoreHasThem();
  EXPECT_EQ(store_.whole, 1);
  EXPECT_EQ(store_.one_by_one, 0);
}

TEST_F(TrialHistoryTest, AStudyCreatedAgainUnderTheNameIsReadAfresh) {
  AddActive(2);
  End(1, TrialState::kSucceeded);
  ExpectAsTheStoreHasThem();

  ASSERT_OK(store_.DeleteStudy("s"));
  clock_.Advance(std::chrono::seconds(1));
  ASSERT_OK(store_.CreateStudy(Study("s", clock_.Now())));
  AddActive(1);
  End(1, TrialState::kCancelled);
  ExpectAsTheStoreHasThem();
}

TEST_F(TrialHistoryTest, AboveTheLimitItStillAnswersRight) {
  TrialHistory small(store_, /*max_trials=*/2);
  AddActive(5);
  for (int64_t n = 1; n <= 5; ++n) End(n, TrialState::kSucceeded);
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> expected,
                       store_.ListTrialSummaries("s"));
  for (int call = 0; call < 2; ++call) {
    EXPECT_THAT(small.Summaries("s"), IsOkAndHolds(expected));
  }
  EXPECT_THAT(small.Summaries("nope"), StatusIs(absl::StatusCode::kNotFound,
                                                "study \"nope\" not found"));
}

}  // namespace
}  // namespace hptune::engine
