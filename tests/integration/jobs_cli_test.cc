// `hptune jobs|trials|studies` against a real `hptune serve` on 127.0.0.1:
// a small tuning job submitted, waited for, described and exported; a
// running job cancelled, then deleted; a missing server, bad flags and token
// auth, each with the exit code and message the user sees.
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;
using testing::ReadFileOrEmpty;
using testing::ServeProcess;

// `steps` reports of curve_trainer, `step_seconds` apart, printed on stdout
// too so the logs have something to show.
std::string WriteConfig(const std::string& dir, int max_trials, int steps,
                        double step_seconds) {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path) << "trainingInput:\n"
                      << "  command: [python3, " << testing::SourceDir()
                      << "/tests/testdata/curve_trainer.py]\n"
                      << "  args: [--steps=" << steps
                      << ", --step_seconds=" << step_seconds
                      << ", --stdout_metrics]\n"
                      << "  hyperparameters:\n"
                      << "    goal: MINIMIZE\n"
                      << "    hyperparameterMetricTag: loss\n"
                      << "    maxTrials: " << max_trials << "\n"
                      << "    maxParallelTrials: 2\n"
                      << "    algorithm: RANDOM_SEARCH\n"
                      << "    seed: 5\n"
                      << "    params:\n"
                      << "    - {parameterName: x, type: DOUBLE, minValue: 0, "
                         "maxValue: 1}\n"
                      << "    - {parameterName: y, type: DOUBLE, minValue: 0, "
                         "maxValue: 1}\n";
  return path;
}

class JobsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The children inherit the environment: only flags say where to go.
    for (const char* name :
         {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_TLS_CA", "HPTUNE_DB"}) {
      unsetenv(name);
    }
    dir_ = testing::MakeTempDir();
  }

  // `hptune ARGS... --server ADDR` (server flags go before any `--`).
  ProcessResult Hptune(std::vector<std::string> args,
                       const std::string& address) {
    std::vector<std::string> argv = {testing::HptuneBinary()};
    auto dashes = std::find(args.begin(), args.end(), "--");
    argv.insert(argv.end(), args.begin(), dashes);
    argv.push_back("--server");
    argv.push_back(address);
    argv.insert(argv.end(), dashes, args.end());
    return testing::RunProcess(argv);
  }

  std::string dir_;
};

// A loopback port nothing listens on: bound, then released.
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t size = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return ntohs(address.sin_port);
}

