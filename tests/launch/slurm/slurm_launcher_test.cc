// Integration tests of SlurmLauncher on the test cluster of
// scripts/start-slurm (two nodes, n1 at 127.0.0.1 and n2 at 127.0.0.2, four
// fake GPUs each), which ctest starts as a fixture. Each replica is
// tests/launch/testdata/dump_trainer.py, which writes down the argv and
// environment it got. Skipped, saying why, only where the cluster cannot
// run (not root, Slurm not installed).
#include "hptune/launch/slurm_launcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hptune/core/status.h"
#include "hptune/launch/replica_env.h"
#include "nlohmann/json.hpp"
#include "src/launch/capture_output.h"
#include "tests/launch/slurm/slurm_cluster.h"
#include "tests/launch/trial_run_waits.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kTrainer[] = HPTUNE_LAUNCH_TESTDATA "/dump_trainer.py";
constexpr auto kDeadline = std::chrono::seconds(40);
constexpr auto kPoll = std::chrono::milliseconds(20);

using testing_waits::ReadFile;

using testing_slurm::QueuedJobs;

class SlurmLauncherTest : public testing_slurm::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A batch job per trial: tests/integration/slurm_allocation_test.cc
    // has the allocations reused across trials.
    auto launcher = SlurmLauncher::Create(
        SlurmOptions{.env = &DefaultEnv(),
                     .sbatch = {.options = {"--ntasks-per-node=2"}},
                     .state_poll_interval = std::chrono::milliseconds(200),
                     .allocation = SlurmAllocation::kPerTrial});
    ASSERT_OK(launcher);
    launcher_ = *std::move(launcher);

    root_ = hptune::testing::MakeTempDir();
    dump_dir_ = root_ / "dumps";
    fs::create_directories(dump_dir_);
    // Unique per test, so jobs of one test never look like another's.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    job_.job_id = std::string("slurm_") + info->name();
    job_.scale_tier = ScaleTier::kCustom;
    job_.master = {.count = 1, .machine_type = "n1-standard-4"};
    job_.worker = {.count = 2, .machine_type = "n1-standard-4"};
    job_.parameter_server = {.count = 1, .machine_type = "n1-standard-4"};
    job_.command = {"python3", kTrainer};
    job_.args = {"--epochs=3", "a b"};
    StudySpec study;
    study.SetSingleMetric("accuracy");
    study.search_space = SearchSpace({
        {.name = "lr",
         .type = ParameterType::kDouble,
         .min_value = 1e-4,
         .max_value = 1},
    });
    job_.study = study;
  }

  TrialLaunch MakeLaunch(int64_t trial, std::unique_ptr<Placement>* placement,
                         const std::map<std::string, std::string>& env = {}) {
    std::vector<ReplicaRequest> requests = ReplicaRequests(job_);
    auto reserved = launcher_->Reserve(requests);
    EXPECT_OK(reserved);
    if (!reserved.ok()) return {};
    *placement = *std::move(reserved);
    TrialContext context{.job = &job_,
                         .trial = trial,
                         .parameters = {{"lr", ParameterValue::Double(0.01)}},
                         .metric_tag = "accuracy",
                         .trial_dir = root_ / "trials" / std::to_string(trial)};
    auto launch = BuildTrialLaunch(context, requests, (*placement)->replicas());
    EXPECT_OK(launch);
    if (!launch.ok()) return {};
    for (ReplicaLaunch& replica : launch->replicas) {
      replica.env["DUMP_DIR"] = dump_dir_.string();
      replica.env["DUMP_EXTRA_ENV"] =
          "SLURMD_NODENAME,SLURM_JOB_NAME,SLURM_JOB_ID";
      for (const auto& [name, value] : env) replica.env[name] = value;
    }
    return *launch;
  }

  // Trial 1, held in the queue by its --begin time.
  absl::StatusOr<std::unique_ptr<TrialRun>> StartHeldTrial(
      std::unique_ptr<Placement>* placement) {
    TrialLaunch launch = MakeLaunch(1, placement);
    JobSpec held = job_;
    held.slurm.options = {testing_slurm::kHoldOption};
    HPTUNE_RETURN_IF_ERROR(launcher_->BeginJob(held));
    return launcher_->Start(launch);
  }

  std::map<int, ReplicaExit> WaitForExits(TrialRun& run, size_t count) {
    return testing_waits::WaitForExits(run, count, kDeadline, kPoll);
  }

  Json WaitForDump(const std::string& name, int attempt = 1) {
    return testing_waits::WaitForDump(dump_dir_, name, attempt, kDeadline,
                                      kPoll);
  }

  std::unique_ptr<SlurmLauncher> launcher_;
  fs::path root_;
  fs::path dump_dir_;
  JobSpec job_;
};

