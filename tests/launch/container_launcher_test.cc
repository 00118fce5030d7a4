// Integration tests of replicas in OCI containers, run by podman through
// LocalLauncher: a master and two workers form a real cluster from
// TF_CONFIG, stopping a run stops its containers, the take-over path
// removes what a killed runner left, and a missing image is refused before
// anything starts. The image is tests/testdata/containers' (built offline
// by the containers.test_images fixture). Needs root and podman: skips
// saying why elsewhere, unless HPTUNE_EXPECT names "podman".
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "hptune/env/env.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/launch/replica_env.h"
#include "nlohmann/json.hpp"
#include "src/launch/local/podman_argv.h"
#include "src/launch/local/replica_process.h"
#include "tests/launch/trial_run_waits.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;
using ::hptune_testing::StatusHasCode;
using ::testing::HasSubstr;
using testing_waits::ReadFile;

constexpr char kImage[] = "localhost/hptune-test/python:1";
constexpr auto kDeadline = std::chrono::seconds(90);
constexpr auto kPoll = std::chrono::milliseconds(20);

// Why containers cannot run here, or "" when they can.
std::string WhyNoPodman() {
  if (geteuid() != 0) return "the container tests run as root";
  absl::StatusOr<std::string> podman = FindOnPath("podman", false);
  if (!podman.ok()) return "podman is not installed (scripts/setup test)";
  hptune::testing::ProcessResult exists =
      hptune::testing::RunProcess({*podman, "image", "exists", kImage});
  if (exists.exit_code != 0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh)";
  }
  return "";
}

// Names of the containers podman lists, running or not, with `label`.
std::vector<std::string> ContainersLabelled(const std::string& label) {
  hptune::testing::ProcessResult listed = hptune::testing::RunProcess(
      {*FindOnPath("podman", false), "ps", "--all", "--format={{.Names}}",
       "--filter=label=" + label});
  std::vector<std::string> names;
  std::string name;
  for (char c : listed.out) {
    if (c != '\n') {
      name += c;
    } else if (!name.empty()) {
      names.push_back(name);
      name.clear();
    }
  }
  return names;
}

bool PollUntil(const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + kDeadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(kPoll);
  }
  return true;
}

class ContainerLauncherTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

  void SetUp() override {
    const std::string why = WhyNoPodman();
    HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
    runs_ = fs::path(hptune::testing::MakeTempDir()) / "runs";
    job_.job_id = "boxed";
    job_.scale_tier = ScaleTier::kCustom;
    const ContainerSpec image{
        .image_uri = kImage, .command = {"python3", "/app/cluster_trainer.py"}};
    job_.master = {.count = 1, .container = image};
    job_.worker = {.count = 2, .container = image};
    job_.args = {"--x=0.5"};
  }

  void TearDown() override {
    if (!runs_.empty())
      StopLeftoverReplicas(DefaultEnv(), runs_ / job_.job_id, {});
  }

  // The trial's launch, its directories made as the job runner makes them.
  TrialLaunch Launch(LocalLauncher& launcher, int64_t trial,
                     std::unique_ptr<Placement>* placement) {
    const std::vector<ReplicaRequest> requests = ReplicaRequests(job_);
    *placement = *launcher.Reserve(requests);
    const TrialContext context{.job = &job_,
                               .trial = trial,
                               .metric_tag = "loss",
                               .trial_dir = TrialDir(trial)};
    fs::create_directories(TrialDir(trial) / "model");
    absl::StatusOr<TrialLaunch> launch =
        BuildTrialLaunch(context, requests, (*placement)->replicas());
    EXPECT_OK(launch);
    return *launch;
  }

  fs::path TrialDir(int64_t trial) const {
    return runs_ / job_.job_id / std::to_string(trial);
  }
  std::string JobLabel() const {
    return ContainerJobLabel(runs_ / job_.job_id);
  }

  fs::path runs_;
  JobSpec job_;
};

