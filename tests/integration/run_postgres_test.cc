// `hptune run` on a PostgreSQL store (docs/operations.md, "PostgreSQL"): a
// run whose runner lease is lost (the database ended its session, as after a
// network partition or a database restart) must stop running its job, since
// another runner may now take it over. It stops its trainers as `hptune
// serve` does, leaving the job and its trial as they are, resumable, and
// exits 1 naming the database; the lease is then free for another runner.
// The real binary, a real trainer and a real PostgreSQL server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;

// One trial that runs far longer than the test.
void WriteLongJob(const std::string& config, const std::string& ledger) {
  std::ofstream out(config);
  out << "trainingInput:\n"
         "  command: [python3, "
      << testing::SourceDir()
      << "/tests/integration/testdata/crash_trainer.py]\n"
         "  args: [--steps=10000, --step_seconds=0.05, --ledger="
      << ledger
      << "]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
}

TEST(RunPostgresTest, ARunThatLosesItsLeaseStopsItsTrainersAndExits) {
  absl::StatusOr<testing::PostgresServer*> postgres =
      testing::PostgresServer::Shared();
  HPTUNE_SKIP_UNLESS_AVAILABLE(postgres.ok(), "postgresql",
                               postgres.status().message());
  absl::StatusOr<std::string> url = (*postgres)->NewDatabase();
  ASSERT_TRUE(url.ok()) << url.status();
  const std::string dir = testing::MakeTempDir();
  const std::string ledger = dir + "/ledger.txt";
  WriteLongJob(dir + "/job.yaml", ledger);
  const pid_t run =
      testing::StartProcess({testing::HptuneBinary(), "run", dir + "/job.yaml",
                             "--job-id", "leased", "--db", *url, "--runs-dir",
                             dir + "/runs", "--grace-seconds", "1", "--quiet"},
                            dir + "/out", dir + "/err");
  // The trainer reports: the run holds its lease and runs the trial.
  ASSERT_TRUE(testing::PollUntil(
      [&] { return !testing::ReadFileOrEmpty(ledger).empty(); },
      std::chrono::seconds(30)))
      << testing::ReadFileOrEmpty(dir + "/err");

  ASSERT_GE(testing::EndRunnerLeaseSessions(*url), 1);
  const std::optional<int> exit_code =
      testing::WaitForExit(run, std::chrono::seconds(20));
  const std::string err = testing::ReadFileOrEmpty(dir + "/err");
  if (!exit_code.has_value()) kill(run, SIGKILL);  // Not left running.
  ASSERT_TRUE(exit_code.has_value()) << "still running:\n" << err;
  EXPECT_EQ(*exit_code, 1) << err;
  // The lease's watch, or first a write the store fenced, says so.
  EXPECT_THAT(err, HasSubstr("hptune run: lost the runner lease on database "
                             "\"postgresql:///"));
  EXPECT_TRUE(testing::ReplicasUnder(dir + "/runs").empty());

  // Nothing was ended: the job and its trial wait for the next runner, and
  // the lease is free for one.
  auto store = store::OpenStore(*url, SystemClock());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<JobRecord> job = (*store)->GetJob("leased");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, JobState::kRunning);
  absl::StatusOr<std::vector<Trial>> trials = (*store)->ListTrials("leased");
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].state, TrialState::kActive);
  EXPECT_TRUE(
      (*store)->AcquireRunnerLease(store::RunnerHolder::kServer, "").ok());
}

}  // namespace
}  // namespace hptune