TEST_F(JobsCliTest, SubmittedJobRunsToCompletionAndEveryViewShowsIt) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string config = WriteConfig(dir_, 5, 5, 0.01);
  const std::string a = server.address();

  // The flag overrides the file's maxTrials: 3, not 5.
  auto submit = Hptune({"jobs", "submit", "curve_1", "--config", config,
                        "--max-trials", "3", "--wait", "--format", "json"},
                       a);
  ASSERT_EQ(submit.exit_code, 0) << submit.err << server.Output();
  EXPECT_THAT(submit.err, HasSubstr("job curve_1 SUCCEEDED"));
  auto waited = nlohmann::json::parse(submit.out);
  EXPECT_EQ(waited["state"], "SUCCEEDED");

  // describe --format json: AI Platform's Job with its trainingOutput.
  auto describe =
      Hptune({"jobs", "describe", "curve_1", "--format", "json"}, a);
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  auto job = nlohmann::json::parse(describe.out);
  EXPECT_EQ(job["jobId"], "curve_1");
  EXPECT_EQ(job["trainingInput"]["hyperparameters"]["maxTrials"], 3);
  const auto& output = job["trainingOutput"];
  EXPECT_EQ(output["completedTrialCount"], "3");
  ASSERT_EQ(output["trials"].size(), 3u);
  for (const auto& trial : output["trials"]) {
    EXPECT_EQ(trial["state"], "SUCCEEDED");
    EXPECT_TRUE(trial["hyperparameters"].contains("x"));
    EXPECT_TRUE(trial["hyperparameters"].contains("y"));
    EXPECT_EQ(trial["finalMetric"]["trainingStep"], "5");
    EXPECT_TRUE(trial["finalMetric"]["objectiveValue"].is_number());
    EXPECT_FALSE(trial.value("isTrialStoppedEarly", false));
  }
  EXPECT_EQ(output["trials"][0]["trialId"], "1");

  // describe --format vertex: Vertex's HyperparameterTuningJob, its trials
  // read from the StudyService.
  auto vertex =
      Hptune({"jobs", "describe", "curve_1", "--format", "vertex"}, a);
  ASSERT_EQ(vertex.exit_code, 0) << vertex.err;
  auto tuning_job = nlohmann::json::parse(vertex.out);
  EXPECT_EQ(tuning_job["name"], "curve_1");
  EXPECT_EQ(tuning_job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(tuning_job["maxTrialCount"], 3);
  EXPECT_TRUE(tuning_job["endTime"].is_string());
  ASSERT_EQ(tuning_job["trials"].size(), 3u) << vertex.out;
  for (const auto& trial : tuning_job["trials"]) {
    EXPECT_EQ(trial["state"], "SUCCEEDED");
    EXPECT_EQ(trial["parameters"][0]["parameterId"], "x");
    EXPECT_EQ(trial["finalMeasurement"]["stepCount"], "5");
  }

  auto human = Hptune({"jobs", "describe", "curve_1"}, a);
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("state:      SUCCEEDED"));
  EXPECT_THAT(human.out, HasSubstr("trials:     3 completed of 3"));
  EXPECT_THAT(human.out, HasSubstr("best trial: "));

  auto list = Hptune({"jobs", "list", "--format", "csv"}, a);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("curve_1,SUCCEEDED,"));
  auto running = Hptune({"jobs", "list", "--filter", "state=RUNNING"}, a);
  ASSERT_EQ(running.exit_code, 0) << running.err;
  EXPECT_THAT(running.out, Not(HasSubstr("curve_1")));

  // The export: every trial with parameters, metric, state and times.
  auto csv =
      Hptune({"trials", "list", "--study", "curve_1", "--format", "csv"}, a);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> lines =
      absl::StrSplit(csv.out, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << csv.out;
  EXPECT_EQ(lines[0],
            "trialId,state,x,y,objective,step,stoppedEarly,origin,reason,"
            "startTime,endTime");
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> fields = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(fields.size(), 11u) << lines[i];
    EXPECT_EQ(fields[0], std::to_string(i));
    EXPECT_EQ(fields[1], "SUCCEEDED");
    EXPECT_EQ(fields[5], "5");
    EXPECT_FALSE(fields[9].empty());
    EXPECT_FALSE(fields[10].empty());
  }
  auto json =
      Hptune({"trials", "list", "--study", "curve_1", "--format", "json"}, a);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto trials = nlohmann::json::parse(json.out);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2]["finalMetric"]["objectiveValue"],
            output["trials"][2]["finalMetric"]["objectiveValue"]);
  auto one = Hptune({"trials", "describe", "2", "--study", "curve_1"}, a);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("measurements:"));

  auto studies = Hptune({"studies", "list"}, a);
  ASSERT_EQ(studies.exit_code, 0) << studies.err;
  EXPECT_THAT(studies.out, HasSubstr("curve_1"));
  EXPECT_THAT(studies.out, HasSubstr("3/3"));
  auto study = Hptune({"studies", "describe", "curve_1"}, a);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  EXPECT_THAT(study.out, HasSubstr("algorithm:  RANDOM_SEARCH (seed 5)"));
  EXPECT_THAT(study.out, HasSubstr("best trial: "));

  auto log = Hptune({"jobs", "stream-logs", "curve_1", "--trial", "1"}, a);
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_THAT(log.out, HasSubstr("loss="));
  auto all_logs = Hptune({"jobs", "stream-logs", "curve_1"}, a);
  ASSERT_EQ(all_logs.exit_code, 0) << all_logs.err;
  EXPECT_THAT(all_logs.out, HasSubstr("==> trial 3 master-0 <=="));

  // A watch of an ended job: the job's state, then its trials, each timed
  // by its end.
  auto watch = Hptune({"jobs", "watch", "curve_1"}, a);
  EXPECT_EQ(watch.exit_code, 0) << watch.err;
  std::vector<std::string> events =
      absl::StrSplit(watch.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(events.size(), 4u) << watch.out;
  EXPECT_THAT(events[0], HasSubstr("Z  job curve_1 SUCCEEDED, trials 3/3"));
  for (int trial = 1; trial <= 3; ++trial) {
    EXPECT_THAT(events[trial], HasSubstr("Z  trial " + std::to_string(trial) +
                                         " SUCCEEDED: loss="));
  }

  // The same ID again is refused by the server: invalid input.
  auto again = Hptune({"jobs", "submit", "curve_1", "--config", config}, a);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("curve_1"));
  auto missing = Hptune({"jobs", "describe", "nope"}, a);
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_THAT(missing.err, HasSubstr("nope"));
}

