// Crash safety of `hptune run`: the run is SIGKILLed twice while trials run
// (once mid-trial, once right after a measurement was reported) and run
// again with the same --job-id and --db, as a user would after a crash. The
// job must end with exactly maxTrials trials numbered 1..maxTrials, every
// measurement the trainer reported stored once, and no trainer left
// behind: the guarantees `hptune serve` gives (serve_crash_test.cc), through
// the same take-over code (src/jobs/take_over.h).
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/run_crash_fixture.h"
#include "tests/integration/testdata/ledger.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::ReadLedger;
using Report = testing::LedgerReport;

class RunCrashTest : public testing::RunCrashFixture {};

TEST_F(RunCrashTest, AKilledRunResumesTheJobWithoutLossDuplicatesOrOrphans) {
  // Kill 1: mid-trial, once the first trial has stored two measurements.
  pid_t run = StartRun();
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        auto trials = Trials();
        return !trials.empty() && trials[0].measurements.size() >= 2;
      },
      std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(dir_ + "/err");
  ASSERT_NO_FATAL_FAILURE(Kill(run));
  // Its trainers outlive it: orphans unless the next run stops them.
  EXPECT_FALSE(testing::ReplicasUnder(runs()).empty());

  // Kill 2: right after the trainer reported a measurement (the ledger is
  // written just after the report reaches the metric file).
  run = StartRun();
  const size_t reported_before = ReadLedger(ledger_).size();
  ASSERT_TRUE(testing::PollUntil(
      [&] { return ReadLedger(ledger_).size() > reported_before + 2; },
      std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(dir_ + "/err");
  ASSERT_NO_FATAL_FAILURE(Kill(run));

  testing::ProcessResult last = testing::RunProcess(Argv());
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_THAT(last.err, ::testing::HasSubstr("resuming job crashy"));

  const std::vector<Trial> trials = Trials();
  ASSERT_EQ(trials.size(), static_cast<size_t>(kMaxTrials));
  for (int i = 0; i < kMaxTrials; ++i) {
    EXPECT_EQ(trials[i].number, i + 1);  // Dense, none counted twice.
    EXPECT_EQ(trials[i].state, TrialState::kSucceeded) << trials[i].reason;
    ASSERT_TRUE(trials[i].final_measurement.has_value());
    EXPECT_EQ(trials[i].final_measurement->step, 8);
  }
  // Every report the trainers made is stored with its trial, once: a report
  // made before a crash is neither lost nor read again by the re-run (the
  // re-run itself reports the same steps again, and those count too).
  std::map<std::tuple<int64_t, int64_t, double>, int> reported, stored;
  for (const Report& r : ReadLedger(ledger_)) {
    ++reported[{r.trial, r.step, r.value}];
  }
  for (const Trial& trial : trials) {
    for (const Measurement& m : trial.measurements) {
      ++stored[{trial.number, m.step, m.metrics.at("loss")}];
    }
  }
  EXPECT_EQ(stored, reported);
  EXPECT_TRUE(testing::ReplicasUnder(runs()).empty());
}

// The same command again while the first run lives is a user's mistake,
// not a crash: it must neither stop the live run's replicas nor charge its
// attempts with a death that did not happen.
TEST_F(RunCrashTest, ASecondRunOfALiveJobRefusesAndLeavesItAlone) {
  // The trainers live until the second run is done, however slow it is.
  const std::string release = dir_ + "/release";
  WriteConfig({.more_args = ", --hold=" + release});
  const pid_t run = StartRun();
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        auto trials = Trials();
        return !trials.empty() && !trials[0].measurements.empty();
      },
      std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(dir_ + "/err");
  const std::set<pid_t> replicas = testing::ReplicasUnder(runs());
  ASSERT_FALSE(replicas.empty());

  testing::ProcessResult second = testing::RunProcess(Argv());
  EXPECT_EQ(second.exit_code, 75) << second.err;
  EXPECT_THAT(second.err,
              ::testing::HasSubstr("job crashy is being run by a live "
                                   "process (pid " +
                                   std::to_string(run)));
  for (pid_t replica : replicas) {
    EXPECT_EQ(kill(replica, 0), 0) << "replica " << replica << " was stopped";
  }
  std::ofstream(release).close();

  int status = 0;
  ASSERT_EQ(waitpid(run, &status, 0), run);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << testing::ReadFileOrEmpty(dir_ + "/err");
  const std::vector<Trial> trials = Trials();
  ASSERT_EQ(trials.size(), static_cast<size_t>(kMaxTrials));
  for (const Trial& trial : trials) {
    EXPECT_EQ(trial.state, TrialState::kSucceeded) << trial.reason;
    EXPECT_EQ(trial.attempt, 1) << "trial " << trial.number;
  }
}

