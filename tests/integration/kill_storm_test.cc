// `hptune run` and `hptune serve`, each SIGKILLed 20 times at seeded random
// moments through a job of 16 trials, 3 in parallel, 4 replicas each
// (master and 3 workers), then left to finish the job: every trial ends
// SUCCEEDED, numbered 1..16; every report a trainer made is stored once,
// with the attempt that made it, and each attempt's reports are in step
// order without a repeat; no process of the job is left; the database
// passes SQLite's integrity_check. The moments are "after the next k
// reports" (k drawn from 1..12), so kills land mid-trial, right after a
// report, between trials and in the last trials alike. The serve storm runs
// a second time on a root server with two users' jobs of 8 trials through
// its socket, and then no zombie child is left. Labelled slow.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
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
#include "tests/testing/expected.h"

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
  // `ledgers`: whose reports count towards the next kill (ledger_ when
  // empty).
  void KillRepeatedly(const Runner& runner,
                      std::vector<std::string> ledgers = {}) {
    if (ledgers.empty()) ledgers = {ledger_};
    auto reports = [&] {
      size_t count = 0;
      for (const std::string& l : ledgers)
        count += testing::ReadLedger(l).size();
      return count;
    };
    std::mt19937 random(kSeed);
    std::uniform_int_distribution<int> reports_before_kill(1, 12);
    int kills = 0;
    while (kills < kKills) {
      const size_t kill_at = reports() + reports_before_kill(random);
      const pid_t pid = runner.start();
      ASSERT_GT(pid, 0);
      bool ended = false;
      ASSERT_TRUE(testing::PollUntil(
          [&] {
            if (reports() >= kill_at) return true;
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

  // What the job must look like once it has ended: `job`, of `count`
  // trials, whose trainers kept `ledger`.
  void ExpectTheWholeJobOnce(const std::string& db, const std::string& runs_dir,
                             const std::string& job = "crashy",
                             const std::string& ledger = "",
                             int count = kTrials) {
    auto store = store::SqliteStore::Open(db, hptune::SystemClock());
    ASSERT_TRUE(store.ok()) << store.status();
    auto listed = (*store)->ListTrials(job);
    ASSERT_TRUE(listed.ok()) << listed.status();
    const std::vector<Trial>& trials = *listed;
    ASSERT_EQ(trials.size(), static_cast<size_t>(count));
    std::map<std::tuple<int64_t, int64_t, double>, int> reported, stored;
    for (const testing::LedgerReport& r :
         testing::ReadLedger(ledger.empty() ? ledger_ : ledger)) {
      ++reported[{r.trial, r.step, r.value}];
    }
    for (int i = 0; i < count; ++i) {
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
    EXPECT_THAT(testing::ProcessesMentioning(ledger.empty() ? ledger_ : ledger),
                ::testing::IsEmpty());
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
    auto store = store::SqliteStore::Open(server.db(), hptune::SystemClock());
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

// The serve storm on a root server of two users: each user's job, submitted
// through the server's socket, runs as that user while the server is
// SIGKILLed twenty times; both end whole, nothing of them is left running,
// and the last server has collected every child (no zombie).
TEST_F(KillStormTest, AServerOfTwoUsersKilledTwentyTimesLosesNothing) {
  HPTUNE_SKIP_UNLESS_AVAILABLE(geteuid() == 0, "root",
                               "only root runs trials as other users");
  namespace fs = std::filesystem;
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  // Where the users' hptune runs from: the build tree may lie under a
  // directory only root enters.
  const std::string hptune = dir_ + "/hptune";
  fs::copy_file(testing::HptuneBinary(), hptune);
  ASSERT_EQ(chmod(hptune.c_str(), 0755), 0);
  struct User {
    uid_t uid;
    std::string job, ledger, config;
  };
  std::vector<User> users = {{64001, "alices"}, {64002, "bobs"}};
  constexpr int kUserTrials = 8;
  for (User& user : users) {
    const std::string home = dir_ + "/" + user.job;
    fs::create_directory(home);
    ASSERT_EQ(chown(home.c_str(), user.uid, user.uid), 0);
    user.ledger = home + "/ledger.txt";
    user.config = dir_ + "/" + user.job + ".yaml";
    WriteConfig({.more_args = ", --step_seconds=0.05",
                 .max_trials = kUserTrials,
                 .parallel = 2,
                 .workers = 1,
                 .path = user.config,
                 .ledger = user.ledger,
                 .python = "/usr/bin/python3"});
    ASSERT_EQ(chmod(user.config.c_str(), 0644), 0);
  }
  const std::string socket = dir_ + "/hptune.sock";
  testing::ServeProcess server(
      dir_ + "/server",
      {"--socket", socket, "--max-retries", kRetries, "--grace-seconds", "1"});
  fs::create_directory(dir_ + "/server");
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  for (const User& user : users) {
    testing::ProcessResult submit = testing::RunProcessWithEnv(
        {"/usr/bin/setpriv", "--reuid=" + std::to_string(user.uid),
         "--regid=" + std::to_string(user.uid), "--clear-groups", hptune,
         "jobs", "submit", user.job, "--config", user.config, "--server",
         "unix:" + socket},
        {"HOME=" + dir_, "HPTUNE_CONFIG_DIR", "HPTUNE_TOKEN"});
    ASSERT_EQ(submit.exit_code, 0) << submit.err << server.Output();
  }
  auto all_succeeded = [&] {
    auto store = store::SqliteStore::Open(server.db(), hptune::SystemClock());
    if (!store.ok()) return false;
    for (const User& user : users) {
      auto job = (*store)->GetJob(user.job);
      if (!job.ok() || job->state != JobState::kSucceeded) return false;
    }
    return true;
  };
  ASSERT_NO_FATAL_FAILURE(KillRepeatedly(
      {.start =
           [&] {
             if (server.pid() > 0) return server.pid();
             return server.Start(&error) ? server.pid() : pid_t{-1};
           },
       .kill = [&](pid_t) { server.Stop(SIGKILL); },
       .ended = [&](pid_t) { return all_succeeded(); }},
      {users[0].ledger, users[1].ledger}))
      << error;
  if (server.pid() <= 0) {  // The last kill's.
    ASSERT_TRUE(server.Start(&error)) << error;
  }
  ASSERT_TRUE(testing::PollUntil(all_succeeded, std::chrono::seconds(180)))
      << server.Output();
  for (const User& user : users) {
    SCOPED_TRACE(user.job);
    ExpectTheWholeJobOnce(server.db(), server.runs_dir(), user.job, user.ledger,
                          kUserTrials);
    // Its trials ran as its user.
    struct stat info {};
    ASSERT_EQ(stat((server.runs_dir() + "/" + user.job + "/1").c_str(), &info),
              0);
    EXPECT_EQ(info.st_uid, user.uid);
  }
  std::vector<pid_t> zombies;
  EXPECT_TRUE(testing::PollUntil(
      [&] {
        zombies = testing::ZombieChildrenOf(server.pid());
        return zombies.empty();
      },
      std::chrono::seconds(30)))
      << zombies.size() << " zombie children of the server";
}

}  // namespace
}  // namespace hptune