TEST_F(JobsCliTest, CancellingARunningJobEndsItCancelled) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  // 200 steps of 0.1 s: far longer than the test waits.
  const std::string config = WriteConfig(dir_, 2, 200, 0.1);
  const std::string a = server.address();
  auto submit = Hptune({"jobs", "submit", "slow", "--config", config}, a);
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_THAT(submit.out, HasSubstr("job slow submitted"));

  // Wait until the trainer has written something.
  std::string log;
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        log = Hptune({"jobs", "stream-logs", "slow", "--trial", "1"}, a).out;
        return log.find("loss=") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << server.Output();

  // A running job is not deleted: the refusal names its state.
  auto refused = Hptune({"jobs", "delete", "slow"}, a);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("job \"slow\" is RUNNING: only an ended "
                                     "job is deleted; cancel it first"));

  auto cancel = Hptune({"jobs", "cancel", "slow", "--wait"}, a);
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.out, "job slow CANCELLED\n");
  auto describe = Hptune({"jobs", "describe", "slow", "--format", "json"}, a);
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  auto job = nlohmann::json::parse(describe.out);
  EXPECT_EQ(job["state"], "CANCELLED");
  EXPECT_EQ(job["trainingOutput"]["trials"][0]["state"], "CANCELLED");

  // Nothing left to cancel: the command fails and says why.
  auto again = Hptune({"jobs", "cancel", "slow"}, a);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("slow"));
  EXPECT_TRUE(testing::ReplicasUnder(server.runs_dir()).empty());

  // Ended, it is deleted with its study; its logs are moved aside, so a
  // new job of the same ID reads none of them.
  auto deleted = Hptune({"jobs", "delete", "slow"}, a);
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "job slow deleted\n");
  EXPECT_EQ(Hptune({"jobs", "describe", "slow"}, a).exit_code, 3);
  EXPECT_EQ(Hptune({"studies", "describe", "slow"}, a).exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(server.runs_dir() + "/slow"));
  bool kept = false;
  for (const auto& entry :
       std::filesystem::directory_iterator(server.runs_dir() + "/.deleted")) {
    kept = kept || entry.path().filename().string().starts_with("slow.");
  }
  EXPECT_TRUE(kept);
  auto gone = Hptune({"jobs", "delete", "slow"}, a);
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_THAT(gone.err, HasSubstr("job \"slow\" not found"));
}

TEST_F(JobsCliTest, CtrlCWhileWaitingLeavesTheJobRunningAndSaysSo) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string a = server.address();
  const pid_t client = testing::StartProcess(
      {testing::HptuneBinary(), "jobs", "submit", "followed", "--config",
       WriteConfig(dir_, 2, 200, 0.1), "--server", a, "--wait"},
      dir_ + "/client.out", dir_ + "/client.err");
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return testing::ReadFileOrEmpty(dir_ + "/client.err")
                   .find("job followed submitted") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << testing::ReadFileOrEmpty(dir_ + "/client.err");
  kill(client, SIGINT);
  EXPECT_EQ(testing::WaitForExit(client, std::chrono::seconds(30)), 130);
  EXPECT_THAT(testing::ReadFileOrEmpty(dir_ + "/client.err"),
              HasSubstr("stopped following job followed; it goes on in the "
                        "server. Follow it again with `hptune jobs watch "
                        "followed`, or cancel it with `hptune jobs cancel "
                        "followed`"));
  auto describe =
      Hptune({"jobs", "describe", "followed", "--format", "json"}, a);
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_FALSE(nlohmann::json::parse(describe.out)["state"] == "CANCELLED")
      << describe.out;
  auto cancel = Hptune({"jobs", "cancel", "followed", "--wait"}, a);
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
}

// `jobs submit` exits 1 when the job it waits for fails or is cancelled,
// and when the server refuses the job for GPUs it can never provide.
TEST_F(JobsCliTest, AFailedOrCancelledJobOrGpusTheServerLacksExit1) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string a = server.address();

  // The trainer reports loss, the config asks for accuracy: FAILED.
  std::string config = ReadFileOrEmpty(WriteConfig(dir_, 1, 2, 0.01));
  config.replace(config.find("loss"), 4, "accuracy");
  std::ofstream(dir_ + "/wrong_metric.yaml") << config;
  auto failed = Hptune({"jobs", "submit", "wrong_metric", "--config",
                        dir_ + "/wrong_metric.yaml", "--wait"},
                       a);
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_THAT(failed.out + failed.err, HasSubstr("FAILED"));

  // 200 steps of 0.1 s, cancelled by another client while followed.
  const pid_t client = testing::StartProcess(
      {testing::HptuneBinary(), "jobs", "submit", "cancelled", "--config",
       WriteConfig(dir_, 2, 200, 0.1), "--server", a, "--wait"},
      dir_ + "/client.out", dir_ + "/client.err");
  testing::StopOnExit stop(client);
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return ReadFileOrEmpty(dir_ + "/client.err")
                   .find("job cancelled submitted") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << ReadFileOrEmpty(dir_ + "/client.err");
  auto cancel = Hptune({"jobs", "cancel", "cancelled"}, a);
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(testing::WaitForExit(client, std::chrono::seconds(60)), 1)
      << ReadFileOrEmpty(dir_ + "/client.err");
  // Their studies say how the jobs ended (StudyService.GetStudy).
  auto failed_study = Hptune({"studies", "describe", "wrong_metric"}, a);
  EXPECT_THAT(failed_study.out, HasSubstr("state:      FAILED (job FAILED: "))
      << failed_study.out << failed_study.err;
  auto cancelled_study = Hptune({"studies", "describe", "cancelled"}, a);
  EXPECT_THAT(cancelled_study.out,
              HasSubstr("state:      CANCELLED (job CANCELLED)"))
      << cancelled_study.out << cancelled_study.err;

  // The server has no GPUs (--gpus 0): refused, nothing recorded.
  config = ReadFileOrEmpty(WriteConfig(dir_, 1, 2, 0.01));
  config.replace(config.find("  command:"), 0,
                 "  scaleTier: CUSTOM\n  masterType: n1-standard-4\n"
                 "  masterConfig:\n    acceleratorConfig: {count: 2, type: "
                 "NVIDIA_TESLA_T4}\n");
  std::ofstream(dir_ + "/gpus.yaml") << config;
  auto gpus =
      Hptune({"jobs", "submit", "gpus", "--config", dir_ + "/gpus.yaml"}, a);
  EXPECT_EQ(gpus.exit_code, 1) << gpus.err;
  EXPECT_THAT(gpus.err, HasSubstr("NVIDIA_TESLA_T4"));
  EXPECT_EQ(Hptune({"jobs", "describe", "gpus"}, a).exit_code, 3);
}

