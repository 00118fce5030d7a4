// Several `hptune serve` on one PostgreSQL database (docs/operations.md,
// "Several servers"): each answers every call and runs the jobs submitted
// to it, and its dashboard shows the other's jobs' trials; a cancel sent
// to another server reaches the job's; and when the
// server running a 3-parallel job is SIGKILLed, another takes the job over
// within the lease interval plus 5 s, with every report the trainers made
// stored once and no trial run twice at once. The real binary, real
// trainers (crash_trainer.py, whose ledger lists every report made) and a
// real PostgreSQL server; the servers share one state directory, as ports
// on one machine do.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/integration/testdata/ledger.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ServeProcess;

// What a test's servers share: the database and the state directory.
struct Shared {
  std::string url;
  std::string dir;  // The state directory and the ledger are here.
  std::string ledger() const { return dir + "/ledger.txt"; }
  std::unique_ptr<ServeProcess> Server(
      std::vector<std::string> extra = {}) const {
    for (const char* flag : {"--db", url.c_str(), "--state-dir"}) {
      extra.push_back(flag);
    }
    extra.push_back(dir + "/runs");
    return std::make_unique<ServeProcess>(testing::MakeTempDir(),
                                          std::move(extra));
  }
};

// `parallel` trials at a time of `steps` reports each, 0.1 s apart.
grpc::Status TrySubmit(const ServeProcess& server, const std::string& job_id,
                       const std::string& ledger, int max_trials, int parallel,
                       int steps) {
  const std::string trainer =
      testing::SourceDir() + "/tests/integration/testdata/crash_trainer.py";
  const std::string json =
      R"({"command": ["python3", ")" + trainer + R"("], "args": ["--steps=)" +
      std::to_string(steps) + R"(", "--step_seconds=0.1", "--ledger=)" +
      ledger + R"("], "hyperparameters": {"goal": "MINIMIZE",
        "hyperparameterMetricTag": "loss", "maxTrials": )" +
      std::to_string(max_trials) + R"(, "maxParallelTrials": )" +
      std::to_string(parallel) + R"(,
        "algorithm": "RANDOM_SEARCH", "seed": "7",
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]}})";
  v1::SubmitJobRequest submit;
  submit.set_job_id(job_id);
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(
                  json, submit.mutable_training_input())
                  .ok());
  v1::Job job;
  return server.JobStub()->SubmitJob(Context().get(), submit, &job);
}

