// `hptune serve --backend slurm`, a real server process on 127.0.0.1 whose
// jobs' trials run on the Slurm test cluster of scripts/start-slurm
// (started by ctest's slurm_cluster fixture): a job submitted with
// `hptune jobs submit` runs as Slurm jobs on both nodes, and a job that
// asks for the local backend is refused. Then the errors of bad backend
// flags and of an unreachable controller, which need no cluster.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/launch/slurm/slurm_cluster.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunProcess;
using testing::ServeProcess;

class SlurmServeTest : public testing_slurm::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* name : {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_DB"}) {
      unsetenv(name);
    }
    dir_ = testing::MakeTempDir();
  }
  std::string dir_;
};

TEST_F(SlurmServeTest, ASubmittedJobRunsAsSlurmJobsOnBothNodes) {
  // Two tasks a node: the master and a worker on n1 (127.0.0.1), the other
  // worker and the ps on n2 (127.0.0.2).
  ServeProcess server(
      testing::MakeTempDir(),
      {"--backend", "slurm", "--slurm-option=--ntasks-per-node=2"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  EXPECT_THAT(server.Output(), HasSubstr("backend slurm"));

  auto submit = RunProcess(
      {testing::HptuneBinary(), "jobs", "submit", "stdlib", "--config",
       testing::SourceDir() + "/examples/stdlib_trainer/config.yaml",
       "--max-trials", "2", "--max-parallel-trials", "2", "--job-dir",
       dir_ + "/job", "--wait", "--server", server.address()});
  ASSERT_EQ(submit.exit_code, 0) << submit.err << server.Output();
  EXPECT_THAT(submit.err, HasSubstr("job stdlib SUCCEEDED"));
  for (const std::string trial : {"1", "2"}) {
    // Each trial ran as srun steps whose replicas ran on both nodes and
    // talked over the nodes' addresses: the parameter server checkpointed
    // after synchronous SGD with the master and both workers.
    const std::string slurm_dir =
        server.runs_dir() + "/stdlib/" + trial + "/slurm/1";
    EXPECT_TRUE(fs::exists(slurm_dir + "/allocation")) << slurm_dir;
    EXPECT_EQ(testing::ReadFileOrEmpty(slurm_dir + "/hosts"),
              "127.0.0.1\n127.0.0.1\n127.0.0.2\n127.0.0.2\n");
    EXPECT_TRUE(fs::exists(dir_ + "/job/" + trial + "/checkpoint.json"));
  }
  // The allocations the trials ran in went with the job.
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.stdlib.allocation", "%A"),
              ::testing::SizeIs(0));

  // A job that asks for local processes is refused, not run on Slurm.
  v1::SubmitJobRequest request;
  request.set_job_id("wants_local");
  request.set_backend("local");
  request.mutable_training_input()->set_scale_tier(v1::TrainingInput::BASIC);
  v1::Job job;
  grpc::Status status =
      server.JobStub()->SubmitJob(testing::Context().get(), request, &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("this server runs trials on slurm"));
}

int64_t MicrosOf(const google::protobuf::Timestamp& t) {
  return t.seconds() * 1'000'000 + t.nanos() / 1000;
}

// Trial 1 of job `job_id`, as GetJob returns it.
v1::HyperparameterOutput TrialOne(const ServeProcess& server,
                                  const std::string& job_id) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  grpc::Status status =
      server.JobStub()->GetJob(testing::Context().get(), request, &job);
  EXPECT_TRUE(status.ok()) << status.error_message();
  if (job.training_output().trials_size() == 0) return {};
  return job.training_output().trials(0);
}