// A server on a fixed port (so that its successor is found at the same
// address) running a 4-trial job of 3-second trials, and `jobs submit`
// following it from the background (--wait or --stream-logs).
class JobsCliRestartTest : public JobsCliTest {
 protected:
  void StartServerAndClient(const std::string& job_id,
                            std::vector<std::string> client_flags) {
    address_ = "127.0.0.1:" + std::to_string(UnusedPort());
    server_ = std::make_unique<ServeProcess>(
        testing::MakeTempDir(), std::vector<std::string>{"--listen", address_});
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    std::vector<std::string> argv = {
        testing::HptuneBinary(),       "jobs",     "submit", job_id, "--config",
        WriteConfig(dir_, 4, 10, 0.3), "--server", address_};
    argv.insert(argv.end(), client_flags.begin(), client_flags.end());
    client_ =
        testing::StartProcess(argv, dir_ + "/client.out", dir_ + "/client.err");
    // Kill the server only once trial 1 is training.
    ASSERT_TRUE(testing::PollUntil(
        [&] {
          return Hptune({"jobs", "stream-logs", job_id, "--trial", "1"},
                        address_)
                     .out.find("loss=") != std::string::npos;
        },
        std::chrono::seconds(30)))
        << server_->Output() << ClientErr();
  }

  // SIGKILLs the server, keeps it down until the client says it lost it,
  // starts it on the same address, and expects the client to end with exit
  // code 0.
  void RestartServerUnderTheClient() {
    server_->Stop(SIGKILL);
    ASSERT_TRUE(testing::PollUntil(
        [&] {
          return ClientErr().find("hptune: lost the server at " + address_) !=
                 std::string::npos;
        },
        std::chrono::seconds(60)))
        << ClientErr();
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    const std::optional<int> exit_code =
        testing::WaitForExit(client_, std::chrono::seconds(90));
    ASSERT_EQ(exit_code, 0) << ClientErr() << server_->Output();
  }

  // The client said it lost the server while following `what`, and that it
  // found it again.
  void ExpectLostAndFoundAgain(const std::string& what) const {
    const std::string err = ClientErr();
    EXPECT_THAT(err, HasSubstr("hptune: lost the server at " + address_ +
                               " while following " + what));
    EXPECT_THAT(err, HasSubstr("hptune: reconnected to " + address_ +
                               "; following " + what + " again"));
  }

  std::string ClientErr() const {
    return testing::ReadFileOrEmpty(dir_ + "/client.err");
  }

  std::string address_;
  std::unique_ptr<ServeProcess> server_;
  pid_t client_ = -1;
};

// A server restarted under a waiting client: the client reconnects, catches
// up, and reports every trial's result once and the job's end.
TEST_F(JobsCliRestartTest, AWaitingClientOutlivesAServerRestart) {
  ASSERT_NO_FATAL_FAILURE(StartServerAndClient("restarted", {"--wait"}));
  ASSERT_NO_FATAL_FAILURE(RestartServerUnderTheClient());
  ExpectLostAndFoundAgain("job restarted");
  const std::string err = ClientErr();
  for (int trial = 1; trial <= 4; ++trial) {
    EXPECT_EQ(testing::CountOccurrences(err, "hptune: trial " +
                                                 std::to_string(trial) +
                                                 " SUCCEEDED: loss="),
              1)
        << err;
  }
  // The new server's first event repeats the job's state: told once.
  EXPECT_EQ(testing::CountOccurrences(err, "hptune: job restarted RUNNING"), 1)
      << err;
  EXPECT_EQ(testing::CountOccurrences(
                err, "hptune: job restarted SUCCEEDED, trials 4/4"),
            1)
      << err;
  EXPECT_THAT(testing::ReadFileOrEmpty(dir_ + "/client.out"),
              HasSubstr("state:      SUCCEEDED"));
}

// The same restart under `jobs submit --stream-logs`: each log goes on from
// where it was, so what the client printed is every log whole, as reading
// them all afterwards shows.
TEST_F(JobsCliRestartTest, FollowedLogsOutliveAServerRestart) {
  ASSERT_NO_FATAL_FAILURE(StartServerAndClient("logged", {"--stream-logs"}));
  ASSERT_NO_FATAL_FAILURE(RestartServerUnderTheClient());
  ExpectLostAndFoundAgain("the logs of job logged");
  auto all = Hptune({"jobs", "stream-logs", "logged"}, address_);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("==> trial 4 master-0 <=="));
  EXPECT_EQ(testing::ReadFileOrEmpty(dir_ + "/client.out"), all.out);
}