void Submit(const ServeProcess& server, const std::string& job_id,
            const std::string& ledger, int max_trials, int parallel,
            int steps) {
  const grpc::Status status =
      TrySubmit(server, job_id, ledger, max_trials, parallel, steps);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

std::vector<v1::Trial> Trials(const ServeProcess& server,
                              const std::string& study) {
  v1::ListTrialsRequest request;
  request.set_study(study);
  v1::ListTrialsResponse reply;
  if (!server.StudyStub()->ListTrials(Context().get(), request, &reply).ok()) {
    return {};
  }
  return {reply.trials().begin(), reply.trials().end()};
}

bool Ended(v1::Job::State state) {
  return state == v1::Job::SUCCEEDED || state == v1::Job::FAILED ||
         state == v1::Job::CANCELLED;
}

absl::StatusOr<Shared> SharedDatabase() {
  absl::StatusOr<testing::PostgresServer*> postgres =
      testing::PostgresServer::Shared();
  if (!postgres.ok()) return postgres.status();
  absl::StatusOr<std::string> url = (*postgres)->NewDatabase();
  if (!url.ok()) return url.status();
  return Shared{*url, testing::MakeTempDir()};
}

// `count` servers on `shared`'s database, each with `flags`, started;
// none, with `error` set, when one did not start.
std::vector<std::unique_ptr<ServeProcess>> StartServers(
    const Shared& shared, int count, const std::vector<std::string>& flags,
    std::string* error) {
  std::vector<std::unique_ptr<ServeProcess>> servers;
  for (int i = 0; i < count; ++i) {
    servers.push_back(shared.Server(flags));
    if (!servers.back()->Start(error)) return {};
  }
  return servers;
}

// The one test of the `slow` binary (serve_several_slow_test), which is
// this file built with HPTUNE_SEVERAL_SERVERS_SLOW.
#ifndef HPTUNE_SEVERAL_SERVERS_SLOW

// The states of `study`'s trials as `server`'s dashboard lists them (its
// address from the "hptune serve: dashboard: http://..." line).
std::vector<std::string> DashboardTrialStates(const ServeProcess& server,
                                              const std::string& study) {
  const std::string output = server.Output();
  const std::string marker = "hptune serve: dashboard: http://127.0.0.1:";
  const size_t at = output.find(marker);
  if (at == std::string::npos) return {"no dashboard line"};
  const int port = std::atoi(output.c_str() + at + marker.size());
  httplib::Client client("127.0.0.1", port);
  const httplib::Result got =
      client.Get("/api/studies/" + study + "/trials",
                 {{"Authorization", "Bearer " + testing::DefaultToken()}});
  if (!got || got->status != 200) {
    return {got ? got->body : httplib::to_string(got.error())};
  }
  const nlohmann::json page = nlohmann::json::parse(got->body);
  std::vector<std::string> states;
  for (const auto& trial : page["trials"]) {
    states.push_back(trial.value("state", "?"));
  }
  return states;
}

TEST(ServeSeveralTest, TwoServersAnswerEveryCallAndEachRunsItsOwnJobs) {
  absl::StatusOr<Shared> shared = SharedDatabase();
  HPTUNE_SKIP_UNLESS_AVAILABLE(shared.ok(), "postgresql",
                               shared.status().message());
  std::string error;
  std::vector<std::unique_ptr<ServeProcess>> servers =
      StartServers(*shared, 2, {}, &error);
  ASSERT_EQ(servers.size(), 2u) << error;
  ServeProcess* a = servers[0].get();
  ServeProcess* b = servers[1].get();
  // 2.5 s trials: each server looks for jobs to take over (every 2 s)
  // while the other's runs, and must find none.
  ASSERT_NO_FATAL_FAILURE(Submit(*a, "on_a", shared->ledger(), 2, 2, 25));
  ASSERT_NO_FATAL_FAILURE(Submit(*b, "on_b", shared->ledger(), 2, 2, 25));
  // Each server sees both jobs end, whichever ran them.
  for (const ServeProcess* server : {a, b}) {
    for (const char* job : {"on_a", "on_b"}) {
      ASSERT_TRUE(
          testing::PollUntil([&] { return Ended(JobStateOf(*server, job)); },
                             std::chrono::seconds(60)))
          << a->Output() << b->Output();
      EXPECT_EQ(JobStateOf(*server, job), v1::Job::SUCCEEDED) << job;
      EXPECT_EQ(Trials(*server, job).size(), 2u) << job;
      // The dashboard follows the database's events: it may lag a moment.
      const std::vector<std::string> both = {"SUCCEEDED", "SUCCEEDED"};
      testing::PollUntil(
          [&] { return DashboardTrialStates(*server, job) == both; },
          std::chrono::seconds(10));
      EXPECT_EQ(DashboardTrialStates(*server, job), both) << job;
    }
  }
  // Each job ran on the server it was submitted to, and only there.
  EXPECT_THAT(a->Output(), HasSubstr("job on_a: running"));
  EXPECT_THAT(a->Output(), Not(HasSubstr("job on_b:")));
  EXPECT_THAT(b->Output(), HasSubstr("job on_b: running"));
  EXPECT_THAT(b->Output(), Not(HasSubstr("job on_a:")));
  // A job ID is one job's, whichever server is asked.
  EXPECT_EQ(TrySubmit(*b, "on_a", shared->ledger(), 2, 2, 3).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
}

TEST(ServeSeveralTest, ACancelSentToAnotherServerReachesTheJobsServer) {
  absl::StatusOr<Shared> shared = SharedDatabase();
  HPTUNE_SKIP_UNLESS_AVAILABLE(shared.ok(), "postgresql",
                               shared.status().message());
  std::string error;
  std::vector<std::unique_ptr<ServeProcess>> servers =
      StartServers(*shared, 2, {}, &error);
  ASSERT_EQ(servers.size(), 2u) << error;
  ServeProcess* a = servers[0].get();
  ServeProcess* b = servers[1].get();
  ASSERT_NO_FATAL_FAILURE(Submit(*a, "long", shared->ledger(), 1, 1, 10000));
  ASSERT_TRUE(testing::PollUntil(
      [&] { return !testing::ReadLedger(shared->ledger()).empty(); },
      std::chrono::seconds(30)))
      << a->Output();

  v1::CancelJobRequest cancel;
  cancel.set_job_id("long");
  v1::Job job;
  const grpc::Status status =
      b->JobStub()->CancelJob(Context().get(), cancel, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(job.state(), v1::Job::CANCELLING);
  // A's next look at the store (every 2 s) passes it on to the job's
  // runner, which stops the trainer and ends the job.
  ASSERT_TRUE(testing::PollUntil(
      [&] { return JobStateOf(*b, "long") == v1::Job::CANCELLED; },
      std::chrono::seconds(30)))
      << JobStateOf(*b, "long") << "\n"
      << a->Output();
  EXPECT_THAT(a->Output(), HasSubstr("job long: CANCELLED"));
  const std::vector<v1::Trial> trials = Trials(*b, "long");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::CANCELLED);
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(shared->dir + "/runs").empty(); },
      std::chrono::seconds(10)));
}

