// Crash safety of `hptune serve`: the server is SIGKILLed twice while
// trials run (once mid-trial, once right after a measurement was reported)
// and restarted on the same database. The job must end with exactly
// maxTrials trials numbered 1..maxTrials, every measurement the trainer
// reported stored, and no trainer process left behind.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/integration/testdata/ledger.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using testing::ServeProcess;

constexpr int kMaxTrials = 4;

using testing::ReadLedger;
using Report = testing::LedgerReport;

// `more_args` go to the trainer after the others: `, "--a=b"`.
v1::TrainingInput CrashJob(const std::string& ledger,
                           const std::string& more_args = "") {
  const std::string trainer =
      testing::SourceDir() + "/tests/integration/testdata/crash_trainer.py";
  const std::string json = R"({"command": ["python3", ")" + trainer +
                           R"("], "args": ["--steps=8", "--step_seconds=0.1",
                           "--ledger=)" +
                           ledger + "\"" + more_args + R"(],
      "hyperparameters": {"goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "maxTrials": )" + std::to_string(kMaxTrials) +
                           R"(, "maxParallelTrials": 2,
        "algorithm": "RANDOM_SEARCH", "seed": "5",
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]}})";
  v1::TrainingInput input;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &input).ok());
  return input;
}

std::vector<v1::Trial> Trials(const ServeProcess& server) {
  v1::ListTrialsRequest request;
  request.set_study("crashy");
  v1::ListTrialsResponse reply;
  grpc::Status status =
      server.StudyStub()->ListTrials(Context().get(), request, &reply);
  if (!status.ok()) return {};
  return {reply.trials().begin(), reply.trials().end()};
}

void SubmitCrashJob(const ServeProcess& server,
                    const v1::TrainingInput& input) {
  v1::SubmitJobRequest submit;
  submit.set_job_id("crashy");
  *submit.mutable_training_input() = input;
  v1::Job job;
  grpc::Status status =
      server.JobStub()->SubmitJob(Context().get(), submit, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

// Waits until the first trial has stored `count` measurements.
bool FirstTrialReported(const ServeProcess& server, int count) {
  return testing::PollUntil(
      [&] {
        auto trials = Trials(server);
        return !trials.empty() && trials[0].measurements_size() >= count;
      },
      std::chrono::seconds(30));
}

TEST(ServeCrashTest, KilledServerResumesTheJobWithoutLossOrOrphans) {
  const std::string dir = testing::MakeTempDir();
  const std::string ledger = dir + "/ledger.txt";
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  ASSERT_NO_FATAL_FAILURE(SubmitCrashJob(server, CrashJob(ledger)));

  // Kill 1: mid-trial, once the first trial has stored two measurements.
  ASSERT_TRUE(FirstTrialReported(server, 2)) << server.Output();
  server.Stop(SIGKILL);
  // Its trainers outlive it: without crash handling they would be orphans
  // (each still has most of its 0.8 s to run).
  const std::set<pid_t> orphans = testing::ReplicasUnder(server.runs_dir());
  EXPECT_FALSE(orphans.empty());

  ASSERT_TRUE(server.Start(&error)) << error;
  // The new server stopped them before it reported its port.
  for (pid_t pid : testing::ReplicasUnder(server.runs_dir())) {
    EXPECT_FALSE(orphans.contains(pid)) << "orphaned trainer " << pid;
  }
  // Kill 2: right after the trainer reported a measurement (the ledger is
  // written just after the report reaches the metric file).
  const size_t reported_before = ReadLedger(ledger).size();
  ASSERT_TRUE(testing::PollUntil(
      [&] { return ReadLedger(ledger).size() > reported_before + 2; },
      std::chrono::seconds(30)))
      << server.Output();
  server.Stop(SIGKILL);

  ASSERT_TRUE(server.Start(&error)) << error;
  ASSERT_TRUE(testing::PollUntil(
      [&] { return JobStateOf(server, "crashy") == v1::Job::SUCCEEDED; },
      std::chrono::seconds(90)))
      << "job state " << JobStateOf(server, "crashy") << "\n"
      << server.Output();

  const std::vector<v1::Trial> trials = Trials(server);
  ASSERT_EQ(trials.size(), static_cast<size_t>(kMaxTrials));
  for (int i = 0; i < kMaxTrials; ++i) {
    EXPECT_EQ(trials[i].id(), i + 1);  // Dense, none counted twice.
    EXPECT_EQ(trials[i].state(), v1::Trial::SUCCEEDED) << trials[i].reason();
    EXPECT_EQ(trials[i].final_measurement().step(), 8);
  }
  // Every report the trainers made is stored with its trial, once: a report
  // made before a crash is neither lost nor read again by the re-run (the
  // re-run itself reports the same steps again, and those count too).
  std::map<std::tuple<int64_t, int64_t, double>, int> reported, stored;
  for (const Report& r : ReadLedger(ledger)) {
    ++reported[{r.trial, r.step, r.value}];
  }
  for (const v1::Trial& trial : trials) {
    for (const v1::Measurement& m : trial.measurements()) {
      ++stored[{trial.id(), m.step(), m.metrics().at("loss")}];
    }
  }
  EXPECT_EQ(stored, reported);
  // No trainer is left running.
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(server.runs_dir()).empty(); },
      std::chrono::seconds(10)));
}