// A server that does not come back: the client gives up after its window,
// says so, and exits 69 (no server reachable).
TEST_F(JobsCliRestartTest, AServerThatStaysDownEndsTheWaitAfterTheWindow) {
  ASSERT_NO_FATAL_FAILURE(StartServerAndClient(
      "abandoned", {"--wait", "--reconnect-seconds", "1"}));
  server_->Stop(SIGKILL);
  const std::optional<int> exit_code =
      testing::WaitForExit(client_, std::chrono::seconds(30));
  const std::string err = ClientErr();
  EXPECT_EQ(exit_code, 69) << err;
  EXPECT_THAT(err, HasSubstr("reconnecting for up to 1 s"));
  EXPECT_THAT(err, HasSubstr("lost the server at " + address_ +
                             " while following job abandoned, and no server "
                             "answered within 1 s (--reconnect-seconds)"));
}

TEST_F(JobsCliTest, NoServerExits69WithHowToStartOne) {
  const std::string a = "127.0.0.1:" + std::to_string(UnusedPort());
  const std::string message = "no hptune server reachable at " + a +
                              " (start one with `hptune serve`, or pass "
                              "--server)";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"jobs", "list"},
                                             {"jobs", "describe", "j"},
                                             {"jobs", "watch", "j"},
                                             {"trials", "list", "--study", "s"},
                                             {"studies", "list"}}) {
    auto result = Hptune(args, a);
    EXPECT_EQ(result.exit_code, 69) << args[0] << " " << args[1];
    EXPECT_THAT(result.err, HasSubstr(message));
  }
  // The config is checked before any round trip.
  const std::string bad = dir_ + "/bad.yaml";
  std::ofstream(bad) << "trainingInput:\n  hyperparameters: {maxTrials: 0}\n";
  auto submit = Hptune({"jobs", "submit", "j", "--config", bad}, a);
  EXPECT_EQ(submit.exit_code, 2);
  EXPECT_THAT(submit.err, HasSubstr("trainingInput.hyperparameters.maxTrials"));
}

// A config's `backend:` goes with the job and must be the server's; so do
// its `slurm:` options, which only a Slurm server takes (slurm_serve_test).
TEST_F(JobsCliTest, AConfigsBackendMustBeTheServers) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  EXPECT_THAT(server.Output(), HasSubstr("backend local"));
  const std::string plain = ReadFileOrEmpty(WriteConfig(dir_, 1, 1, 0));
  auto with_header = [&](const std::string& name, const std::string& header) {
    const std::string path = dir_ + "/" + name + ".yaml";
    std::ofstream(path) << header << plain;
    return path;
  };
  const std::string a = server.address();

  auto slurm = Hptune({"jobs", "submit", "on_slurm", "--config",
                       with_header("slurm", "backend: slurm\n")},
                      a);
  EXPECT_EQ(slurm.exit_code, 1) << slurm.err;
  EXPECT_THAT(slurm.err,
              HasSubstr("backend: the job asks for slurm, but this server "
                        "runs trials on local (start it with `hptune serve "
                        "--backend slurm`"));
  // Refused before anything was recorded.
  EXPECT_EQ(Hptune({"jobs", "describe", "on_slurm"}, a).exit_code, 3);

  auto block = Hptune({"jobs", "submit", "with_block", "--config",
                       with_header("block", "slurm: {partition: gpu}\n")},
                      a);
  EXPECT_EQ(block.exit_code, 1) << block.err;
  EXPECT_THAT(block.err,
              HasSubstr("slurm: the job has Slurm options, but this server "
                        "runs trials on local"));
  EXPECT_EQ(Hptune({"jobs", "describe", "with_block"}, a).exit_code, 3);

  // The same options as flags, with the plain config.
  const std::string plain_path = with_header("plain", "");
  auto flags = Hptune({"jobs", "submit", "with_flags", "--config", plain_path,
                       "--slurm-option=--qos=high"},
                      a);
  EXPECT_EQ(flags.exit_code, 1) << flags.err;
  EXPECT_THAT(flags.err,
              HasSubstr("slurm: the job has Slurm options, but this server "
                        "runs trials on local"));
  auto backend_flag = Hptune({"jobs", "submit", "with_flags", "--config",
                              plain_path, "--backend", "slurm"},
                             a);
  EXPECT_EQ(backend_flag.exit_code, 1) << backend_flag.err;
  EXPECT_THAT(backend_flag.err,
              HasSubstr("backend: the job asks for slurm, but this server"));
  EXPECT_EQ(Hptune({"jobs", "describe", "with_flags"}, a).exit_code, 3);
  // A malformed flag never reaches the server.
  auto bad_flag = Hptune({"jobs", "submit", "with_flags", "--config",
                          plain_path, "--slurm-time", "soon"},
                         a);
  EXPECT_EQ(bad_flag.exit_code, 2) << bad_flag.err;
  EXPECT_THAT(bad_flag.err, HasSubstr("--slurm-time: must be a Slurm time "
                                      "limit"));
  auto local_flags =
      Hptune({"jobs", "submit", "with_flags", "--config", plain_path,
              "--backend", "local", "--slurm-partition", "gpu"},
             a);
  EXPECT_EQ(local_flags.exit_code, 2) << local_flags.err;
  EXPECT_THAT(local_flags.err, HasSubstr("but the job names local"));

  // A malformed block never reaches the server.
  auto bad_block =
      Hptune({"jobs", "submit", "bad_block", "--config",
              with_header("bad_block",
                          "slurm: {time: soon, options: [--output=x]}\n")},
             a);
  EXPECT_EQ(bad_block.exit_code, 2) << bad_block.err;
  EXPECT_THAT(bad_block.err,
              AllOf(HasSubstr("slurm.time: must be a Slurm time limit"),
                    HasSubstr("got \"soon\""),
                    HasSubstr("slurm.options[0]: hptune sets --output itself "
                              "for each trial; got \"--output=x\"")));

  auto local = Hptune({"jobs", "submit", "on_local", "--config",
                       with_header("local", "backend: local\n"), "--wait"},
                      a);
  EXPECT_EQ(local.exit_code, 0) << local.err << server.Output();
  EXPECT_THAT(local.err, HasSubstr("job on_local SUCCEEDED"));
}

