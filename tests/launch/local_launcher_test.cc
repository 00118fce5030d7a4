// Integration tests of LocalLauncher with real processes: each replica is
// tests/launch/testdata/dump_trainer.py, which writes down the argv and
// environment it got and then does what the test tells it (exit, sleep,
// ignore SIGTERM, leave a grandchild behind).
//
// The test process makes itself a child subreaper, so orphaned grandchildren
// become its children and Terminate collects them; "no process of the run is
// left" can then be checked as kill(-pgid, 0) == ESRCH right away instead of
// waiting for init to collect zombies.
#include "hptune/launch/local_launcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hptune/launch/replica_env.h"
#include "nlohmann/json.hpp"
#include "tests/launch/trial_run_waits.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::hptune_testing::StatusHasCode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr char kTrainer[] = HPTUNE_LAUNCH_TESTDATA "/dump_trainer.py";
constexpr auto kDeadline = std::chrono::seconds(30);
constexpr auto kPoll = std::chrono::milliseconds(5);

bool GroupIsGone(pid_t pgid) { return kill(-pgid, 0) != 0 && errno == ESRCH; }
bool ProcessIsGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

using testing_waits::ReadFile;

class LocalLauncherTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

  void SetUp() override {
    root_ = hptune::testing::MakeTempDir();
    dump_dir_ = root_ / "dumps";
    fs::create_directories(dump_dir_);
    job_.job_id = "launch_test";
    job_.scale_tier = ScaleTier::kCustom;
    job_.master = {.count = 1, .machine_type = "n1-standard-4"};
    job_.worker = {.count = 2, .machine_type = "n1-standard-4"};
    job_.parameter_server = {.count = 1, .machine_type = "n1-standard-4"};
    job_.command = {"python3", kTrainer};
    job_.args = {"--epochs=3", "a b"};
    job_.job_dir = (root_ / "job").string();
    StudySpec study;
    study.SetSingleMetric("accuracy");
    study.search_space = SearchSpace({
        {.name = "lr",
         .type = ParameterType::kDouble,
         .min_value = 1e-4,
         .max_value = 1},
        {.name = "hidden",
         .type = ParameterType::kInteger,
         .min_value = 8,
         .max_value = 512},
    });
    job_.study = study;
  }

  // The launch of trial `trial` on a fresh placement, every replica dumping
  // into dump_dir_ and getting `env` on top.
  TrialLaunch MakeLaunch(Launcher& launcher, int64_t trial,
                         std::unique_ptr<Placement>* placement,
                         const std::map<std::string, std::string>& env = {}) {
    std::vector<ReplicaRequest> requests = ReplicaRequests(job_);
    absl::StatusOr<std::unique_ptr<Placement>> reserved =
        launcher.Reserve(requests);
    EXPECT_OK(reserved);
    if (!reserved.ok()) return {};
    *placement = *std::move(reserved);
    TrialContext context{
        .job = &job_,
        .training_input_json = R"({"scaleTier":"CUSTOM","workerCount":2})",
        .trial = trial,
        .parameters = {{"lr", ParameterValue::Double(0.01)},
                       {"hidden", ParameterValue::Integer(64)}},
        .metric_tag = "accuracy",
        .job_dir = job_.job_dir,
        .trial_dir = root_ / "trials" / std::to_string(trial)};
    absl::StatusOr<TrialLaunch> launch =
        BuildTrialLaunch(context, requests, (*placement)->replicas());
    EXPECT_OK(launch);
    if (!launch.ok()) return {};
    for (ReplicaLaunch& replica : launch->replicas) {
      replica.env["DUMP_DIR"] = dump_dir_.string();
      for (const auto& [name, value] : env) replica.env[name] = value;
    }
    return *launch;
  }

  std::unique_ptr<TrialRun> StartOrDie(Launcher& launcher,
                                       const TrialLaunch& launch) {
    absl::StatusOr<std::unique_ptr<TrialRun>> run = launcher.Start(launch);
    EXPECT_OK(run);
    return run.ok() ? *std::move(run) : nullptr;
  }

  // Polls until `count` exits were reported (or the deadline passes).
  std::map<int, ReplicaExit> WaitForExits(TrialRun& run, size_t count) {
    return testing_waits::WaitForExits(run, count, kDeadline, kPoll);
  }

  // The dump of replica `name` once it has one whose attempt is `attempt`.
  Json WaitForDump(const std::string& name, int attempt = 1) {
    return testing_waits::WaitForDump(dump_dir_, name, attempt, kDeadline,
                                      kPoll);
  }

  fs::path root_;
  fs::path dump_dir_;
  JobSpec job_;
};