TEST_F(SlurmLauncherTest, ReplicasAreSlurmTasksThatSeeTheRealAllocation) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement, {{"DUMP_SLEEP", "2"}});
  ASSERT_THAT(launch.replicas, SizeIs(4));
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);

  const std::string name = SlurmLauncher::JobName(job_.job_id, 1);
  // While the replicas sleep, each is a step of the job: replica-0..3.
  std::vector<std::string> job = QueuedJobs(name, "%A");
  ASSERT_THAT(job, SizeIs(1));
  std::set<std::string> steps;
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (steps.size() < 4 && std::chrono::steady_clock::now() < deadline) {
    auto out = RunCapturingOutput(
        DefaultEnv(), {"squeue", "-h", "-s", "-j", job[0], "-o", "%j"});
    ASSERT_OK(out);
    std::stringstream in(out->out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("replica-", 0) == 0) steps.insert(line);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(steps, (std::set<std::string>{"replica-0", "replica-1", "replica-2",
                                          "replica-3"}))
      << "the steps squeue -s shows";

  std::map<int, ReplicaExit> exits = WaitForExits(**run, 4);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded()) << replica << " " << exit.exit_code;
  }

  // Two tasks per node: master and worker 0 on n1, worker 1 and ps on n2,
  // and TF_CONFIG holds each node's address with the port Reserve() chose.
  const std::vector<ReplicaPlacement>& at = placement->replicas();
  const std::vector<std::string> names = {"master-0", "worker-0", "worker-1",
                                          "ps-0"};
  std::map<std::string, std::string> address_of_node = {{"n1", "127.0.0.1"},
                                                        {"n2", "127.0.0.2"}};
  std::vector<std::string> addresses;
  std::set<std::string> nodes;
  for (size_t i = 0; i < names.size(); ++i) {
    Json dump = WaitForDump(names[i]);
    const std::string node = dump["env"].value("SLURMD_NODENAME", "");
    nodes.insert(node);
    // Each replica is its own step ("replica-<i>") of the trial's job.
    EXPECT_EQ(dump["env"].value("SLURM_JOB_NAME", ""),
              "replica-" + std::to_string(i));
    EXPECT_EQ(dump["env"].value("SLURM_JOB_ID", ""), job[0]);
    addresses.push_back(address_of_node[node] + ":" +
                        std::to_string(at[i].port));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
  const Json cluster = {{"master", {addresses[0]}},
                        {"worker", {addresses[1], addresses[2]}},
                        {"ps", {addresses[3]}}};
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    Json dump = WaitForDump(names[i]);
    EXPECT_EQ(dump["tf_config"]["cluster"], cluster);
    EXPECT_EQ(dump["cluster_spec"]["cluster"], cluster);
    const Json& env = dump["env"];
    EXPECT_EQ(env["MASTER_ADDR"],
              addresses[0].substr(0, addresses[0].find(':')));
    EXPECT_EQ(env["MASTER_PORT"], std::to_string(at[0].port));
    EXPECT_EQ(env["WORLD_SIZE"], "3");
    EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "");
    EXPECT_EQ(env["CLOUD_ML_TRIAL_ID"], "1");
    EXPECT_THAT(dump["argv"].get<std::vector<std::string>>(),
                ::testing::ElementsAre("--epochs=3", "a b", "--lr=0.01"));
    // Logs at the local backend's paths.
    EXPECT_THAT(ReadFile(launch.replicas[i].log_path),
                HasSubstr("dump_trainer " + names[i] + " attempt 1 started"));
  }
  (*run)->Terminate(std::chrono::seconds(1));
  EXPECT_THAT(QueuedJobs(name), SizeIs(0));
}