TEST_F(JobsCliTest, LabelsFromConfigAndFlagTagJobsAndFilterTheList) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string plain_path = WriteConfig(dir_, 1, 1, 0);
  const std::string labelled_path = dir_ + "/labelled.yaml";
  std::ofstream(labelled_path) << "labels: {team: vision, owner: ana}\n"
                               << ReadFileOrEmpty(plain_path);
  const std::string a = server.address();

  // --labels lays its pairs over the config's: owner replaced, stage added.
  auto vision = Hptune({"jobs", "submit", "vision_1", "--config", labelled_path,
                        "--labels", "owner=bo,stage=dev", "--wait", "--quiet"},
                       a);
  ASSERT_EQ(vision.exit_code, 0) << vision.err << server.Output();
  EXPECT_THAT(vision.out,
              HasSubstr("labels:     owner=bo, stage=dev, team=vision\n"));
  auto nlp = Hptune({"jobs", "submit", "nlp_1", "--config", plain_path,
                     "--labels", "team=nlp", "--wait", "--quiet"},
                    a);
  ASSERT_EQ(nlp.exit_code, 0) << nlp.err;
  auto plain = Hptune({"jobs", "submit", "plain_1", "--config", plain_path}, a);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;

  auto json = Hptune({"jobs", "describe", "vision_1", "--format", "json"}, a);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(
      nlohmann::json::parse(json.out)["labels"],
      nlohmann::json({{"team", "vision"}, {"owner", "bo"}, {"stage", "dev"}}));
  auto unlabelled = Hptune({"jobs", "describe", "plain_1"}, a);
  ASSERT_EQ(unlabelled.exit_code, 0) << unlabelled.err;
  EXPECT_THAT(unlabelled.out, Not(HasSubstr("labels:")));

  auto ids = [&](const std::string& filter) {
    auto list =
        Hptune({"jobs", "list", "--filter", filter, "--format", "csv"}, a);
    EXPECT_EQ(list.exit_code, 0) << filter << ": " << list.err;
    std::vector<std::string> found;
    std::vector<std::string> lines =
        absl::StrSplit(list.out, "\r\n", absl::SkipEmpty());
    for (size_t i = 1; i < lines.size(); ++i) {
      found.push_back(lines[i].substr(0, lines[i].find(',')));
    }
    return found;
  };
  EXPECT_EQ(ids("labels.team=vision"), std::vector<std::string>{"vision_1"});
  EXPECT_EQ(ids("labels.team=*"),
            (std::vector<std::string>{"nlp_1", "vision_1"}));
  EXPECT_EQ(ids("labels.team=nlp state=SUCCEEDED"),
            std::vector<std::string>{"nlp_1"});
  EXPECT_TRUE(ids("labels.team=vision labels.stage=prod").empty());

  // Bad labels and filters never reach the server.
  auto bad_flag = Hptune(
      {"jobs", "submit", "bad_1", "--config", plain_path, "--labels", "Team=x"},
      a);
  EXPECT_EQ(bad_flag.exit_code, 2) << bad_flag.err;
  EXPECT_THAT(bad_flag.err, HasSubstr("--labels: key \"Team\" must be 1 to "
                                      "63 characters"));
  auto no_value = Hptune(
      {"jobs", "submit", "bad_1", "--config", plain_path, "--labels", "team"},
      a);
  EXPECT_EQ(no_value.exit_code, 2) << no_value.err;
  EXPECT_THAT(no_value.err, HasSubstr("--labels: expected KEY=VALUE[,KEY="
                                      "VALUE...], got \"team\""));
  const std::string bad_config = dir_ + "/bad_labels.yaml";
  std::ofstream(bad_config) << "labels: {team: Vision}\n"
                            << ReadFileOrEmpty(plain_path);
  auto bad_file =
      Hptune({"jobs", "submit", "bad_1", "--config", bad_config}, a);
  EXPECT_EQ(bad_file.exit_code, 2) << bad_file.err;
  EXPECT_THAT(bad_file.err, HasSubstr("labels.team: value \"Vision\" of key "
                                      "\"team\" must be at most 63 "
                                      "characters"));
  EXPECT_EQ(Hptune({"jobs", "describe", "bad_1"}, a).exit_code, 3);
  auto bad_filter =
      Hptune({"jobs", "list", "--filter", "labels.team=Vision"}, a);
  EXPECT_EQ(bad_filter.exit_code, 2) << bad_filter.err;
  EXPECT_THAT(bad_filter.err,
              HasSubstr("--filter: value \"Vision\" of key \"team\""));
}