using Clock = std::chrono::system_clock;

Clock::time_point FromProto(const google::protobuf::Timestamp& t) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::seconds(t.seconds()) + std::chrono::nanoseconds(t.nanos())));
}

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// maxRunningTime runs from the job's stored start, not from whichever server
// runs it now.
TEST(ServeCrashTest, MaxRunningTimeCountsFromTheJobsStartAcrossARestart) {
  const std::string dir = testing::MakeTempDir();
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::TrainingInput input = CrashJob(dir + "/ledger.txt");
  // 100 s trials against a 15 s limit: long enough for the first trial to
  // report however slowly its interpreter starts on a loaded machine.
  input.set_args(0, "--steps=1000");
  input.mutable_scheduling()->mutable_max_running_time()->set_seconds(15);
  ASSERT_NO_FATAL_FAILURE(SubmitCrashJob(server, input));
  // Kill once the trial has run 20 steps of 0.1 s: the restart then comes
  // at least 2 s after the job started, far more than the server takes to
  // end a job once its limit is reached.
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        const v1::Job::State state = JobStateOf(server, "crashy");
        if (state == v1::Job::CANCELLED || state == v1::Job::SUCCEEDED ||
            state == v1::Job::FAILED) {
          return true;
        }
        auto trials = Trials(server);
        return !trials.empty() && trials[0].measurements_size() >= 20;
      },
      std::chrono::seconds(60)))
      << server.Output();
  ASSERT_EQ(JobStateOf(server, "crashy"), v1::Job::RUNNING)
      << "the job ended before its first trial reported 20 steps\n"
      << server.Output();
  server.Stop(SIGKILL);
  const Clock::time_point restarted = Clock::now();
  ASSERT_TRUE(server.Start(&error)) << error;

  ASSERT_TRUE(testing::PollUntil(
      [&] {
        const v1::Job::State state = JobStateOf(server, "crashy");
        return state == v1::Job::CANCELLED || state == v1::Job::SUCCEEDED ||
               state == v1::Job::FAILED;
      },
      std::chrono::seconds(60)))
      << server.Output();
  v1::GetJobRequest request;
  request.set_job_id("crashy");
  v1::Job job;
  ASSERT_TRUE(server.JobStub()->GetJob(Context().get(), request, &job).ok());
  EXPECT_EQ(job.state(), v1::Job::CANCELLED) << job.error_message();
  EXPECT_THAT(job.error_message(),
              ::testing::HasSubstr("maxRunningTime (15s) reached"));
  const Clock::time_point started = FromProto(job.start_time());
  const Clock::time_point ended = FromProto(job.end_time());
  EXPECT_GE(ended - started, std::chrono::seconds(15));
  // A limit counted again from the restart would end it 15 s after that.
  EXPECT_LT(ended - restarted, std::chrono::seconds(15))
      << "restarted " << Seconds(restarted - started) << " s and ended "
      << Seconds(ended - started) << " s after the job started";
  for (const v1::Trial& trial : Trials(server)) {
    EXPECT_EQ(trial.state(), v1::Trial::CANCELLED) << trial.id();
  }
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(server.runs_dir()).empty(); },
      std::chrono::seconds(10)));
}