TEST_F(SlurmLauncherTest, GpusComeFromSlurmGresPerReplica) {
  job_.master.accelerator = {.count = 2, .type = "NVIDIA_TESLA_T4"};
  job_.worker.accelerator = {.count = 1, .type = "NVIDIA_TESLA_T4"};
  job_.parameter_server.count = 0;
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement);
  ASSERT_THAT(launch.replicas, SizeIs(3));
  // Without --ntasks-per-node=2, which the master's one-task component
  // cannot satisfy.
  auto plain = SlurmLauncher::Create({.env = &DefaultEnv()});
  ASSERT_OK(plain);
  auto run = (*plain)->Start(launch);
  ASSERT_OK(run);
  WaitForExits(**run, 3);
  auto gpus = [&](const std::string& name) {
    std::string visible =
        WaitForDump(name)["env"].value("CUDA_VISIBLE_DEVICES", "<unset>");
    return visible;
  };
  const std::string master = gpus("master-0");
  const std::string worker0 = gpus("worker-0");
  const std::string worker1 = gpus("worker-1");
  // Two shapes, so a heterogeneous job: the master's component and the
  // workers' on different nodes; each replica sees exactly its own GPUs.
  EXPECT_EQ(std::count(master.begin(), master.end(), ',') + 1, 2) << master;
  EXPECT_THAT(worker0, ::testing::MatchesRegex("[0-3]"));
  EXPECT_THAT(worker1, ::testing::MatchesRegex("[0-3]"));
  EXPECT_NE(WaitForDump("master-0")["env"]["SLURMD_NODENAME"],
            WaitForDump("worker-0")["env"]["SLURMD_NODENAME"]);
  if (WaitForDump("worker-0")["env"]["SLURMD_NODENAME"] ==
      WaitForDump("worker-1")["env"]["SLURMD_NODENAME"]) {
    EXPECT_NE(worker0, worker1) << "two workers on one node share a GPU";
  }
}

TEST_F(SlurmLauncherTest, FailedReplicaRestartsAsANewStepOfTheSameJob) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement,
                                  {{"DUMP_FAIL_TIMES_WORKER_1", "1"},
                                   {"DUMP_FAIL_CODE", "3"},
                                   {"DUMP_SLEEP_MASTER", "forever"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  // Worker 1 fails; worker 0 and the ps are done.
  std::map<int, ReplicaExit> exits = WaitForExits(**run, 3);
  ASSERT_EQ(exits.count(2), 1u);
  EXPECT_EQ(exits[2].exit_code, 3);
  EXPECT_EQ(exits[2].signal, 0);
  EXPECT_TRUE((*run)->IsRunning(0));
  EXPECT_FALSE((*run)->IsRunning(2));
  EXPECT_THAT((*run)->Restart(0),
              StatusHasCode(absl::StatusCode::kFailedPrecondition));

  ASSERT_OK((*run)->Restart(2));
  EXPECT_TRUE((*run)->IsRunning(2));
  Json second = WaitForDump("worker-1", 2);
  std::map<int, ReplicaExit> again = WaitForExits(**run, 1);
  EXPECT_TRUE(again[2].succeeded());
  // Same environment, same Slurm job: one job of that name, never two.
  EXPECT_EQ(second["tf_config"]["cluster"],
            WaitForDump("master-0")["tf_config"]["cluster"]);
  EXPECT_THAT(QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1)), SizeIs(1));
  (*run)->Terminate(std::chrono::seconds(1));
}

TEST_F(SlurmLauncherTest, TerminateCancelsTheJobAndNoProcessRemains) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(
      1, &placement, {{"DUMP_SLEEP", "forever"}, {"DUMP_GRANDCHILD", "1"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  std::vector<pid_t> pids;
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    Json dump = WaitForDump(name);
    pids.push_back(dump["pid"].get<pid_t>());
    pids.push_back(dump["grandchild_pid"].get<pid_t>());
  }
  (*run)->Terminate(std::chrono::seconds(2));
  EXPECT_THAT(QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1)), SizeIs(0));
  // slurmd kills whatever is left of a step; give it its KillWait.
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  for (pid_t pid : pids) {
    while (kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(kill(pid, 0), 0) << "process " << pid << " is still alive";
  }
  for (int i = 0; i < 4; ++i) EXPECT_FALSE((*run)->IsRunning(i));
  auto polled = (*run)->Poll();
  ASSERT_OK(polled);
  EXPECT_THAT(*polled, SizeIs(0));
}

// Counts the files in `dir` whose names start with `prefix`.
int CountFiles(const fs::path& dir, const std::string& prefix) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with(prefix)) ++count;
  }
  return count;
}

// On SIGTERM each replica takes 5 s to wind down (saving a checkpoint, say),
// longer than the cluster's KillWait of 2 s: only a running job's replicas
// signalled first, with the grace to exit, get to finish; cancelling the job
// outright would SIGKILL them after KillWait.
TEST_F(SlurmLauncherTest, TerminateGivesRunningReplicasTheGraceToFinish) {
  job_.command = {"python3", "-c", R"(import os, signal, time
asked = []
signal.signal(signal.SIGTERM, lambda *_: asked.append(1))
d, pid = os.environ["DUMP_DIR"], str(os.getpid())
open(os.path.join(d, "ready." + pid), "w").close()
while not asked:
    time.sleep(0.05)
time.sleep(5)
open(os.path.join(d, "finished." + pid), "w").close()
)"};
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement);
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (CountFiles(dump_dir_, "ready.") < 4 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kPoll);
  }
  ASSERT_EQ(CountFiles(dump_dir_, "ready."), 4);
  (*run)->Terminate(std::chrono::seconds(20));
  EXPECT_EQ(CountFiles(dump_dir_, "finished."), 4);
  EXPECT_THAT(QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1)), SizeIs(0));
}