TEST_F(JobsCliTest, UpdateChangesLabelsAndPrintsThem) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string a = server.address();
  auto submit =
      Hptune({"jobs", "submit", "job_1", "--config", WriteConfig(dir_, 1, 1, 0),
              "--labels", "team=vision,draft=yes"},
             a);
  ASSERT_EQ(submit.exit_code, 0) << submit.err;

  auto update = Hptune({"jobs", "update", "job_1", "--update-labels",
                        "owner=ana,team=nlp", "--remove-labels", "draft"},
                       a);
  ASSERT_EQ(update.exit_code, 0) << update.err;
  EXPECT_EQ(update.out, "job job_1 labels: owner=ana, team=nlp\n");
  auto describe = Hptune({"jobs", "describe", "job_1"}, a);
  EXPECT_THAT(describe.out, HasSubstr("labels:     owner=ana, team=nlp\n"));
  auto json = Hptune(
      {"jobs", "update", "job_1", "--clear-labels", "--format", "json"}, a);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto job = nlohmann::json::parse(json.out);
  EXPECT_EQ(job["jobId"], "job_1");
  EXPECT_FALSE(job.contains("labels")) << json.out;
  auto cleared = Hptune({"jobs", "update", "job_1", "--update-labels",
                         "stage=prod", "--clear-labels"},
                        a);
  EXPECT_EQ(cleared.out, "job job_1 labels: stage=prod\n");

  auto nothing = Hptune({"jobs", "update", "job_1"}, a);
  EXPECT_EQ(nothing.exit_code, 64);
  EXPECT_THAT(nothing.err, HasSubstr("give --update-labels, --remove-labels "
                                     "or --clear-labels"));
  auto bad = Hptune({"jobs", "update", "job_1", "--remove-labels", "Team"}, a);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--remove-labels: key \"Team\" must be"));
  auto missing =
      Hptune({"jobs", "update", "job_9", "--update-labels", "a=b"}, a);
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("job_9"));
  EXPECT_THAT(Hptune({"jobs", "describe", "job_1"}, a).out,
              HasSubstr("labels:     stage=prod\n"));
}

// `hptune run` keeps its --labels in the database, where a server started
// on that database later finds the job by them.
TEST_F(JobsCliTest, ARunsLabelsAreInItsDatabaseForTheServer) {
  const std::string served_dir = testing::MakeTempDir();
  const std::string config = WriteConfig(dir_, 1, 1, 0);
  testing::ProcessResult run = testing::RunProcess(
      {testing::HptuneBinary(), "run", config, "--job-id", "run_1", "--db",
       served_dir + "/hptune.db", "--runs-dir", dir_ + "/runs", "--labels",
       "team=vision", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;

  ServeProcess server(served_dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  auto list = Hptune({"jobs", "list", "--filter", "labels.team=vision"},
                     server.address());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("run_1"));
  auto describe = Hptune({"jobs", "describe", "run_1"}, server.address());
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("labels:     team=vision\n"));
}

TEST_F(JobsCliTest, BadCommandLinesNameTheFlagAndValue) {
  const std::string a = "127.0.0.1:" + std::to_string(UnusedPort());
  const std::string config = WriteConfig(dir_, 2, 5, 0.01);
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"jobs", "list", "--bogus"}, 64, "unknown flag --bogus"},
      {{"jobs", "describe"}, 64, "expected one JOB, got 0 arguments"},
      {{"jobs", "frob"}, 64, "unknown command \"frob\""},
      {{"jobs", "list", "extra"}, 64, "takes no arguments, got \"extra\""},
      {{"jobs", "list", "--format", "xml"},
       2,
       "--format must be table, json or csv, got \"xml\""},
      {{"jobs", "list", "--limit", "0"},
       2,
       "--limit: expected an integer >= 1, got \"0\""},
      {{"jobs", "list", "--filter", "state=DONE"}, 2, "unknown state \"DONE\""},
      {{"jobs", "stream-logs", "j", "--trial", "x"},
       2,
       "--trial: expected an integer >= 1, got \"x\""},
      {{"jobs", "submit", "j", "--config", config, "--worker-count", "many"},
       2,
       "--worker-count: expected an integer >= 0, got \"many\""},
      {{"jobs", "submit", "9j", "--config", config}, 2, "JOB: "},
      {{"jobs", "submit", "j", "--config", dir_ + "/none.yaml"},
       3,
       "none.yaml"},
      {{"jobs", "watch", "j", "--reconnect-seconds", "-1"},
       2,
       "--reconnect-seconds: expected whole seconds from 0 to 31536000, got "
       "\"-1\""},
      {{"jobs", "list", "--timeout", "-1"},
       2,
       "--timeout: expected seconds in (0, 86400], got \"-1\""},
      {{"trials", "list", "--study", "s", "--db", "x.db"},
       64,
       "give --db FILE or --server ADDR, not both"},
  };
  for (const Case& c : cases) {
    auto result = Hptune(c.args, a);
    EXPECT_EQ(result.exit_code, c.exit_code) << c.args[1] << " " << result.err;
    EXPECT_THAT(result.err, HasSubstr(c.message)) << c.args[1];
  }
}

