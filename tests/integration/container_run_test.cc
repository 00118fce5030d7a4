// `hptune run` of jobs whose pools run in OCI containers (podman): three
// trials whose master and worker containers form a real cluster all
// succeed; a missing image fails the job before any trial; a SIGKILLed run
// leaves containers that the next run's take-over removes; Ctrl-C stops
// the containers, even a trainer that ignores SIGTERM. The image is
// tests/testdata/containers' (built offline by the containers.test_images
// fixture). Needs root and podman: skips saying why elsewhere, unless
// HPTUNE_EXPECT names "podman".
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::PollUntil;
using testing::ReadFileOrEmpty;
using testing::RunProcess;

constexpr char kImage[] = "localhost/hptune-test/python:1";
// The same files under another name, whose HPTUNE_TEST_IMAGE says so
// (built by the containers.test_images fixture).
constexpr char kSecondImage[] = "localhost/hptune-test/python-b:1";
constexpr char kPodman[] = "/usr/bin/podman";

std::string WhyNoPodman() {
  if (geteuid() != 0) return "the container tests run as root";
  if (access(kPodman, X_OK) != 0) return "podman is not installed";
  for (const char* image : {kImage, kSecondImage}) {
    if (RunProcess({kPodman, "image", "exists", image}).exit_code != 0) {
      return std::string("no image ") + image +
             " (tests/testdata/containers/build_test_image.sh)";
    }
  }
  return "";
}

class ContainerRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = WhyNoPodman();
    HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
    dir_ = testing::MakeTempDir();
  }

  void TearDown() override {
    if (dir_.empty()) return;
    // Whatever a failed test left.
    RunProcess({"/bin/sh", "-c",
                "podman ps -aq --filter label=" + Label() +
                    " | xargs -r podman rm -f -t 0"});
  }

  void WriteConfig(const std::string& image, const std::string& args) {
    const std::string pool = "    imageUri: " + image +
                             "\n    containerCommand: [python3, "
                             "/app/cluster_trainer.py]\n";
    std::ofstream(Config()) << "trainingInput:\n"
                               "  scaleTier: CUSTOM\n"
                               "  masterType: n1-standard-4\n"
                               "  masterConfig:\n"
                            << pool
                            << "  workerType: n1-standard-4\n"
                               "  workerCount: 2\n"
                               "  workerConfig:\n"
                            << pool << "  args: [" << args
                            << "]\n"
                               "  hyperparameters:\n"
                               "    goal: MINIMIZE\n"
                               "    hyperparameterMetricTag: loss\n"
                               "    maxTrials: 3\n"
                               "    maxParallelTrials: 1\n"
                               "    algorithm: RANDOM_SEARCH\n"
                               "    params:\n"
                               "    - {parameterName: x, type: DOUBLE, "
                               "minValue: 0, maxValue: 1}\n";
  }

  std::vector<std::string> Run() const {
    return {testing::HptuneBinary(),
            "run",
            Config(),
            "--job-id",
            "boxed",
            "--db",
            dir_ + "/hptune.db",
            "--runs-dir",
            Runs(),
            "--grace-seconds",
            "5",
            "--quiet"};
  }

  std::string Config() const { return dir_ + "/config.yaml"; }
  std::string Runs() const { return dir_ + "/runs"; }
  std::string Label() const { return "hptune.runs=" + Runs() + "/boxed"; }

  std::vector<std::string> Containers() const {
    std::string out = RunProcess({kPodman, "ps", "--all", "--quiet",
                                  "--filter=label=" + Label()})
                          .out;
    std::vector<std::string> ids;
    std::stringstream lines(out);
    for (std::string id; std::getline(lines, id);) {
      if (!id.empty()) ids.push_back(id);
    }
    return ids;
  }

  std::string dir_;
};

// This process's cgroups (/proc/self/cgroup), which `hptune run` and its
// replicas start in.
std::string OwnCgroups() { return ReadFileOrEmpty("/proc/self/cgroup"); }