TEST_F(SlurmLauncherTest, ReattachFindsTheRunningJobInsteadOfADuplicate) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch =
      MakeLaunch(1, &placement, {{"DUMP_SLEEP_MASTER", "forever"}});
  auto first = launcher_->Start(launch);
  ASSERT_OK(first);
  WaitForExits(**first, 3);  // The workers and the ps are done.
  WaitForDump("master-0");

  auto attached = launcher_->Reattach(launch);
  ASSERT_OK(attached);
  ASSERT_NE(*attached, nullptr);
  const std::string name = SlurmLauncher::JobName(job_.job_id, 1);
  EXPECT_THAT(QueuedJobs(name), SizeIs(1));
  // The exits the first runner saw are reported again (it may have died
  // before acting on them); the master still runs.
  std::map<int, ReplicaExit> exits = WaitForExits(**attached, 3);
  EXPECT_EQ(exits.count(0), 0u);
  EXPECT_TRUE((*attached)->IsRunning(0));
  (*attached)->Terminate(std::chrono::seconds(1));
  EXPECT_THAT(QueuedJobs(name), SizeIs(0));

  // Nothing left to attach to: the caller starts afresh.
  auto none = launcher_->Reattach(launch);
  ASSERT_OK(none);
  EXPECT_EQ(*none, nullptr);
}

TEST_F(SlurmLauncherTest, ReplicaKilledWithItsJobIsReportedAndNotRestarted) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement, {{"DUMP_SLEEP", "forever"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  WaitForDump("master-0");
  // Someone else cancels the job (or its time limit passes).
  auto job = QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1), "%A");
  ASSERT_THAT(job, SizeIs(1));
  ASSERT_OK(RunCapturingOutput(DefaultEnv(), {"scancel", job[0]}));
  std::map<int, ReplicaExit> exits = WaitForExits(**run, 4);
  absl::Status restarted = (*run)->Restart(0);
  EXPECT_THAT(restarted, StatusIs(absl::StatusCode::kFailedPrecondition,
                                  HasSubstr("is no longer running")));
}

TEST_F(SlurmLauncherTest, ReplicasAskingForMoreGpusThanANodeHasNeverFit) {
  absl::Status fits =
      launcher_->CheckFits({{.type = TaskType::kMaster, .index = 0},
                            {.type = TaskType::kWorker,
                             .index = 0,
                             .gpu_count = 8,
                             .gpu_type = "NVIDIA_TESLA_V100"}});
  EXPECT_THAT(
      fits,
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "worker 0 asks for 8 GPUs, but the Slurm nodes have at most 4 "
               "(sinfo)"));
}

TEST_F(SlurmLauncherTest, MoreGpuCountsThanNodesNeverFit) {
  // 2, 1 and 0 GPUs: three components of a heterogeneous job, one node each,
  // on a two-node cluster; Slurm would keep the job pending forever.
  absl::Status fits = launcher_->CheckFits(
      {{.type = TaskType::kMaster, .index = 0, .gpu_count = 2},
       {.type = TaskType::kWorker, .index = 0, .gpu_count = 1},
       {.type = TaskType::kParameterServer, .index = 0}});
  EXPECT_THAT(
      fits,
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          "the replicas ask for 3 different GPU counts or types, each a "
          "component of a heterogeneous Slurm job on nodes of its own, but "
          "the cluster has 2 nodes (sinfo)"));
}