// A trial whose Slurm job waits in the cluster's queue is QUEUED in the job,
// not RUNNING, until Slurm starts it; a client following the job sees both.
TEST_F(SlurmServeTest, ATrialWaitingInTheClustersQueueIsQueuedUntilItStarts) {
  const std::string dumps = testing::MakeTempDir();
  const testing_slurm::DumpTrainerEnvironment dump_settings(dumps, "2", "0.5");
  ServeProcess server(testing::MakeTempDir(), {"--backend", "slurm"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string config = dir_ + "/job.yaml";
  testing_slurm::WriteReattachJob(
      config, testing::SourceDir() + "/tests/launch/testdata/dump_trainer.py");
  const pid_t submit = testing::StartProcess(
      {testing::HptuneBinary(), "jobs", "submit", "served_held", "--config",
       config, std::string("--slurm-option=") + testing_slurm::kHoldOption,
       "--wait", "--server", server.address()},
      dir_ + "/submit.out", dir_ + "/submit.err");
  const testing::StopOnExit stop_submit(submit);
  auto describe = [&](const std::string& format) {
    return RunProcess({testing::HptuneBinary(), "jobs", "describe",
                       "served_held", "--format", format, "--server",
                       server.address()})
        .out;
  };
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return describe("table").find("0 running, 1 queued") !=
               std::string::npos;
      },
      std::chrono::seconds(30)))
      << describe("table") << server.Output();
  EXPECT_THAT(describe("json"), HasSubstr("\"state\": \"QUEUED\""));
  // The job itself is PREPARING until a trial runs, as AI Platform's is
  // until its workers are up.
  EXPECT_THAT(describe("json"), HasSubstr("\"state\": \"PREPARING\""));
  // Held by Slurm: nothing of the trial has run.
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.served_held.allocation", "%T"),
              ::testing::ElementsAre("PENDING"));
  EXPECT_FALSE(fs::exists(dumps + "/master-0.json"));
  // Nor has it started: a queued trial has no start time yet.
  EXPECT_FALSE(TrialOne(server, "served_held").has_start_time());

  const int64_t released =
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  ASSERT_TRUE(
      testing_slurm::StartHeldJobs("hptune.served_held.allocation", &error))
      << error;
  EXPECT_EQ(testing::WaitForExit(submit, std::chrono::seconds(60)), 0)
      << testing::ReadFileOrEmpty(dir_ + "/submit.err") << server.Output();
  const std::string events = testing::ReadFileOrEmpty(dir_ + "/submit.err");
  const size_t queued = events.find("trial 1 QUEUED");
  const size_t running = events.find("trial 1 RUNNING");
  EXPECT_NE(queued, std::string::npos) << events;
  EXPECT_NE(running, std::string::npos) << events;
  EXPECT_LT(queued, running) << events;
  EXPECT_LT(queued, events.find("job served_held RUNNING")) << events;
  EXPECT_THAT(events, HasSubstr("job served_held SUCCEEDED"));
  // Its start is when Slurm let it run, not when it was queued.
  const v1::HyperparameterOutput trial = TrialOne(server, "served_held");
  ASSERT_TRUE(trial.has_start_time());
  EXPECT_GE(MicrosOf(trial.start_time()), released);
}