#endif  // HPTUNE_SEVERAL_SERVERS_SLOW

// Whether each trial's stored reports are runs of steps 1, 2, 3, ...
// one after another: two runs of one trial at once would interleave them.
void ExpectNoTrialRanTwiceAtOnce(const std::vector<v1::Trial>& trials) {
  for (const v1::Trial& trial : trials) {
    int64_t last = 0;
    for (const v1::Measurement& m : trial.measurements()) {
      EXPECT_TRUE(m.step() == last + 1 || m.step() == 1)
          << "trial " << trial.id() << ": step " << m.step() << " after "
          << last;
      last = m.step();
    }
  }
}

// Every report the trainers made (the ledger) is stored with its trial,
// once.
void ExpectEveryReportStoredOnce(const std::vector<v1::Trial>& trials,
                                 const std::string& ledger) {
  std::map<std::tuple<int64_t, int64_t, double>, int> reported, stored;
  for (const testing::LedgerReport& r : testing::ReadLedger(ledger)) {
    ++reported[{r.trial, r.step, r.value}];
  }
  for (const v1::Trial& trial : trials) {
    for (const v1::Measurement& m : trial.measurements()) {
      ++stored[{trial.id(), m.step(), m.metrics().at("loss")}];
    }
  }
  EXPECT_EQ(stored, reported);
}

int Succeeded(const ServeProcess& server, const std::string& study) {
  int succeeded = 0;
  for (const v1::Trial& trial : Trials(server, study)) {
    succeeded += trial.state() == v1::Trial::SUCCEEDED ? 1 : 0;
  }
  return succeeded;
}

// Waits for job `job_id` to end on `server`, then checks that it lost
// nothing: SUCCEEDED, `max_trials` dense trials each succeeded at step
// `steps`, every report the trainers made stored once, no trial run twice
// at once, and no trainer left running.
void ExpectEndsWhole(const ServeProcess& server, const Shared& shared,
                     const std::string& job_id, int max_trials, int steps) {
  ASSERT_TRUE(
      testing::PollUntil([&] { return Ended(JobStateOf(server, job_id)); },
                         std::chrono::seconds(120)))
      << server.Output();
  EXPECT_EQ(JobStateOf(server, job_id), v1::Job::SUCCEEDED) << server.Output();
  const std::vector<v1::Trial> trials = Trials(server, job_id);
  ASSERT_EQ(trials.size(), static_cast<size_t>(max_trials));
  for (int i = 0; i < max_trials; ++i) {
    EXPECT_EQ(trials[i].id(), i + 1);  // Dense, none counted twice.
    EXPECT_EQ(trials[i].state(), v1::Trial::SUCCEEDED) << trials[i].reason();
    EXPECT_EQ(trials[i].final_measurement().step(), steps);
  }
  ExpectEveryReportStoredOnce(trials, shared.ledger());
  ExpectNoTrialRanTwiceAtOnce(trials);
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(shared.dir + "/runs").empty(); },
      std::chrono::seconds(10)));
}

// The server whose output says it took the job over once more than
// `taken_before` counted, but the killed one (`killed`).
std::optional<size_t> Taker(
    const std::vector<std::unique_ptr<ServeProcess>>& servers, size_t killed,
    const std::vector<int>& taken_before) {
  for (size_t i = 0; i < servers.size(); ++i) {
    if (i != killed &&
        testing::CountOccurrences(servers[i]->Output(),
                                  "job taken: taken over") > taken_before[i]) {
      return i;
    }
  }
  return std::nullopt;
}

