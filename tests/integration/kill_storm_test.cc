// `hptune run` and `hptune serve`, each SIGKILLed 20 times at seeded random
// moments through a job of 16 trials, 3 in parallel, 4 replicas each
// (master and 3 workers), then left to finish the job: every trial ends
// SUCCEEDED, numbered 1..16; every report a trainer made is stored once,
// with the attempt that made it, and each attempt's reports are in step
// order without a repeat; no process of the job is left; the database
// passes SQLite's integrity_check. The moments are "after the next k
// reports" (k drawn from 1..12), so kills land mid-trial, right after a
// report, between trials and in the last trials alike. Labelled slow.
#include <sqlite3.h>

#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/run_crash_fixture.h"
#include "tests/integration/testdata/ledger.h"

namespace hptune {
namespace {

constexpr int kTrials = 16;
constexpr int kKills = 20;
constexpr unsigned kSeed = 20261124;

std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  std::string result;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_exec(
        db, "PRAGMA integrity_check",
        [](void* out, int, char** values, char**) {
          *static_cast<std::string*>(out) += values[0] ? values[0] : "";
          return 0;
        },
        &result, nullptr);
  }
  sqlite3_close(db);
  return result;
}

class KillStormTest : public testing::RunCrashFixture {
 protected:
  void SetUp() override {
    RunCrashFixture::SetUp();
    WriteConfig({.more_args = ", --step_seconds=0.05",
                 .max_trials = kTrials,
                 .parallel = 3,
                 .workers = 3});
  }

  // Starts a runner, kills it with SIGKILL after the next k reports, and
  // again, kKills times, unless the job ends first (`ended`). The last one
  // killed stays dead.
  struct Runner {
    std::function<pid_t()> start;
    std::function<void(pid_t)> kill;
    std::function<bool(pid_t)> ended;
  };
  void KillRepeatedly(const Runner& runner) {
    std::mt19937 random(kSeed);
    std::uniform_int_distribution<int> reports_before_kill(1, 12);
    int kills = 0;
    while (kills < kKills) {
      const size_t kill_at =
          testing::ReadLedger(ledger_).size() + reports_before_kill(random);
      const pid_t pid = runner.start();
      ASSERT_GT(pid, 0);
      bool ended = false;
      ASSERT_TRUE(testing::PollUntil(
          [&] {
            if (testing::ReadLedger(ledger_).size() >= kill_at) return true;
            return ended = runner.ended(pid);
          },
          std::chrono::seconds(120)))
          << testing::ReadFileOrEmpty(dir_ + "/err");
      if (ended) break;
      ASSERT_NO_FATAL_FAILURE(runner.kill(pid));
      ++kills;
    }
    EXPECT_EQ(kills, kKills) << "the job ended first";
  }

  // What the job must look like once it has ended.
  void ExpectTheWholeJobOnce(const std::string& db,
                             const std::string& runs_dir) {
    auto store = store::SqliteStore::Open(db);
    ASSERT_TRUE(store.ok()) << store.status();
    auto listed = (*store)->ListTrials("crashy");
    ASSERT_TRUE(listed.ok()) << listed.status();
    const std::vector<Trial>& trials = *listed;
    ASSERT_EQ(trials.size(), static_cast<size_t>(kTrials));
    std::map<std::tuple<int64_t, int64_t, double>, int> reported, stored;
    for (const testing::LedgerReport& r : testing::ReadLedger(ledger_)) {
      ++reported[{r.trial, r.step, r.value}];
    }
    for (int i = 0; i < kTrials; ++i) {
      const Trial& trial = trials[i];
      EXPECT_EQ(trial.number, i + 1);
      EXPECT_EQ(trial.state, TrialState::kSucceeded) << trial.reason;
      ASSERT_TRUE(trial.final_measurement.has_value()) << trial.number;
      EXPECT_EQ(trial.final_measurement->step, 8);
      EXPECT_EQ(trial.final_measurement->attempt, trial.attempt);
      // Attempts in order; within one, steps 1, 2, ... once each.
      int attempt = 0;
      int64_t step = 0;
      for (const Measurement& m : trial.measurements) {
        ++stored[{trial.number, m.step, m.metrics.at("loss")}];
        ASSERT_GE(m.attempt, attempt) << "trial " << trial.number;
        if (m.attempt > attempt) step = 0;
        attempt = m.attempt;
        EXPECT_EQ(m.step, step + 1)
            << "trial " << trial.number << " attempt " << attempt;
        step = m.step;
      }
      EXPECT_EQ(attempt, trial.attempt) << "trial " << trial.number;
    }
    EXPECT_EQ(stored, reported);
    EXPECT_TRUE(testing::ReplicasUnder(runs_dir).empty());
    EXPECT_THAT(testing::ProcessesMentioning(ledger_), ::testing::IsEmpty());
    EXPECT_EQ(IntegrityCheck(db), "ok");
  }
};

// Each kill costs the running trials an attempt: enough retries that none
// runs out (that limit has its tests in run_crash_test.cc).
constexpr char kRetries[] = "40";

TEST_F(KillStormTest, ARunKilledTwentyTimesLosesNothingAndLeavesNothing) {
  std::vector<std::string> argv = Argv();
  argv.insert(argv.end(), {"--max-retries", kRetries});
  ASSERT_NO_FATAL_FAILURE(KillRepeatedly(
      {.start = [&] { return StartRun(argv); },
       .kill = [&](pid_t run) { Kill(run); },
       .ended =
           [](pid_t run) { return waitpid(run, nullptr, WNOHANG) == run; }}));

  testing::ProcessResult last = testing::RunProcess(argv);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  ExpectTheWholeJobOnce(db(), runs());
}

TEST_F(KillStormTest, AServerKilledTwentyTimesLosesNothingAndLeavesNothing) {
  testing::ServeProcess server(
      testing::MakeTempDir(),
      {"--max-retries", kRetries, "--grace-seconds", "1"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  testing::ProcessResult submit =
      testing::RunProcess({testing::HptuneBinary(), "jobs", "submit", "crashy",
                           "--config", config_, "--server", server.address()});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;

  auto job_state = [&] {
    auto store = store::SqliteStore::Open(server.db());
    if (!store.ok()) return JobState::kQueued;
    auto job = (*store)->GetJob("crashy");
    return job.ok() ? job->state : JobState::kQueued;
  };
  ASSERT_NO_FATAL_FAILURE(KillRepeatedly(
      {.start =
           [&] {
             if (server.pid() > 0) return server.pid();  // The first.
             return server.Start(&error) ? server.pid() : pid_t{-1};
           },
       .kill = [&](pid_t) { server.Stop(SIGKILL); },
       .ended = [&](pid_t) { return job_state() == JobState::kSucceeded; }}))
      << error;

  if (server.pid() <= 0) {  // The last kill's.
    ASSERT_TRUE(server.Start(&error)) << error;
  }
  ASSERT_TRUE(
      testing::PollUntil([&] { return job_state() == JobState::kSucceeded; },
                         std::chrono::seconds(120)))
      << server.Output();
  ExpectTheWholeJobOnce(server.db(), server.runs_dir());
}

}  // namespace
}  // namespace hptune