TEST_F(LocalLauncherTest, EveryReplicaSeesTheContractInItsOwnProcessGroup) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(launcher, 1, &placement);
  ASSERT_EQ(launch.replicas.size(), 4u);
  fs::path work = root_ / "work";
  fs::create_directories(work);
  for (ReplicaLaunch& replica : launch.replicas) replica.working_dir = work;
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::map<int, ReplicaExit> exits = WaitForExits(*run, 4);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded())
        << replica << " " << exit.exit_code << " " << exit.signal;
    EXPECT_FALSE(run->IsRunning(replica));
  }

  const std::vector<ReplicaPlacement>& at = placement->replicas();
  auto address = [&](int i) {
    return "127.0.0.1:" + std::to_string(at[i].port);
  };
  const Json cluster = {{"master", {address(0)}},
                        {"worker", {address(1), address(2)}},
                        {"ps", {address(3)}}};
  const std::vector<std::string> names = {"master-0", "worker-0", "worker-1",
                                          "ps-0"};
  const std::vector<std::string> types = {"master", "worker", "worker", "ps"};
  const std::vector<int> indices = {0, 0, 1, 0};
  std::set<int> pids;
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    Json dump = WaitForDump(names[i]);
    const Json& env = dump["env"];
    EXPECT_THAT(
        dump["argv"].get<std::vector<std::string>>(),
        ElementsAre("--epochs=3", "a b", "--job-dir=" + job_.job_dir + "/1",
                    "--lr=0.01", "--hidden=64"));
    EXPECT_EQ(dump["tf_config"]["cluster"], cluster);
    EXPECT_EQ(dump["tf_config"]["task"], Json({{"type", types[i]},
                                               {"index", indices[i]},
                                               {"trial", "1"},
                                               {"cloud", "launch_test-1"}}));
    EXPECT_EQ(dump["tf_config"]["job"],
              Json({{"scaleTier", "CUSTOM"}, {"workerCount", 2}}));
    EXPECT_EQ(dump["tf_config"]["environment"], "cloud");
    EXPECT_EQ(
        dump["cluster_spec"],
        Json({{"cluster", cluster}, {"task", dump["tf_config"]["task"]}}));
    EXPECT_EQ(env["CLOUD_ML_TRIAL_ID"], "1");
    EXPECT_EQ(env["CLOUD_ML_JOB_ID"], "launch_test");
    EXPECT_EQ(env["CLOUD_ML_HP_METRIC_FILE"],
              (root_ / "trials" / "1" / (names[i] + ".metrics")).string());
    EXPECT_EQ(env["CLOUD_ML_HP_METRIC_TAG"], "accuracy");
    EXPECT_EQ(env["MASTER_ADDR"], "127.0.0.1");
    EXPECT_EQ(env["MASTER_PORT"], std::to_string(at[0].port));
    EXPECT_EQ(env["WORLD_SIZE"], "3");
    EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "");
    EXPECT_EQ(dump["cwd"], work.string());
    EXPECT_EQ(dump["open_fds"], Json({0, 1, 2}));
    // Its own process group, led by itself; a child of this process.
    EXPECT_EQ(dump["pgid"], dump["pid"]);
    EXPECT_NE(dump["pgid"].get<int>(), getpgrp());
    EXPECT_EQ(dump["ppid"].get<int>(), getpid());
    pids.insert(dump["pid"].get<int>());

    std::string log = ReadFile(root_ / "trials" / "1" / (names[i] + ".log"));
    EXPECT_THAT(log,
                HasSubstr("dump_trainer " + names[i] + " attempt 1 started\n"));
    EXPECT_THAT(log, HasSubstr("dump_trainer " + names[i] + " stderr\n"));
  }
  EXPECT_EQ(pids.size(), 4u);
  EXPECT_EQ(WaitForDump("master-0")["env"]["RANK"], "0");
  EXPECT_EQ(WaitForDump("worker-0")["env"]["RANK"], "1");
  EXPECT_EQ(WaitForDump("worker-1")["env"]["RANK"], "2");
  EXPECT_FALSE(WaitForDump("ps-0")["env"].contains("RANK"));
}