TEST_F(RunCrashTest, RunsThatDieCannotRerunATrialWithoutEnd) {
  // One trial, long enough to be killed in; 2 attempts (--max-retries 1).
  WriteConfig({.more_args = ", --steps=600", .max_trials = 1, .parallel = 1});
  std::vector<std::string> argv = Argv();
  argv.insert(argv.end(), {"--max-retries", "1"});
  auto reported_in_attempt = [&](int attempt) {
    auto trials = Trials();
    if (trials.empty()) return false;
    for (const Measurement& m : trials[0].measurements) {
      if (m.attempt == attempt) return true;
    }
    return false;
  };
  for (int attempt : {1, 2}) {
    pid_t run = StartRun(argv);
    ASSERT_TRUE(testing::PollUntil([&] { return reported_in_attempt(attempt); },
                                   std::chrono::seconds(60)))
        << testing::ReadFileOrEmpty(dir_ + "/err");
    ASSERT_NO_FATAL_FAILURE(Kill(run));
  }

  // Both attempts died with their runner: the next run fails the trial
  // instead of starting it a third time.
  testing::ProcessResult last = testing::RunProcess(argv);
  EXPECT_NE(last.exit_code, 0) << last.err;
  const std::vector<Trial> trials = Trials();
  ASSERT_FALSE(trials.empty());
  EXPECT_EQ(trials[0].state, TrialState::kFailed);
  EXPECT_EQ(trials[0].attempt, 2);
  EXPECT_EQ(trials[0].reason,
            "its runner died mid-attempt: killed, out of memory or a reboot "
            "(attempt 2 of 2)");
  std::set<int> attempts;
  for (const Measurement& m : trials[0].measurements)
    attempts.insert(m.attempt);
  EXPECT_THAT(attempts, ::testing::ElementsAre(1, 2));
  EXPECT_TRUE(testing::ReplicasUnder(runs()).empty());
  // Each report with its attempt, as users see them.
  testing::ProcessResult curve = testing::RunProcess(
      {testing::HptuneBinary(), "trials", "describe", "1", "--study", "crashy",
       "--db", dir_ + "/h.db", "--format", "csv"});
  ASSERT_EQ(curve.exit_code, 0) << curve.err;
  EXPECT_THAT(curve.out,
              ::testing::StartsWith("attempt,step,time,loss\r\n1,1,"));
  EXPECT_THAT(curve.out, ::testing::HasSubstr("\r\n2,1,"));
}

TEST_F(RunCrashTest, DaemonsThatLeftTheirTrialEndAfterACrashAndWithTheTrial) {
  // Each trial's trainer starts a daemon: own session, SIGTERM ignored, no
  // environment, so neither its process group nor the HPTUNE_REPLICA marker
  // reaches it. Only the trial's cgroup does.
  const std::string tag = "escaped-daemon-" + dir_;
  WriteConfig({.more_args = ", --daemon=" + tag});
  testing::KillProcessesMentioning cleanup(tag);  // However it ends.

  pid_t run = StartRun();
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        auto trials = Trials();
        return !trials.empty() && !trials[0].measurements.empty() &&
               !testing::ProcessesMentioning("daemon:" + tag).empty();
      },
      std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(dir_ + "/err");
  const std::string started = testing::ReadFileOrEmpty(dir_ + "/err");
  ASSERT_NO_FATAL_FAILURE(Kill(run));
  HPTUNE_SKIP_UNLESS_AVAILABLE(
      started.find("contained by cgroup v2") != std::string::npos, "cgroups",
      started);
  const std::vector<std::string> daemons =
      testing::ProcessesMentioning("daemon:" + tag);
  ASSERT_FALSE(daemons.empty());               // They outlived the run,
  for (const std::string& daemon : daemons) {  // unseen by the marker scan.
    EXPECT_EQ(testing::ReplicasUnder(runs()).count(std::stoi(daemon)), 0u);
  }

  testing::ProcessResult last = testing::RunProcess(Argv());
  ASSERT_EQ(last.exit_code, 0) << last.err;
  // The killed run's daemons were stopped when the job was taken over, and
  // every later trial's daemon when its trial ended.
  EXPECT_THAT(testing::ProcessesMentioning(tag), ::testing::IsEmpty());
  const std::vector<Trial> trials = Trials();
  ASSERT_EQ(trials.size(), static_cast<size_t>(kMaxTrials));
  for (const Trial& trial : trials) {
    EXPECT_EQ(trial.state, TrialState::kSucceeded) << trial.reason;
  }
}

}  // namespace
}  // namespace hptune