// With GPU types mapped to the cluster's gres types (the test cluster has
// t4 GPUs on n1 and v100 on n2), each replica lands where its type is.
TEST_F(SlurmLauncherTest, MappedGpuTypesPlaceEachReplicaOnItsType) {
  job_.master.accelerator = {.count = 1, .type = "NVIDIA_TESLA_T4"};
  job_.worker.count = 1;
  job_.worker.accelerator = {.count = 1, .type = "NVIDIA_TESLA_V100"};
  job_.parameter_server.count = 0;
  auto typed = SlurmLauncher::Create(SlurmOptions{
      .env = &DefaultEnv(),
      .gpu_types = {{"NVIDIA_TESLA_T4", "t4"}, {"NVIDIA_TESLA_V100", "v100"}},
      .allocation = SlurmAllocation::kPerTrial});
  ASSERT_OK(typed);
  launcher_ = *std::move(typed);
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement);
  ASSERT_THAT(launch.replicas, SizeIs(2));
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  std::map<int, ReplicaExit> exits = WaitForExits(**run, 2);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded()) << replica;
  }
  // One GPU each, of the right type: the same count, so only the type
  // split them into two components.
  EXPECT_EQ(WaitForDump("master-0")["env"]["SLURMD_NODENAME"], "n1");
  EXPECT_EQ(WaitForDump("worker-0")["env"]["SLURMD_NODENAME"], "n2");
  EXPECT_THAT(WaitForDump("master-0")["env"].value("CUDA_VISIBLE_DEVICES", ""),
              ::testing::MatchesRegex("[0-3]"));
  EXPECT_THAT(WaitForDump("worker-0")["env"].value("CUDA_VISIBLE_DEVICES", ""),
              ::testing::MatchesRegex("[0-3]"));
  (*run)->Terminate(std::chrono::seconds(1));
}

TEST_F(SlurmLauncherTest, GpuTypesTheMapOrTheClusterLackNeverFit) {
  auto typed = SlurmLauncher::Create(SlurmOptions{
      .env = &DefaultEnv(),
      .gpu_types = {{"NVIDIA_TESLA_T4", "t4"}, {"NVIDIA_TESLA_A100", "a100"}}});
  ASSERT_OK(typed);
  auto fits = [&](int count, const std::string& type) {
    return (*typed)->CheckFits({{.type = TaskType::kMaster, .index = 0},
                                {.type = TaskType::kWorker,
                                 .index = 1,
                                 .gpu_count = count,
                                 .gpu_type = type}});
  };
  EXPECT_OK(fits(4, "NVIDIA_TESLA_T4"));
  absl::Status unmapped = fits(1, "NVIDIA_TESLA_P100");
  EXPECT_THAT(
      unmapped,
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "worker 1 asks for 1 x NVIDIA_TESLA_P100, but --slurm-gpu-type "
               "maps no Slurm GPU type to NVIDIA_TESLA_P100 (it maps "
               "NVIDIA_TESLA_A100, NVIDIA_TESLA_T4)"));
  absl::Status absent = fits(1, "NVIDIA_TESLA_A100");
  EXPECT_THAT(
      absent,
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          "worker 1 asks for 1 GPUs of Slurm type a100 (NVIDIA_TESLA_A100), "
          "but the Slurm nodes have at most 0 (sinfo)"));
  EXPECT_EQ(fits(5, "NVIDIA_TESLA_T4").message(),
            "worker 1 asks for 5 GPUs of Slurm type t4 (NVIDIA_TESLA_T4), but "
            "the Slurm nodes have at most 4 (sinfo)");
}

TEST_F(SlurmLauncherTest, AJobsOwnOptionsApplyOverTheLaunchers) {
  // The launcher's partition does not exist: only the job's makes it run.
  auto launcher = SlurmLauncher::Create(
      SlurmOptions{.env = &DefaultEnv(),
                   .sbatch = {.partition = "no_such_partition",
                              .time = "1:00:00",
                              .options = {"--nice=1"}},
                   .allocation = SlurmAllocation::kPerTrial});
  ASSERT_OK(launcher);
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement, {{"DUMP_SLEEP", "forever"}});
  JobSpec job = job_;
  job.slurm = {.partition = "debug", .time = "7", .options = {"--nice=3"}};
  ASSERT_OK((*launcher)->BeginJob(job));
  auto run = (*launcher)->Start(launch);
  ASSERT_OK(run);

  // Partition, time limit and nice value, as Slurm recorded them.
  EXPECT_THAT(QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1), "%P %l %y"),
              ElementsAre("debug 7:00 3"));
  (*run)->Terminate(std::chrono::seconds(5));
  EXPECT_THAT(QueuedJobs(SlurmLauncher::JobName(job_.job_id, 1)), IsEmpty());
}