TEST_F(ContainerLauncherTest, MasterAndWorkersFormAClusterAndReport) {
  LocalLauncher launcher(LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  ASSERT_OK(launcher.BeginJob(job_));
  std::unique_ptr<Placement> placement;
  const TrialLaunch launch = Launch(launcher, 1, &placement);
  absl::StatusOr<std::unique_ptr<TrialRun>> run = launcher.Start(launch);
  ASSERT_OK(run);
  auto exits = testing_waits::WaitForExits(**run, 3, kDeadline, kPoll);
  for (const auto& [replica, exit] : exits) {
    EXPECT_TRUE(exit.succeeded())
        << "replica " << replica << " exited " << exit.exit_code << ": "
        << ReadFile(launch.replicas[replica].log_path);
  }
  // The master heard from both workers over the host network, and wrote
  // through the bind mounts: its model directory and its metric file.
  const nlohmann::json exchange =
      nlohmann::json::parse(ReadFile(TrialDir(1) / "model" / "exchange.json"));
  EXPECT_EQ(exchange["received"], nlohmann::json({{"0", 10}, {"1", 20}}));
  EXPECT_THAT(ReadFile(launch.replicas[0].metrics_path),
              HasSubstr("\"loss\": \"0.04000000000000001\""));
  EXPECT_THAT(ReadFile(launch.replicas[1].log_path),
              HasSubstr("worker 0: ack trial 1"));
  EXPECT_TRUE(ContainersLabelled(JobLabel()).empty());
}

TEST_F(ContainerLauncherTest, TerminateStopsTheContainers) {
  job_.args.push_back("--hold=1");
  // Marks this test's trainers apart from those of tests running beside it
  // (the trainer ignores the flag).
  const std::string mark = "--terminate-test=" + std::to_string(getpid());
  job_.args.push_back(mark);
  LocalLauncher launcher(LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  const TrialLaunch launch = Launch(launcher, 1, &placement);
  absl::StatusOr<std::unique_ptr<TrialRun>> run = launcher.Start(launch);
  ASSERT_OK(run);
  // The master holds once it has reported.
  ASSERT_TRUE(
      PollUntil([&] { return fs::exists(launch.replicas[0].metrics_path); }));
  // The workers exit once acknowledged; the master's container is left.
  ASSERT_TRUE(
      PollUntil([&] { return ContainersLabelled(JobLabel()).size() == 1; }));
  (*run)->Terminate(std::chrono::seconds(10));
  EXPECT_FALSE((*run)->IsRunning(0));
  EXPECT_TRUE(PollUntil([&] { return ContainersLabelled(JobLabel()).empty(); }))
      << ContainersLabelled(JobLabel()).front();
  EXPECT_TRUE(hptune::testing::ProcessesMentioning(mark).empty());
}

TEST_F(ContainerLauncherTest, TheTakeOverRemovesWhatAKilledRunnerLeft) {
  job_.args.push_back("--hold=1");
  const std::string mark = "--take-over-test=" + std::to_string(getpid());
  job_.args.push_back(mark);
  job_.worker.count = 0;
  LocalLauncher launcher(LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  std::unique_ptr<Placement> placement;
  TrialLaunch launch = Launch(launcher, 1, &placement);
  // The podman command a runner would have started, started by the test so
  // that SIGKILL leaves it as a killed runner's child is left: conmon and
  // the container go on without it.
  absl::StatusOr<std::vector<std::string>> argv =
      PodmanRunArgv(hptune::DefaultEnv(), launch.replicas[0], PodmanOptions{});
  ASSERT_OK(argv);
  (*argv)[0] = *FindOnPath("podman", false);
  const fs::path log = TrialDir(1) / "podman.log";
  // podman passes the replica's variables from its own environment.
  ReplicaLaunch& master = launch.replicas[0];
  master.env[kReplicaMarkerVariable] =
      ReplicaMarker(hptune::DefaultEnv(), master);
  for (const auto& [name, value] : master.env) {
    setenv(name.c_str(), value.c_str(), 1);
  }
  pid_t podman = hptune::testing::StartProcess(*argv, log, log);
  for (const auto& [name, value] : master.env) unsetenv(name.c_str());
  ASSERT_TRUE(PollUntil([&] {
    return fs::exists(launch.replicas[0].metrics_path);
  })) << ReadFile(log);
  kill(podman, SIGKILL);
  hptune::testing::WaitForExit(podman, std::chrono::seconds(30));
  ASSERT_EQ(ContainersLabelled(JobLabel()).size(), 1u);
  ASSERT_FALSE(hptune::testing::ProcessesMentioning(mark).empty());

  EXPECT_GE(StopLeftoverReplicas(DefaultEnv(), runs_ / job_.job_id,
                                 std::chrono::seconds(5)),
            1);
  EXPECT_TRUE(ContainersLabelled(JobLabel()).empty());
  EXPECT_TRUE(PollUntil(
      [&] { return hptune::testing::ProcessesMentioning(mark).empty(); }));
}

TEST_F(ContainerLauncherTest, AMissingImageIsRefusedNamingHowToLoadIt) {
  job_.worker.container.image_uri = "localhost/hptune-test/absent:0";
  LocalLauncher launcher(LocalLauncherOptions{.env = &hptune::DefaultEnv()});
  absl::Status begun = launcher.BeginJob(job_);
  EXPECT_THAT(begun, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(begun.message(),
            "trainingInput.workerConfig.imageUri: image "
            "\"localhost/hptune-test/absent:0\" is not in podman's local "
            "storage, and hptune pulls none unless asked: load it (podman "
            "load -i <file>.tar) or pull it (podman pull "
            "localhost/hptune-test/absent:0), or run with --pull-images");
}

}  // namespace
}  // namespace hptune::launch