// SIGKILLs the server running a 3-parallel job `kills` times, the k-th
// once k trials have succeeded and the trainers made 3 more reports:
// another server must take the job over within the lease interval (2 s)
// plus 5 s. The killed one is started again, to be a later taker.
void KillAndTakeOver(int server_count, int kills, int max_trials, int steps) {
  absl::StatusOr<Shared> shared = SharedDatabase();
  HPTUNE_SKIP_UNLESS_AVAILABLE(shared.ok(), "postgresql",
                               shared.status().message());
  // Each kill costs the running trials an attempt: the servers allow 10.
  std::string error;
  std::vector<std::unique_ptr<ServeProcess>> servers =
      StartServers(*shared, server_count, {"--max-retries", "10"}, &error);
  ASSERT_EQ(servers.size(), static_cast<size_t>(server_count)) << error;
  ASSERT_NO_FATAL_FAILURE(
      Submit(*servers[0], "taken", shared->ledger(), max_trials, 3, steps));
  size_t running = 0;
  for (int kill = 0; kill < kills; ++kill) {
    const ServeProcess& other = *servers[(running + 1) % servers.size()];
    const size_t reported = testing::ReadLedger(shared->ledger()).size();
    ASSERT_TRUE(testing::PollUntil(
        [&] {
          return testing::ReadLedger(shared->ledger()).size() >= reported + 3 &&
                 Succeeded(other, "taken") >= kill;
        },
        std::chrono::seconds(60)))
        << servers[running]->Output();
    ASSERT_FALSE(Ended(JobStateOf(other, "taken")))
        << "ended before kill " << kill;
    std::vector<int> taken_before;
    for (const auto& server : servers) {
      taken_before.push_back(
          testing::CountOccurrences(server->Output(), "job taken: taken over"));
    }
    servers[running]->Stop(SIGKILL);
    const auto killed = std::chrono::steady_clock::now();
    std::optional<size_t> taker;
    ASSERT_TRUE(testing::PollUntil(
        [&] {
          taker = Taker(servers, running, taken_before);
          return taker.has_value();
        },
        std::chrono::seconds(7)))
        << "kill " << kill << ": not taken over in 7 s\n"
        << other.Output();
    std::cout << "kill " << kill << ": server " << *taker << " took over after "
              << std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - killed)
                     .count()
              << " s" << std::endl;
    ASSERT_TRUE(servers[running]->Start(&error)) << error;
    running = *taker;
  }
  ExpectEndsWhole(*servers[running], *shared, "taken", max_trials, steps);
}

#ifndef HPTUNE_SEVERAL_SERVERS_SLOW
TEST(ServeSeveralTest, AKilledServersJobIsTakenOverByTheOther) {
  KillAndTakeOver(/*server_count=*/2, /*kills=*/1, /*max_trials=*/6,
                  /*steps=*/8);
}

// The server running a job is cut from the database (its session ended, as
// the database ends a partitioned client's): it stops its trainers and
// exits, the other takes the job over, and nothing is lost or run twice.
TEST(ServeSeveralTest, AServerCutFromTheDatabaseStopsAndTheOtherTakesOver) {
  absl::StatusOr<Shared> shared = SharedDatabase();
  HPTUNE_SKIP_UNLESS_AVAILABLE(shared.ok(), "postgresql",
                               shared.status().message());
  std::string error;
  std::vector<std::unique_ptr<ServeProcess>> servers =
      StartServers(*shared, 2, {"--max-retries", "10"}, &error);
  ASSERT_EQ(servers.size(), 2u) << error;
  ASSERT_NO_FATAL_FAILURE(Submit(*servers[0], "cut", shared->ledger(),
                                 /*max_trials=*/6, /*parallel=*/3,
                                 /*steps=*/8));
  ASSERT_TRUE(testing::PollUntil(
      [&] { return testing::ReadLedger(shared->ledger()).size() >= 3; },
      std::chrono::seconds(60)))
      << servers[0]->Output();

  ASSERT_EQ(testing::EndJobHolderSessions(shared->url, "cut"), 1);
  const std::optional<int> exit_code =
      servers[0]->WaitForExit(std::chrono::seconds(30));
  ASSERT_TRUE(exit_code.has_value()) << "still serving:\n"
                                     << servers[0]->Output();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(servers[0]->Output(), HasSubstr("lost the runner lease"));
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return testing::CountOccurrences(servers[1]->Output(),
                                         "job cut: taken over") == 1;
      },
      std::chrono::seconds(7)))
      << servers[1]->Output();

  ExpectEndsWhole(*servers[1], *shared, "cut", /*max_trials=*/6,
                  /*steps=*/8);
}
#else
// The kill again and again: 20 kills among three servers, the job taken
// over each time by whichever of the other two gets it first.
TEST(ServeSeveralSlowTest, TwentyKillsAmongThreeServersLoseNothing) {
  KillAndTakeOver(/*server_count=*/3, /*kills=*/20, /*max_trials=*/28,
                  /*steps=*/10);
}
#endif

}  // namespace
}  // namespace hptune
