// Leases of ask/tell trials (TuningEngine::SuggestTrials with a lease,
// RenewLeases): the logic on a fake clock, and their persistence in a real
// SQLite file across a restart.
#include <chrono>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "src/store/sqlite_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int kLease = 60;

StudySpec RandomSpec(int max_parallel) {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "lr",
                                    .type = ParameterType::kDouble,
                                    .min_value = 0.001,
                                    .max_value = 0.1}});
  spec.SetSingleMetric("accuracy", Goal::kMaximize);
  spec.max_trials = 20;
  spec.max_parallel_trials = max_parallel;
  spec.algorithm = Algorithm::kRandomSearch;
  spec.seed = 1;
  return spec;
}

class EngineLeasesTest : public ::testing::Test {
 protected:
  // The one trial handed to `client` with a lease.
  Trial AskOne(const std::string& client) {
    auto response = engine_.SuggestTrials("s", 1, client, kLease);
    EXPECT_OK(response);
    if (!response.ok() || response->trials.size() != 1) {
      ADD_FAILURE() << client << " got no trial";
      return Trial{};
    }
    return response->trials.front();
  }
  TrialState StateOf(int64_t trial) {
    auto read = engine_.GetTrial("s", trial);
    EXPECT_OK(read);
    return read.ok() ? read->state : TrialState::kRequested;
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  TuningEngine engine_{store_, clock_};
};

TEST_F(EngineLeasesTest, ALapsedLeaseEndsTheTrialAsFailedNamingTheClient) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(5)));
  const Trial trial = AskOne("worker-a");
  clock_.Advance(seconds(kLease));
  EXPECT_EQ(StateOf(trial.number), TrialState::kActive);
  clock_.Advance(seconds(1));
  ASSERT_OK_AND_ASSIGN(Trial ended, engine_.GetTrial("s", trial.number));
  EXPECT_EQ(ended.state, TrialState::kFailed);
  EXPECT_EQ(ended.reason,
            "no heartbeat from client \"worker-a\" for 61 s (its lease is 60 "
            "s)");
  EXPECT_EQ(ended.end_time, clock_.Now());
}

TEST_F(EngineLeasesTest, RenewingKeepsTheTrialAndALapsedLeaseStaysEnded) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(5)));
  const Trial trial = AskOne("worker-a");
  const Trial other = AskOne("worker-b");
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(seconds(kLease - 10));
    ASSERT_OK_AND_ASSIGN(std::vector<Trial> renewed,
                         engine_.RenewLeases("s", "worker-a"));
    ASSERT_THAT(renewed, SizeIs(1));
    EXPECT_EQ(renewed.front().number, trial.number);
  }
  EXPECT_EQ(StateOf(trial.number), TrialState::kActive);
  // worker-b sent nothing: its lease lapsed long ago, and is not revived.
  EXPECT_EQ(StateOf(other.number), TrialState::kFailed);
  EXPECT_THAT(*engine_.RenewLeases("s", "worker-b"), IsEmpty());
  clock_.Advance(seconds(kLease + 1));
  EXPECT_THAT(*engine_.RenewLeases("s", "worker-a"), IsEmpty());
  EXPECT_EQ(StateOf(trial.number), TrialState::kFailed);
}

TEST_F(EngineLeasesTest, ALapsedLeaseFreesItsSlotForAnotherClient) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(1)));
  const Trial trial = AskOne("worker-a");
  ASSERT_OK_AND_ASSIGN(SuggestResponse none,
                       engine_.SuggestTrials("s", 1, "worker-b", kLease));
  EXPECT_THAT(none.trials, IsEmpty());
  EXPECT_THAT(none.note, HasSubstr("maxParallelTrials"));
  clock_.Advance(seconds(kLease + 1));
  const Trial next = AskOne("worker-b");
  EXPECT_NE(next.number, trial.number);
  EXPECT_EQ(StateOf(trial.number), TrialState::kFailed);
}