TEST_F(JobsCliTest, EveryCommandHasHelpWithAnExample) {
  for (const char* sub : {"submit", "list", "describe", "cancel", "delete",
                          "update", "stream-logs", "watch"}) {
    auto help =
        testing::RunProcess({testing::HptuneBinary(), "jobs", sub, "--help"});
    EXPECT_EQ(help.exit_code, 0) << sub;
    EXPECT_THAT(help.out, HasSubstr("usage: hptune jobs " + std::string(sub)));
    EXPECT_THAT(help.out, HasSubstr("Example"));
    EXPECT_THAT(help.out, HasSubstr("--server ADDR"));
  }
  auto jobs = testing::RunProcess({testing::HptuneBinary(), "jobs", "--help"});
  EXPECT_EQ(jobs.exit_code, 0);
  EXPECT_THAT(jobs.out, HasSubstr("69 no server reachable"));
  for (const char* command : {"trials", "studies"}) {
    auto help =
        testing::RunProcess({testing::HptuneBinary(), command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.out, HasSubstr("--token-file FILE"));
    EXPECT_THAT(help.out, HasSubstr("Example"));
  }
}

TEST_F(JobsCliTest, TokenFromFileOrEnvironmentIsSentAndChecked) {
  const std::string token = dir_ + "/token";
  const std::string wrong = dir_ + "/wrong";
  std::ofstream(token) << "correct-horse\n";
  std::ofstream(wrong) << "battery-staple\n";
  ServeProcess server(testing::MakeTempDir(), {"--token-file", token});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string a = server.address();

  auto none = Hptune({"jobs", "list"}, a);
  EXPECT_EQ(none.exit_code, 77);
  EXPECT_THAT(none.err, HasSubstr("the server at " + a + " refused the call"));
  auto bad = Hptune({"jobs", "list", "--token-file", wrong}, a);
  EXPECT_EQ(bad.exit_code, 77);
  EXPECT_THAT(bad.err, HasSubstr("refused the call"));
  auto good = Hptune({"jobs", "list", "--token-file", token}, a);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_THAT(good.out, HasSubstr("jobId"));

  setenv("HPTUNE_TOKEN", "correct-horse", 1);
  auto from_env = Hptune({"studies", "list"}, a);
  unsetenv("HPTUNE_TOKEN");
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
}

TEST_F(JobsCliTest, TlsWithTheServersCertificateAsRoot) {
  if (testing::RunProcess({"/bin/sh", "-c", "command -v openssl"}).exit_code !=
      0) {
    GTEST_SKIP() << "openssl is not installed";
  }
  const std::string cert = dir_ + "/cert.pem";
  const std::string key = dir_ + "/key.pem";
  auto made = testing::RunProcess(
      {"/usr/bin/env", "openssl", "req", "-x509", "-newkey", "rsa:2048",
       "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj",
       "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ServeProcess server(testing::MakeTempDir(),
                      {"--tls-cert", cert, "--tls-key", key});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string a = server.address();

  auto tls = Hptune({"jobs", "list", "--tls-ca", cert}, a);
  EXPECT_EQ(tls.exit_code, 0) << tls.err;
  setenv("HPTUNE_TLS_CA", cert.c_str(), 1);
  auto from_env = Hptune({"studies", "list"}, a);
  unsetenv("HPTUNE_TLS_CA");
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;

  auto plaintext = Hptune({"jobs", "list"}, a);
  EXPECT_EQ(plaintext.exit_code, 69);
  EXPECT_THAT(plaintext.err, HasSubstr("tried plaintext: if the server uses "
                                       "--tls-cert, pass --tls-ca"));
}

}  // namespace
}  // namespace hptune