// A draining server (SIGTERM) ends the allocations its jobs' lanes held,
// not only their trials' steps.
TEST_F(SlurmServeTest, AfterSigtermNoAllocationIsLeft) {
  const std::string dumps = testing::MakeTempDir();
  const testing_slurm::DumpTrainerEnvironment dump_settings(dumps, "forever",
                                                            "0.5");
  ServeProcess server(testing::MakeTempDir(), {"--backend", "slurm"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string config = dir_ + "/job.yaml";
  testing_slurm::WriteReattachJob(
      config, testing::SourceDir() + "/tests/launch/testdata/dump_trainer.py");
  auto submit =
      RunProcess({testing::HptuneBinary(), "jobs", "submit", "drained_lanes",
                  "--config", config, "--server", server.address()});
  ASSERT_EQ(submit.exit_code, 0) << submit.err << server.Output();
  ASSERT_TRUE(
      testing::PollUntil([&] { return fs::exists(dumps + "/master-0.json"); },
                         std::chrono::seconds(60)))
      << server.Output();
  ASSERT_THAT(
      testing_slurm::QueuedJobs("hptune.drained_lanes.allocation", "%A"),
      ::testing::SizeIs(1));
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Output();
  EXPECT_THAT(testing_slurm::QueuedJobs("hptune.drained_lanes.allocation"),
              ::testing::IsEmpty());
}

// The re-attach job, submitted to a Slurm server, with its master running
// inside its Slurm job when this returns.
class SlurmServeResumeTest : public SlurmServeTest {
 protected:
  void SetUp() override {
    SlurmServeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string config = dir_ + "/job.yaml";
    testing_slurm::WriteReattachJob(
        config,
        testing::SourceDir() + "/tests/launch/testdata/dump_trainer.py");
    // The job's own sbatch options, which the database keeps for the next
    // server: the config's time limit, replaced by the flag's, and an
    // option from a flag.
    std::ofstream(config, std::ios::app) << "slurm: {time: \"8\"}\n";
    fs::create_directories(dumps_);
    std::string error;
    ASSERT_TRUE(server_.Start(&error)) << error;
    auto submit =
        RunProcess({testing::HptuneBinary(), "jobs", "submit", job_id_,
                    "--config", config, "--slurm-time", "9",
                    "--slurm-option=--nice=2", "--server", server_.address()});
    ASSERT_EQ(submit.exit_code, 0) << submit.err << server_.Output();
    ASSERT_TRUE(testing::PollUntil(
        [&] { return fs::exists(dumps_ + "/master-0.json"); },
        std::chrono::seconds(60)))
        << server_.Output();
    ASSERT_THAT(testing_slurm::QueuedJobs(SlurmJobName(), "%l %y"),
                ::testing::ElementsAre("9:00 2"));
  }

  // Starts the server again and waits for the job to end; its exit code.
  int RestartAndWatch() {
    std::string error;
    EXPECT_TRUE(server_.Start(&error)) << error;
    return Watch();
  }
  // Waits for the job to end; the exit code of `jobs watch`.
  int Watch() {
    auto watch = RunProcess({testing::HptuneBinary(), "jobs", "watch", job_id_,
                             "--server", server_.address()});
    EXPECT_THAT(watch.err + watch.out, HasSubstr("SUCCEEDED"))
        << watch.err << server_.Output();
    return watch.exit_code;
  }

  std::string Starts(const std::string& replica) const {
    return testing::ReadFileOrEmpty(dumps_ + "/" + replica + ".starts");
  }

  // The trial's Slurm job, "hptune.<job>.1".
  std::string SlurmJobName() const { return "hptune." + job_id_ + ".1"; }

  // Each test's own, so that no test sees another's Slurm job.
  const std::string job_id_ =
      std::string("resumed_") +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string dumps_ = testing::MakeTempDir();
  // The server's environment reaches the replicas.
  const testing_slurm::DumpTrainerEnvironment dump_settings_{dumps_, "4",
                                                             "0.75"};
  // A batch job per trial: it outlives its server.
  ServeProcess server_{testing::MakeTempDir(),
                       {"--backend", "slurm", "--slurm-allocation=per-trial"}};
};

// A server SIGKILLed while a trial runs as a Slurm job: the next server on
// the same database attaches to that job instead of launching the trial
// again, and the master's one report is stored once.
TEST_F(SlurmServeResumeTest, AfterSigkillTheNextServerReattaches) {
  server_.Stop(SIGKILL);
  ASSERT_THAT(testing_slurm::QueuedJobs(SlurmJobName(), "%A"),
              ::testing::SizeIs(1));
  ASSERT_EQ(RestartAndWatch(), 0);
  // One start per replica: the second server attached to the first's job.
  EXPECT_EQ(Starts("master-0"), "1");
  EXPECT_EQ(Starts("worker-0"), "1");
  EXPECT_FALSE(fs::exists(server_.runs_dir() + "/" + job_id_ + "/1/slurm/2"));
  auto trial =
      RunProcess({testing::HptuneBinary(), "trials", "describe", "1", "--study",
                  job_id_, "--server", server_.address(), "--format", "json"});
  ASSERT_EQ(trial.exit_code, 0) << trial.err;
  EXPECT_THAT(trial.out, HasSubstr("0.75"));
  EXPECT_EQ(testing_slurm::QueuedJobs(SlurmJobName(), "%A").size(), 0u);
}

// SIGTERM drains: the trial's Slurm job is cancelled before the server
// exits 0, and the next server runs the trial again.
TEST_F(SlurmServeResumeTest, AfterSigtermNothingIsLeftOnTheCluster) {
  EXPECT_EQ(server_.Stop(SIGTERM), 0) << server_.Output();
  EXPECT_THAT(testing_slurm::QueuedJobs(SlurmJobName(), "%A"),
              ::testing::SizeIs(0));
  std::string error;
  ASSERT_TRUE(server_.Start(&error)) << error;
  // The trial's new Slurm job has the job's options, read from the database.
  ASSERT_TRUE(testing::PollUntil([&] { return Starts("master-0") == "2"; },
                                 std::chrono::seconds(60)))
      << server_.Output();
  EXPECT_THAT(testing_slurm::QueuedJobs(SlurmJobName(), "%l %y"),
              ::testing::ElementsAre("9:00 2"));
  auto describe = RunProcess({testing::HptuneBinary(), "jobs", "describe",
                              job_id_, "--server", server_.address()});
  EXPECT_THAT(describe.out, HasSubstr("slurm:      --time=9 --nice=2"));
  ASSERT_EQ(Watch(), 0);
  EXPECT_EQ(Starts("master-0"), "2");
}

// Without a cluster: the errors a user sees.
TEST(SlurmServeErrorsTest, BackendFlagsAreCheckedBeforeServing) {
  const std::string dir = testing::MakeTempDir();
  const std::vector<std::string> base = {
      testing::HptuneBinary(), "serve", "--listen",
      "127.0.0.1:0",           "--db",  dir + "/h.db"};
  auto with = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), flags.begin(), flags.end());
    return RunProcess(argv);
  };
  auto partition = with({"--slurm-partition", "gpu"});
  EXPECT_EQ(partition.exit_code, 64) << partition.err;
  EXPECT_THAT(partition.err,
              HasSubstr("hptune serve: --slurm-* flags need --backend slurm"));
  EXPECT_THAT(partition.err, Not(HasSubstr("config")));
  auto option = with({"--slurm-option=--qos=high"});
  EXPECT_EQ(option.exit_code, 64) << option.err;
  auto bad = with({"--backend", "kubernetes"});
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("--backend: expected local or slurm, got "
                                 "\"kubernetes\""));
  auto gpus = with({"--backend", "slurm", "--gpus", "2"});
  EXPECT_EQ(gpus.exit_code, 64) << gpus.err;
  EXPECT_THAT(gpus.err, HasSubstr("--gpus is for the local backend"));
  auto time = with({"--backend", "slurm", "--slurm-time", "soon"});
  EXPECT_EQ(time.exit_code, 64) << time.err;
  EXPECT_THAT(time.err, HasSubstr("--slurm-time: must be a Slurm time limit"));
  auto reserved =
      with({"--backend", "slurm", "--slurm-option", "--output=/tmp/x"});
  EXPECT_EQ(reserved.exit_code, 64) << reserved.err;
  EXPECT_THAT(reserved.err,
              HasSubstr("--slurm-option: hptune sets --output itself for each "
                        "trial; got \"--output=/tmp/x\""));
  const std::vector<std::pair<std::string, std::string>> gpu_types = {
      {"NVIDIA_TESLA_T4",
       "expected GPU_TYPE=SLURM_GPU_TYPE such as "
       "NVIDIA_TESLA_T4=t4, got \"NVIDIA_TESLA_T4\""},
      {"TESLA_T4=t4", "unknown GPU type \"TESLA_T4\" (one of "},
      {"NVIDIA_TESLA_T4=t4:2", "the Slurm GPU type must be one word"},
      {"NVIDIA_TESLA_T4=", "the Slurm GPU type must be one word"},
  };
  for (const auto& [value, message] : gpu_types) {
    auto typed = with({"--backend", "slurm", "--slurm-gpu-type", value});
    EXPECT_EQ(typed.exit_code, 64) << typed.err;
    EXPECT_THAT(typed.err, HasSubstr("--slurm-gpu-type: " + message));
  }
  auto twice =
      with({"--backend", "slurm", "--slurm-gpu-type=NVIDIA_TESLA_T4=t4",
            "--slurm-gpu-type=NVIDIA_TESLA_T4=tesla"});
  EXPECT_EQ(twice.exit_code, 64) << twice.err;
  EXPECT_THAT(twice.err, HasSubstr("NVIDIA_TESLA_T4 is given twice"));
  auto local_typed = with({"--slurm-gpu-type=NVIDIA_TESLA_T4=t4"});
  EXPECT_EQ(local_typed.exit_code, 64) << local_typed.err;
  EXPECT_THAT(local_typed.err, HasSubstr("--slurm-* flags need --backend"));
  EXPECT_FALSE(fs::exists(dir + "/h.db"));
}

TEST(SlurmServeErrorsTest, AnUnreachableControllerExitsUnavailable) {
  HPTUNE_SKIP_UNLESS_AVAILABLE(testing_slurm::SlurmCommandsInstalled(), "slurm",
                               "Slurm's commands are not installed");
  const std::string dir = testing::MakeTempDir();
  testing_slurm::ExpectUnreachableControllerExits69(
      dir,
      {testing::HptuneBinary(), "serve", "--listen", "127.0.0.1:0", "--db",
       dir + "/h.db", "--backend", "slurm"},
      "hptune serve");
  EXPECT_FALSE(fs::exists(dir + "/h.db"));
}

}  // namespace
}  // namespace hptune