// A job the cluster keeps PENDING is Queued() with its replicas counted as
// running, and stops being queued once Slurm starts it.
TEST_F(SlurmLauncherTest, AJobPendingInTheQueueIsQueuedUntilItStarts) {
  std::unique_ptr<Placement> placement;
  auto run = StartHeldTrial(&placement);
  ASSERT_OK(run);
  const std::string name = SlurmLauncher::JobName(job_.job_id, 1);
  // Held by its begin time; Slurm names Resources instead while another
  // test's job holds the nodes.
  ASSERT_THAT(QueuedJobs(name, "%T %r"),
              ElementsAre(AnyOf("PENDING BeginTime", "PENDING Resources")));
  // Polled past the state poll interval, it is still waiting.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto exits = (*run)->Poll();
  ASSERT_OK(exits);
  EXPECT_THAT(*exits, IsEmpty());
  EXPECT_TRUE((*run)->Queued());
  EXPECT_TRUE((*run)->IsRunning(0));

  std::string error;
  ASSERT_TRUE(testing_slurm::StartHeldJobs(name, &error)) << error;
  WaitForDump("master-0");
  EXPECT_FALSE((*run)->Queued());
  std::map<int, ReplicaExit> done = WaitForExits(**run, 4);
  for (const auto& [replica, exit] : done) {
    EXPECT_TRUE(exit.succeeded()) << replica;
  }
  EXPECT_FALSE((*run)->Queued());
  (*run)->Terminate(std::chrono::seconds(1));
}

TEST_F(SlurmLauncherTest, TerminatingAJobStillInTheQueueCancelsItAtOnce) {
  std::unique_ptr<Placement> placement;
  auto run = StartHeldTrial(&placement);
  ASSERT_OK(run);
  const std::string name = SlurmLauncher::JobName(job_.job_id, 1);
  ASSERT_THAT(QueuedJobs(name, "%T"), ElementsAre("PENDING"));
  const auto start = std::chrono::steady_clock::now();
  (*run)->Terminate(std::chrono::seconds(5));
  // `scancel --signal` on a pending job retries for about 95 s; a job with
  // nothing running is not signalled, and no grace period is waited for.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_THAT(QueuedJobs(name), IsEmpty());
  EXPECT_FALSE((*run)->IsRunning(0));
}

TEST_F(SlurmLauncherTest, SubmissionErrorsSaySbatchsReason) {
  auto launcher = SlurmLauncher::Create(SlurmOptions{
      .env = &DefaultEnv(), .sbatch = {.partition = "no_such_partition"}});
  ASSERT_OK(launcher);
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement);
  auto run = (*launcher)->Start(launch);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("cannot submit to Slurm"));
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("invalid partition"));
}

// Without the cluster: what the user sees when Slurm is not usable.
TEST(SlurmLauncherCreateTest, MissingCommandsAreNamed) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  const std::string empty = hptune::testing::MakeTempDir();
  setenv("PATH", empty.c_str(), 1);
  auto launcher = SlurmLauncher::Create({.env = &DefaultEnv()});
  setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(launcher.ok());
  EXPECT_THAT(
      launcher,
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          "the Slurm backend needs `sbatch`, which is not on PATH (Debian: "
          "apt-get install slurm-client)"));
}

TEST(SlurmLauncherCreateTest, UnreachableControllerSaysWhichConfig) {
  HPTUNE_SKIP_UNLESS_AVAILABLE(testing_slurm::SlurmCommandsInstalled(), "slurm",
                               "Slurm's commands are not installed");
  std::string bogus;
  absl::StatusOr<std::unique_ptr<SlurmLauncher>> launcher;
  {
    testing_slurm::UnreachableController controller(
        hptune::testing::MakeTempDir());
    bogus = controller.config();
    launcher = SlurmLauncher::Create({.env = &DefaultEnv()});
  }
  ASSERT_FALSE(launcher.ok());
  EXPECT_THAT(
      launcher,
      StatusIs(absl::StatusCode::kUnavailable,
               HasSubstr("the Slurm controller is unreachable: `scontrol "
                         "ping` says: ")));
  EXPECT_THAT(std::string(launcher.status().message()),
              HasSubstr("SLURM_CONF=" + bogus));
}

// A pool with an image runs `podman run` in its step: the master and worker
// containers, on the two nodes' addresses, form the cluster their
// TF_CONFIG names. The image is tests/testdata/containers', built by the
// containers.test_images fixture under ctest, and here when missing (the
// test binary run by hand).
TEST_F(SlurmLauncherTest, ContainerReplicasFormTheClusterOnTheNodes) {
  const char* kImage = "localhost/hptune-test/python:1";
  const bool podman = access("/usr/bin/podman", X_OK) == 0;
  HPTUNE_SKIP_UNLESS_AVAILABLE(podman, "podman", "podman is not installed");
  if (hptune::testing::RunProcess(
          {"/usr/bin/podman", "image", "exists", kImage})
          .exit_code != 0) {
    ASSERT_EQ(hptune::testing::RunProcess(
                  {HPTUNE_SOURCE_DIR
                   "/tests/testdata/containers/build_test_image.sh"})
                  .exit_code,
              0);
  }
  const ContainerSpec image{.image_uri = kImage,
                            .command = {"python3", "/app/cluster_trainer.py"}};
  job_.master.container = image;
  job_.worker.container = image;
  job_.parameter_server.count = 0;
  job_.command.clear();  // The image's command runs the trainer.
  job_.module_name.clear();
  job_.package_path.clear();
  job_.args.clear();
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement);
  fs::create_directories(root_ / "trials" / "1" / "model");
  ASSERT_OK(launcher_->BeginJob(job_));
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  auto exits = WaitForExits(**run, 3);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded())
        << "replica " << replica << ": "
        << ReadFile(launch.replicas[replica].log_path);
  }
  const Json exchange =
      Json::parse(ReadFile(root_ / "trials" / "1" / "model" / "exchange.json"));
  EXPECT_EQ(exchange["received"], Json({{"0", 10}, {"1", 20}}));
}