// A drain ends every process of the job's trials, also a daemon a trainer
// started that left its session, ignores SIGTERM and cleaned its
// environment (where cgroups can be used; the server says which).
TEST(ServeCrashTest, ADrainEndsTheDaemonsTrainersStarted) {
  const std::string dir = testing::MakeTempDir();
  const std::string tag = "drained-daemon-" + dir;
  testing::KillProcessesMentioning cleanup(tag);  // However it ends.
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  // The containment line follows the one Start waits for.
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return server.Output().find("processes are contained by") !=
               std::string::npos;
      },
      std::chrono::seconds(30)))
      << server.Output();
  HPTUNE_SKIP_UNLESS_AVAILABLE(
      server.Output().find("contained by cgroup v2") != std::string::npos,
      "cgroups", server.Output());
  ASSERT_NO_FATAL_FAILURE(SubmitCrashJob(
      server, CrashJob(dir + "/ledger.txt",
                       R"(, "--steps=600", "--daemon=)" + tag + "\"")));
  ASSERT_TRUE(testing::PollUntil(
      [&] { return !testing::ProcessesMentioning("daemon:" + tag).empty(); },
      std::chrono::seconds(30)))
      << server.Output();

  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
  EXPECT_THAT(testing::ProcessesMentioning(tag), ::testing::IsEmpty());
}

// A trial's directory may be its job owner's, who can put a FIFO in place
// of the cgroup record the server reads back at start-up: the restarted
// server must refuse it without blocking, come up and go on serving.
TEST(ServeCrashTest, AFifoInPlaceOfTheCgroupRecordDoesNotWedgeARestart) {
  const std::string dir = testing::MakeTempDir();
  testing::KillProcessesMentioning cleanup(dir);
  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::TrainingInput input = CrashJob(dir + "/ledger.txt");
  input.set_args(0, "--steps=1000");  // Runs until cancelled.
  ASSERT_NO_FATAL_FAILURE(SubmitCrashJob(server, input));
  ASSERT_TRUE(FirstTrialReported(server, 1)) << server.Output();
  server.Stop(SIGKILL);

  const std::string record = server.runs_dir() + "/crashy/1/replicas.cgroup";
  ::unlink(record.c_str());
  ASSERT_EQ(::mkfifo(record.c_str(), 0600), 0) << std::strerror(errno);
  // Start waits for the port, which comes after leftovers were stopped.
  ASSERT_TRUE(server.Start(&error, std::chrono::seconds(30))) << error;
  v1::ListJobsRequest list;
  v1::ListJobsResponse jobs;
  grpc::Status status =
      server.JobStub()->ListJobs(Context().get(), list, &jobs);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(jobs.jobs_size(), 1);
  EXPECT_EQ(jobs.jobs(0).job_id(), "crashy");
  // The job was taken over: this server runs it, and can cancel it.
  v1::CancelJobRequest cancel;
  cancel.set_job_id("crashy");
  v1::Job job;
  status = server.JobStub()->CancelJob(Context().get(), cancel, &job);
  ASSERT_TRUE(status.ok()) << status.error_message() << "\n" << server.Output();
  EXPECT_TRUE(testing::PollUntil(
      [&] { return JobStateOf(server, "crashy") == v1::Job::CANCELLED; },
      std::chrono::seconds(60)))
      << "job state " << JobStateOf(server, "crashy") << "\n"
      << server.Output();
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(server.runs_dir()).empty(); },
      std::chrono::seconds(10)));
}

}  // namespace
}  // namespace hptune