TEST_F(EngineLeasesTest, AClientBackInTimeGetsItsTrialBackWithANewLease) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(5)));
  const Trial trial = AskOne("worker-a");
  clock_.Advance(seconds(kLease - 1));
  EXPECT_EQ(AskOne("worker-a").number, trial.number);
  clock_.Advance(seconds(kLease - 1));
  EXPECT_EQ(StateOf(trial.number), TrialState::kActive);
  EXPECT_EQ(AskOne("worker-a").number, trial.number);
}

TEST_F(EngineLeasesTest, TrialsWithoutALeaseNeverLapse) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(5)));
  ASSERT_OK(engine_.SuggestTrials("s", 1, "runner-slot-0"));
  clock_.Advance(seconds(7 * 24 * 3600));
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, engine_.ListTrials("s"));
  ASSERT_THAT(trials, SizeIs(1));
  EXPECT_EQ(trials.front().state, TrialState::kActive);
}

// A study's own lease (StudySpec::trial_lease_seconds) is the one its
// trials get, over the caller's; 0 means none.
TEST_F(EngineLeasesTest, TheStudysOwnLeaseIsTheOneItsTrialsGet) {
  StudySpec spec = RandomSpec(5);
  spec.trial_lease_seconds = 5;
  ASSERT_OK(engine_.CreateStudy("s", spec));
  ASSERT_OK_AND_ASSIGN(SuggestResponse response,
                       engine_.SuggestTrials("s", 1, "worker-a", kLease));
  EXPECT_EQ(response.lease_seconds, 5);
  ASSERT_THAT(response.trials, SizeIs(1));
  const int64_t trial = response.trials.front().number;
  clock_.Advance(seconds(6));
  ASSERT_OK_AND_ASSIGN(Trial ended, engine_.GetTrial("s", trial));
  EXPECT_EQ(ended.state, TrialState::kFailed);
  EXPECT_THAT(ended.reason, HasSubstr("(its lease is 5 s)"));

  spec.trial_lease_seconds = 0;
  ASSERT_OK(engine_.CreateStudy("none", spec));
  ASSERT_OK_AND_ASSIGN(response,
                       engine_.SuggestTrials("none", 1, "worker-a", kLease));
  EXPECT_EQ(response.lease_seconds, 0);
  clock_.Advance(seconds(2 * kLease));
  ASSERT_OK_AND_ASSIGN(
      Trial held, engine_.GetTrial("none", response.trials.front().number));
  EXPECT_EQ(held.state, TrialState::kActive);
}

TEST_F(EngineLeasesTest, ALeaseOutOfRangeIsRefusedNamingTheValue) {
  ASSERT_OK(engine_.CreateStudy("s", RandomSpec(5)));
  auto response = engine_.SuggestTrials("s", 1, "a", 90'000);
  EXPECT_TRUE(absl::IsInvalidArgument(response.status()));
  EXPECT_THAT(std::string(response.status().message()), HasSubstr("90000"));
}

TEST(EngineLeasesSqliteTest, ARestartedEngineStillEndsALapsedTrial) {
  const std::string path = ::hptune::testing::MakeTempDir() + "/hptune.db";
  FakeClock clock;
  int64_t number = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto store, store::SqliteStore::Open(path, clock));
    TuningEngine engine(*store, clock);
    ASSERT_OK(engine.CreateStudy("s", RandomSpec(1)));
    ASSERT_OK_AND_ASSIGN(SuggestResponse response,
                         engine.SuggestTrials("s", 1, "worker-a", kLease));
    number = response.trials.front().number;
  }
  clock.Advance(seconds(kLease + 5));
  ASSERT_OK_AND_ASSIGN(auto store, store::SqliteStore::Open(path, clock));
  TuningEngine engine(*store, clock);
  // A new trial for worker-b in the only slot: worker-a's was freed.
  ASSERT_OK_AND_ASSIGN(SuggestResponse next,
                       engine.SuggestTrials("s", 1, "worker-b", kLease));
  ASSERT_THAT(next.trials, SizeIs(1));
  ASSERT_OK_AND_ASSIGN(Trial ended, engine.GetTrial("s", number));
  EXPECT_EQ(ended.state, TrialState::kFailed);
  EXPECT_THAT(ended.reason, HasSubstr("\"worker-a\" for 65 s"));
}

}  // namespace
}  // namespace hptune::engine