// The same cluster with allocations reused across trials (the default):
// each trial's replicas are srun steps, children of this process, in an
// allocation of the job.
class SlurmPerLaneTest : public SlurmLauncherTest {
 protected:
  void SetUp() override {
    SlurmLauncherTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto launcher = SlurmLauncher::Create(
        SlurmOptions{.env = &DefaultEnv(),
                     .sbatch = {.options = {"--ntasks-per-node=2"}},
                     .state_poll_interval = std::chrono::milliseconds(200)});
    ASSERT_OK(launcher);
    launcher_ = *std::move(launcher);
    ASSERT_OK(launcher_->BeginJob(job_));
  }
  void TearDown() override {
    if (launcher_) launcher_->EndJob(job_.job_id);
  }

  // Polls `run` until its allocation runs and its steps have started (as
  // the job runner does); false at the deadline.
  bool WaitUntilPlaced(TrialRun& run) {
    auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (run.Queued() && std::chrono::steady_clock::now() < deadline) {
      if (!run.Poll().ok()) return false;
      if (run.Queued()) std::this_thread::sleep_for(kPoll);
    }
    return !run.Queued();
  }
  std::string Allocation() const {
    return SlurmLauncher::AllocationName(job_.job_id);
  }
  // The names of the allocation's steps squeue shows, once it shows
  // `count` (or at the deadline).
  std::set<std::string> Steps(const std::string& allocation, size_t count) {
    std::set<std::string> steps;
    auto deadline = std::chrono::steady_clock::now() + kDeadline;
    for (bool first = true;
         first ||
         (steps.size() != count && std::chrono::steady_clock::now() < deadline);
         first = false) {
      steps.clear();
      auto out = RunCapturingOutput(
          DefaultEnv(), {"squeue", "-h", "-s", "-j", allocation, "-o", "%j"});
      std::stringstream in(out.ok() ? out->out : "");
      for (std::string line; std::getline(in, line);) {
        if (line != "batch" && line != "extern") steps.insert(line);
      }
      if (steps.size() != count) std::this_thread::sleep_for(kPoll);
    }
    return steps;
  }
};

TEST_F(SlurmPerLaneTest, TrialsAreStepsOfOneAllocationThatTheJobsEndCancels) {
  std::unique_ptr<Placement> placement;
  TrialLaunch first =
      MakeLaunch(1, &placement, {{"DUMP_SLEEP_MASTER", "forever"}});
  auto run = launcher_->Start(first);
  ASSERT_OK(run);
  ASSERT_TRUE(WaitUntilPlaced(**run));
  Json master = WaitForDump("master-0");
  const std::string allocation = master["env"].value("SLURM_JOB_ID", "");
  EXPECT_THAT(QueuedJobs(Allocation(), "%A"), ElementsAre(allocation));
  WaitForExits(**run, 3);  // The workers and the ps are done.
  // Each replica is a step named for its job, trial and replica.
  const std::string prefix = "hptune." + job_.job_id + ".1.";
  EXPECT_THAT(Steps(allocation, 1), ElementsAre(prefix + "master-0"));
  // The steps are this process's children: the master's end will be a
  // readable descriptor, not something to poll squeue for.
  std::vector<int> fds = (*run)->ExitFds();
  ASSERT_THAT(fds, SizeIs(1));
  pollfd master_exit = {.fd = fds[0], .events = POLLIN};
  EXPECT_EQ(::poll(&master_exit, 1, 0), 0);
  kill(master["pid"].get<pid_t>(), SIGKILL);
  EXPECT_EQ(::poll(&master_exit, 1, 30'000), 1);
  auto ended = (*run)->Poll();
  ASSERT_OK(ended);
  ASSERT_THAT(*ended, SizeIs(1));
  EXPECT_EQ((*ended)[0].signal, SIGKILL);
  (*run)->Terminate(std::chrono::seconds(5));
  EXPECT_THAT(Steps(allocation, 0), IsEmpty());

  // The next trial runs in the same allocation, still held.
  TrialLaunch second = MakeLaunch(2, &placement);
  auto next = launcher_->Start(second);
  ASSERT_OK(next);
  std::map<int, ReplicaExit> exits = WaitForExits(**next, 4);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded()) << replica << " " << exit.exit_code;
  }
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    Json dump = WaitForDump(name, 2);
    EXPECT_EQ(dump["env"].value("SLURM_JOB_ID", ""), allocation) << name;
    EXPECT_EQ(dump["env"].value("CLOUD_ML_TRIAL_ID", ""), "2") << name;
  }
  (*next)->Terminate(std::chrono::seconds(1));
  EXPECT_THAT(QueuedJobs(Allocation(), "%A"), ElementsAre(allocation));
  launcher_->EndJob(job_.job_id);
  EXPECT_THAT(QueuedJobs(Allocation()), IsEmpty());
}