// Nine container starts leave their caller's cgroups where they were: on a
// hybrid cgroup v1/v2 host podman's split mode would otherwise move this
// process one level down per start (docs/operations.md, containers).
TEST_F(ContainerRunTest, ThreeTrialsOfAContainerClusterSucceedInPlace) {
  WriteConfig(kImage, "");
  const std::string cgroups = OwnCgroups();
  testing::ProcessResult run = RunProcess(Run());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(OwnCgroups(), cgroups);
  for (int trial = 1; trial <= 3; ++trial) {
    const std::string trial_dir = Runs() + "/boxed/" + std::to_string(trial);
    // The master heard both workers through TF_CONFIG's addresses on the
    // host network, and wrote its model directory through the mounts.
    const nlohmann::json exchange = nlohmann::json::parse(
        ReadFileOrEmpty(trial_dir + "/model/exchange.json"));
    EXPECT_EQ(exchange["trial"], std::to_string(trial));
    EXPECT_EQ(exchange["received"], nlohmann::json({{"0", 10}, {"1", 20}}));
    EXPECT_THAT(ReadFileOrEmpty(trial_dir + "/worker-1.log"),
                HasSubstr("worker 1: ack trial " + std::to_string(trial)));
  }
  testing::ProcessResult trials =
      RunProcess({testing::HptuneBinary(), "trials", "list", "--study", "boxed",
                  "--db", dir_ + "/hptune.db", "--format", "json"});
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  const nlohmann::json listed = nlohmann::json::parse(trials.out);
  ASSERT_EQ(listed.size(), 3u);
  for (const nlohmann::json& trial : listed) {
    EXPECT_EQ(trial["state"], "SUCCEEDED") << trial.dump();
  }
  EXPECT_TRUE(Containers().empty());
}

// A pool's container: its image, entrypoint, args and env, which each
// replica names from inside its container in its log.
std::string PoolConfig(const std::string& pool, const std::string& image) {
  return "  " + pool + "Config:\n    imageUri: " + image +
         "\n    containerCommand: [/bin/sh, -c, 'echo \"" + pool +
         " entrypoint: image=$HPTUNE_TEST_IMAGE pool=$POOL_NAME args=$*\"; "
         "exec python3 /app/cluster_trainer.py \"$@\"', " +
         pool + "]\n    containerArgs: [--pool_arg=" + pool +
         "]\n    env: [{name: POOL_NAME, value: " + pool + "-env}]\n";
}

// The master and the workers run different images, entrypoints, args and
// env: each replica runs its own pool's, never the master's.
TEST_F(ContainerRunTest, EachPoolRunsItsOwnImageCommandArgsAndEnv) {
  std::ofstream(Config()) << "trainingInput:\n"
                             "  scaleTier: CUSTOM\n"
                             "  masterType: n1-standard-4\n"
                          << PoolConfig("master", kImage)
                          << "  workerType: n1-standard-4\n"
                             "  workerCount: 2\n"
                          << PoolConfig("worker", kSecondImage)
                          << "  hyperparameters:\n"
                             "    goal: MINIMIZE\n"
                             "    hyperparameterMetricTag: loss\n"
                             "    maxTrials: 1\n"
                             "    params:\n"
                             "    - {parameterName: x, type: DOUBLE, "
                             "minValue: 0, maxValue: 1}\n";
  testing::ProcessResult run = RunProcess(Run());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string trial_dir = Runs() + "/boxed/1";
  EXPECT_THAT(ReadFileOrEmpty(trial_dir + "/master-0.log"),
              HasSubstr(std::string("master entrypoint: image=") + kImage +
                        " pool=master-env args=--pool_arg=master --x="));
  for (const char* worker : {"worker-0", "worker-1"}) {
    const std::string log =
        ReadFileOrEmpty(trial_dir + "/" + std::string(worker) + ".log");
    EXPECT_THAT(
        log, HasSubstr(std::string("worker entrypoint: image=") + kSecondImage +
                       " pool=worker-env args=--pool_arg=worker --x="))
        << worker;
  }
  // And they formed their cluster.
  const nlohmann::json exchange = nlohmann::json::parse(
      ReadFileOrEmpty(trial_dir + "/model/exchange.json"));
  EXPECT_EQ(exchange["received"], nlohmann::json({{"0", 10}, {"1", 20}}));
}

// Under --gcs-root DIR, a container sees the buckets at /gcs, as on Vertex
// AI: it reads gs://bkt/in.txt at /gcs/bkt/in.txt and writes beside it.
TEST_F(ContainerRunTest, ABucketIsAtGcsInsideTheContainer) {
  const std::string buckets = dir_ + "/buckets";
  fs::create_directories(buckets + "/bkt");
  std::ofstream(buckets + "/bkt/in.txt") << "from the bucket\n";
  std::ofstream(Config())
      << "trainingInput:\n"
         "  jobDir: gs://bkt/out\n"
         "  masterConfig:\n"
         "    imageUri: "
      << kImage
      << "\n"
         // The image has a shell and Python, no coreutils.
         "    containerCommand: [/bin/sh, -c, 'read line < /gcs/bkt/in.txt "
         "&& echo \"$line\" > /gcs/bkt/out/copied.txt && exec python3 "
         "/app/cluster_trainer.py \"$@\"', trainer]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  std::vector<std::string> run = Run();
  run.insert(run.end(), {"--gcs-root", buckets});
  testing::ProcessResult result = RunProcess(run);
  ASSERT_EQ(result.exit_code, 0)
      << result.err << ReadFileOrEmpty(Runs() + "/boxed/1/master-0.log");
  EXPECT_EQ(ReadFileOrEmpty(buckets + "/bkt/out/copied.txt"),
            "from the bucket\n");
}