TEST_F(LocalLauncherTest, ExitsAreReportedWithCodesAndSignals) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch =
      MakeLaunch(launcher, 2, &placement,
                 {{"DUMP_EXIT_CODE_WORKER_0", "3"},
                  {"DUMP_KILL_SELF_WORKER_1", std::to_string(SIGTERM)},
                  {"DUMP_EXIT_CODE_PS_0", "42"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::map<int, ReplicaExit> exits = WaitForExits(*run, 4);
  ASSERT_EQ(exits.size(), 4u);
  EXPECT_TRUE(exits[0].succeeded());
  EXPECT_EQ(exits[1].exit_code, 3);
  EXPECT_EQ(exits[1].signal, 0);
  EXPECT_FALSE(exits[1].succeeded());
  EXPECT_EQ(exits[2].signal, SIGTERM);
  EXPECT_FALSE(exits[2].succeeded());
  EXPECT_EQ(exits[3].exit_code, 42);
  // Nothing is reported twice.
  absl::StatusOr<std::vector<ReplicaExit>> again = run->Poll();
  ASSERT_OK(again);
  EXPECT_TRUE(again->empty());
}

TEST_F(LocalLauncherTest, RestartKeepsTheEnvironmentAndAddressAndAppendsLogs) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(launcher, 3, &placement,
                                  {{"DUMP_SLEEP", "forever"},
                                   {"DUMP_FAIL_TIMES_WORKER_0", "1"},
                                   {"DUMP_FAIL_CODE_WORKER_0", "7"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::map<int, ReplicaExit> exits = WaitForExits(*run, 1);
  ASSERT_EQ(exits.count(1), 1u);
  EXPECT_EQ(exits[1].exit_code, 7);
  EXPECT_FALSE(run->IsRunning(1));
  EXPECT_TRUE(run->IsRunning(0));
  Json first = WaitForDump("worker-0", 1);

  absl::Status busy = run->Restart(0);
  ASSERT_THAT(busy, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(busy.message(),
            "master 0 is still running (pid " +
                std::to_string(WaitForDump("master-0")["pid"].get<int>()) +
                ")");

  ASSERT_OK(run->Restart(1));
  EXPECT_TRUE(run->IsRunning(1));
  Json second = WaitForDump("worker-0", 2);
  EXPECT_NE(second["pid"], first["pid"]);
  EXPECT_EQ(second["pgid"], second["pid"]);
  EXPECT_EQ(second["argv"], first["argv"]);
  EXPECT_EQ(second["env"], first["env"]);
  EXPECT_EQ(second["tf_config"]["cluster"]["worker"][0],
            "127.0.0.1:" + std::to_string(placement->replicas()[1].port));

  std::string log = ReadFile(root_ / "trials" / "3" / "worker-0.log");
  EXPECT_THAT(log, HasSubstr("dump_trainer worker-0 attempt 1 started\n"));
  EXPECT_THAT(log, HasSubstr("dump_trainer worker-0 attempt 2 started\n"));

  run->Terminate(std::chrono::seconds(10));
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(run->IsRunning(i));
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    EXPECT_TRUE(GroupIsGone(
        WaitForDump(name, name == std::string("worker-0") ? 2 : 1)["pgid"]
            .get<int>()))
        << name;
  }
}

TEST_F(LocalLauncherTest, TerminateKillsWhatIgnoresSigtermAndGrandchildren) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(launcher, 4, &placement,
                                  {{"DUMP_SLEEP", "forever"},
                                   {"DUMP_GRANDCHILD", "1"},
                                   {"DUMP_ON_SIGTERM_EXIT_MASTER_0", "0"},
                                   {"DUMP_IGNORE_SIGTERM_WORKER_1", "1"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::vector<pid_t> groups, grandchildren;
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    Json dump = WaitForDump(name);
    groups.push_back(dump["pgid"].get<int>());
    grandchildren.push_back(dump["grandchild_pid"].get<int>());
  }
  for (pid_t pid : grandchildren) ASSERT_FALSE(ProcessIsGone(pid));

  const auto grace = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  run->Terminate(grace);
  auto took = std::chrono::steady_clock::now() - start;

  // worker 1 ignored SIGTERM, so only SIGKILL after the grace ended it.
  EXPECT_GE(took, grace);
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_TRUE(fs::exists(dump_dir_ / "master-0.sigterm"));
  for (pid_t group : groups) EXPECT_TRUE(GroupIsGone(group)) << group;
  for (pid_t pid : grandchildren) EXPECT_TRUE(ProcessIsGone(pid)) << pid;
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(run->IsRunning(i));
  absl::StatusOr<std::vector<ReplicaExit>> exits = run->Poll();
  ASSERT_OK(exits);
  EXPECT_TRUE(exits->empty());  // Terminate's exits are not reported.
}

TEST_F(LocalLauncherTest, TerminateReachesWhatAnEndedReplicaLeftBehind) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(launcher, 5, &placement,
                                  {{"DUMP_SLEEP", "forever"},
                                   {"DUMP_SLEEP_PS_0", "0"},
                                   {"DUMP_GRANDCHILD_PS_0", "1"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::map<int, ReplicaExit> exits = WaitForExits(*run, 1);
  ASSERT_EQ(exits.count(3), 1u);
  Json dump = WaitForDump("ps-0");
  pid_t grandchild = dump["grandchild_pid"].get<int>();
  ASSERT_FALSE(ProcessIsGone(grandchild));  // Outlived its parent.

  run->Terminate(std::chrono::seconds(10));
  EXPECT_TRUE(GroupIsGone(dump["pgid"].get<int>()));
  EXPECT_TRUE(ProcessIsGone(grandchild));
}

TEST_F(LocalLauncherTest, TerminateReachesADaemonInTheTrialsCgroup) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  HPTUNE_SKIP_UNLESS_AVAILABLE(
      ReplicaContainment().find("cgroup v2") != std::string::npos, "cgroups",
      ReplicaContainment());
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(
      launcher, 7, &placement,
      {{"DUMP_SLEEP", "forever"}, {"DUMP_GRANDCHILD_WORKER_0", "daemon"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  Json dump = WaitForDump("worker-0");
  const pid_t daemon = dump["grandchild_pid"].get<int>();
  ASSERT_FALSE(ProcessIsGone(daemon));
  EXPECT_NE(getpgid(daemon), dump["pgid"].get<int>());  // Left its group.

  run->Terminate(std::chrono::milliseconds(300));
  // Killed, it is this subreaper's zombie; its exit may be a moment behind
  // the cgroup's emptying.
  int status = 0;
  pid_t reaped = 0;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while ((reaped = waitpid(daemon, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kPoll);
  }
  ASSERT_EQ(reaped, daemon);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST_F(LocalLauncherTest, DestroyingTheRunTerminatesIt) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch =
      MakeLaunch(launcher, 6, &placement, {{"DUMP_SLEEP", "forever"}});
  std::unique_ptr<TrialRun> run = StartOrDie(launcher, launch);
  ASSERT_NE(run, nullptr);
  std::vector<pid_t> groups;
  for (const char* name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    groups.push_back(WaitForDump(name)["pgid"].get<int>());
  }
  run.reset();
  for (pid_t group : groups) EXPECT_TRUE(GroupIsGone(group)) << group;
}

TEST_F(LocalLauncherTest, SpawnFailureNamesTheReplicaAndLeavesNothingRunning) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch =
      MakeLaunch(launcher, 7, &placement, {{"DUMP_SLEEP", "forever"}});
  ASSERT_EQ(launch.replicas.size(), 4u);
  launch.replicas[2].argv[0] = "/no/such";
  absl::StatusOr<std::unique_ptr<TrialRun>> run = launcher.Start(launch);
  // NotFound: no retry can cure it (Launcher::Start).
  ASSERT_THAT(run, StatusHasCode(absl::StatusCode::kNotFound));
  EXPECT_EQ(run.status().message(),
            "worker 1: cannot start \"/no/such\": \"/no/such\" does not exist");
  // master 0 and worker 0 had started; no child of this process is left,
  // not even a zombie.
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);

  launch.replicas[2].argv[0] = "no-such-program-on-path";
  run = launcher.Start(launch);
  ASSERT_THAT(run, StatusHasCode(absl::StatusCode::kNotFound));
  EXPECT_EQ(run.status().message(),
            "worker 1: cannot start \"no-such-program-on-path\": no "
            "\"no-such-program-on-path\" on PATH");
}

TEST_F(LocalLauncherTest, BadWorkingDirOrLogPathNamesTheReplica) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = MakeLaunch(launcher, 8, &placement);
  ASSERT_EQ(launch.replicas.size(), 4u);
  TrialLaunch bad_dir = launch;
  bad_dir.replicas[0].working_dir = root_ / "missing";
  absl::StatusOr<std::unique_ptr<TrialRun>> run = launcher.Start(bad_dir);
  ASSERT_THAT(run, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(run.status().message(), "master 0: working directory \"" +
                                        (root_ / "missing").string() +
                                        "\" is not a directory");

  TrialLaunch bad_log = launch;
  fs::path blocker = root_ / "a_file";
  std::ofstream(blocker) << "x";
  bad_log.replicas[3].log_path = blocker / "ps-0.log";
  run = launcher.Start(bad_log);
  ASSERT_THAT(run, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(run.status().message(), "ps 0: cannot open log file \"" +
                                        (blocker / "ps-0.log").string() +
                                        "\": Not a directory");
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(LocalLauncherTest, ParallelPlacementsGetDisjointGpus) {
  absl::StatusOr<GpuInventory> gpus =
      GpuInventory::FromSpec("NVIDIA_TESLA_T4:0,1,2,3");
  ASSERT_OK(gpus);
  LocalLauncher launcher({.env = &hptune::DefaultEnv(), .gpus = *gpus});
  job_.master.accelerator = {.count = 1, .type = "NVIDIA_TESLA_T4"};
  job_.worker = {.count = 1,
                 .machine_type = "n1-standard-4",
                 .accelerator = {.count = 1, .type = "NVIDIA_TESLA_T4"}};
  job_.parameter_server.count = 0;

  // Four trials of two GPUs each ask at once: two get GPUs, two must wait.
  std::vector<std::unique_ptr<Placement>> placements(4);
  std::vector<absl::Status> statuses(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::unique_ptr<Placement>> placement =
          launcher.Reserve(ReplicaRequests(job_));
      statuses[t] = placement.status();
      if (placement.ok()) placements[t] = *std::move(placement);
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<int> granted;
  for (int t = 0; t < 4; ++t) {
    if (statuses[t].ok()) {
      granted.push_back(t);
    } else {
      EXPECT_THAT(statuses[t],
                  StatusHasCode(absl::StatusCode::kResourceExhausted));
    }
  }
  ASSERT_EQ(granted.size(), 2u);

  // Each trial's replicas see exactly their placement's GPUs.
  std::vector<std::string> seen;
  for (int t : granted) {
    fs::path dumps = root_ / ("dumps" + std::to_string(t));
    fs::create_directories(dumps);
    TrialContext context{.job = &job_,
                         .trial = t + 1,
                         .parameters = {{"lr", ParameterValue::Double(0.5)},
                                        {"hidden", ParameterValue::Integer(9)}},
                         .trial_dir = root_ / "trials" / std::to_string(t + 1)};
    absl::StatusOr<TrialLaunch> launch = BuildTrialLaunch(
        context, ReplicaRequests(job_), placements[t]->replicas());
    ASSERT_OK(launch);
    for (ReplicaLaunch& replica : launch->replicas) {
      replica.env["DUMP_DIR"] = dumps.string();
    }
    std::unique_ptr<TrialRun> run = StartOrDie(launcher, *launch);
    ASSERT_NE(run, nullptr);
    WaitForExits(*run, 2);
    for (int i = 0; i < 2; ++i) {
      const char* name = i == 0 ? "master-0" : "worker-0";
      Json dump = Json::parse(ReadFile(dumps / (std::string(name) + ".json")));
      std::string visible = dump["env"]["CUDA_VISIBLE_DEVICES"];
      ASSERT_EQ(placements[t]->replicas()[i].gpus.size(), 1u);
      EXPECT_EQ(visible, std::to_string(placements[t]->replicas()[i].gpus[0]));
      seen.push_back(visible);
    }
  }
  EXPECT_THAT(seen, UnorderedElementsAre("0", "1", "2", "3"));

  for (int t : granted) placements[t].reset();
  EXPECT_OK(launcher.Reserve(ReplicaRequests(job_)));
}

// The Env is the composition root's to give: a launcher built without one
// is a programmer's error, caught where it is built.
TEST(LocalLauncherDeathTest, ALauncherWithoutAnEnvIsABrokenInvariant) {
  EXPECT_DEATH(LocalLauncher launcher(LocalLauncherOptions{}),
               "LocalLauncherOptions::env is required");
}

}  // namespace
}  // namespace hptune::launch