TEST_F(SlurmPerLaneTest, AFailedReplicaRestartsAsANewStepInTheAllocation) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement,
                                  {{"DUMP_FAIL_TIMES_WORKER_1", "1"},
                                   {"DUMP_FAIL_CODE", "3"},
                                   {"DUMP_SLEEP_MASTER", "forever"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  std::map<int, ReplicaExit> exits = WaitForExits(**run, 3);
  ASSERT_EQ(exits.count(2), 1u);
  EXPECT_EQ(exits[2].exit_code, 3);
  EXPECT_THAT((*run)->Restart(0),
              StatusHasCode(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK((*run)->Restart(2));
  Json second = WaitForDump("worker-1", 2);
  EXPECT_TRUE(WaitForExits(**run, 1)[2].succeeded());
  EXPECT_EQ(second["env"].value("SLURM_JOB_ID", ""),
            WaitForDump("master-0")["env"].value("SLURM_JOB_ID", ""));
  EXPECT_EQ(second["tf_config"]["cluster"],
            WaitForDump("master-0")["tf_config"]["cluster"]);
  (*run)->Terminate(std::chrono::seconds(1));
}

TEST_F(SlurmPerLaneTest, TerminateStopsEveryProcessAndKeepsTheAllocation) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(
      1, &placement, {{"DUMP_SLEEP", "forever"}, {"DUMP_GRANDCHILD", "1"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  ASSERT_TRUE(WaitUntilPlaced(**run));
  std::vector<pid_t> pids;
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    Json dump = WaitForDump(name);
    pids.push_back(dump["pid"].get<pid_t>());
    pids.push_back(dump["grandchild_pid"].get<pid_t>());
  }
  (*run)->Terminate(std::chrono::seconds(2));
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  for (pid_t pid : pids) {
    while (kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(kPoll);
    }
    EXPECT_NE(kill(pid, 0), 0) << "process " << pid << " is still alive";
  }
  for (int i = 0; i < 4; ++i) EXPECT_FALSE((*run)->IsRunning(i));
  EXPECT_THAT((*run)->ExitFds(), IsEmpty());
  EXPECT_THAT(QueuedJobs(Allocation(), "%T"), ElementsAre("RUNNING"));
}

TEST_F(SlurmPerLaneTest, ReplicasKilledWithTheirAllocationAreReported) {
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(1, &placement, {{"DUMP_SLEEP", "forever"}});
  auto run = launcher_->Start(launch);
  ASSERT_OK(run);
  ASSERT_TRUE(WaitUntilPlaced(**run));
  const std::string allocation =
      WaitForDump("master-0")["env"].value("SLURM_JOB_ID", "");
  // Someone else cancels it (or its time limit passes).
  ASSERT_OK(RunCapturingOutput(DefaultEnv(), {"scancel", allocation}));
  std::map<int, ReplicaExit> exits = WaitForExits(**run, 4);
  EXPECT_FALSE(exits[0].succeeded());
  EXPECT_THAT((*run)->Restart(0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is no longer running")));
  (*run)->Terminate(std::chrono::seconds(1));
  // The next trial gets an allocation of its own.
  TrialLaunch next_launch = MakeLaunch(2, &placement);
  auto next = launcher_->Start(next_launch);
  ASSERT_OK(next);
  WaitForExits(**next, 4);
  EXPECT_NE(WaitForDump("master-0", 2)["env"].value("SLURM_JOB_ID", ""),
            allocation);
}

}  // namespace
}  // namespace hptune::launch