TEST_F(ContainerRunTest, AMissingImageFailsTheJobBeforeAnyTrial) {
  WriteConfig("localhost/hptune-test/absent:0", "");
  testing::ProcessResult run = RunProcess(Run());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err,
              HasSubstr("trainingInput.masterConfig.imageUri: image "
                        "\"localhost/hptune-test/absent:0\" is not in "
                        "podman's local storage, and hptune pulls none unless "
                        "asked: load it (podman load -i <file>.tar) or pull "
                        "it (podman pull localhost/hptune-test/absent:0), or "
                        "run with --pull-images"));
  EXPECT_FALSE(fs::exists(Runs() + "/boxed/1"));
}

TEST_F(ContainerRunTest, AKilledRunsContainersAreRemovedByTheTakeOver) {
  // The mark tells this test's trainers from those of tests beside it.
  const std::string mark = "--take-over-run=" + std::to_string(getpid());
  WriteConfig(kImage, "--hold=1, " + mark);
  const std::string log = dir_ + "/run.log";
  pid_t run = testing::StartProcess(Run(), log, log);
  testing::StopOnExit stop(run);
  const std::string metrics = Runs() + "/boxed/1/master-0.metrics";
  ASSERT_TRUE(
      PollUntil([&] { return fs::exists(metrics); }, std::chrono::seconds(120)))
      << ReadFileOrEmpty(log);
  // The workers exit once acknowledged; the master's container holds.
  ASSERT_TRUE(PollUntil([&] { return Containers().size() == 1; },
                        std::chrono::seconds(60)));
  kill(run, SIGKILL);
  testing::WaitForExit(run, std::chrono::seconds(30));
  // conmon and the containers outlive the runner.
  const std::vector<std::string> left = Containers();
  ASSERT_EQ(left.size(), 1u);

  // The next run takes the job over: what the dead one left is removed
  // before trial 1 runs again; Ctrl-C then cancels it and stops its
  // container.
  pid_t again = testing::StartProcess(Run(), log + "2", log + "2");
  testing::StopOnExit stop_again(again);
  ASSERT_TRUE(PollUntil(
      [&] {
        const std::vector<std::string> now = Containers();
        return now.size() == 1 && now != left;
      },
      std::chrono::seconds(120)))
      << ReadFileOrEmpty(log + "2");
  kill(again, SIGINT);
  EXPECT_EQ(testing::WaitForExit(again, std::chrono::seconds(60)), 130)
      << ReadFileOrEmpty(log + "2");
  // conmon removes an exited container (--rm) just after it ends.
  EXPECT_TRUE(PollUntil([&] { return Containers().empty(); },
                        std::chrono::seconds(60)));
  EXPECT_TRUE(
      PollUntil([&] { return testing::ProcessesMentioning(mark).empty(); },
                std::chrono::seconds(60)));
}

TEST_F(ContainerRunTest,
       ACancelledTrialWhoseTrainerIgnoresSigtermLeavesNoContainer) {
  // SIGKILL after the grace period takes conmon with the container (both
  // in the replica's cgroup), so podman's --rm never runs: the stop itself
  // removes the container.
  WriteConfig(kImage, "--hold=deaf");
  const std::string log = dir_ + "/run.log";
  pid_t run = testing::StartProcess(Run(), log, log);
  testing::StopOnExit stop(run);
  const std::string metrics = Runs() + "/boxed/1/master-0.metrics";
  ASSERT_TRUE(
      PollUntil([&] { return fs::exists(metrics); }, std::chrono::seconds(120)))
      << ReadFileOrEmpty(log);
  kill(run, SIGINT);
  EXPECT_EQ(testing::WaitForExit(run, std::chrono::seconds(60)), 130)
      << ReadFileOrEmpty(log);
  EXPECT_THAT(Containers(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace hptune
