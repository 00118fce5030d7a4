// Tests of the `podman run` command line of a container replica
// (src/launch/local/podman_argv.h): only its own GPUs, the host network, its
// environment and mounts, the entrypoint and a name a later hptune finds.
#include "src/launch/local/podman_argv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hptune/env/env.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune_testing::StatusHasCode;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

ReplicaLaunch Worker() {
  return ReplicaLaunch{
      .type = TaskType::kWorker,
      .index = 1,
      .argv = {"--data=/d", "--lr=0.1"},
      .env = {{"TF_CONFIG", R"({"task": {"type": "worker"}})"},
              {"CUDA_VISIBLE_DEVICES", "1,3"}},
      .working_dir = "/runs/job_1/4",
      .log_path = "/runs/job_1/4/worker-1.log",
      .metrics_path = "/runs/job_1/4/worker-1.metrics",
      .container = ReplicaContainer{.spec = {.image_uri = "trainer:1"},
                                    .mounts = {"/runs/job_1/4", "/out/4"},
                                    .gpus = {1, 3}}};
}

PodmanOptions Options() {
  return {.control_devices = {"/dev/nvidiactl", "/dev/nvidia-uvm"},
          .nofile = {1024, 4096},
          .nproc = {100, 200}};
}

std::vector<std::string> ArgvOrDie(const ReplicaLaunch& replica,
                                   const PodmanOptions& options) {
  absl::StatusOr<std::vector<std::string>> argv =
      PodmanRunArgv(DefaultEnv(), replica, options);
  EXPECT_OK(argv);
  return argv.ok() ? *argv : std::vector<std::string>{};
}

TEST(PodmanArgvTest, OnlyTheAllocatedGpusDeviceNodesArePassed) {
  const std::vector<std::string> argv = ArgvOrDie(Worker(), Options());
  EXPECT_THAT(argv, Contains("--device=/dev/nvidia1"));
  EXPECT_THAT(argv, Contains("--device=/dev/nvidia3"));
  EXPECT_THAT(argv, Contains("--device=/dev/nvidiactl"));
  EXPECT_THAT(argv, Contains("--device=/dev/nvidia-uvm"));
  EXPECT_THAT(argv, Not(Contains("--device=/dev/nvidia0")));
  EXPECT_THAT(argv, Not(Contains("--device=/dev/nvidia2")));
  EXPECT_THAT(argv, Contains("--env=CUDA_VISIBLE_DEVICES"));

  PodmanOptions cdi = Options();
  cdi.cdi_gpus = true;
  const std::vector<std::string> with_cdi = ArgvOrDie(Worker(), cdi);
  EXPECT_THAT(with_cdi, Contains("--device=nvidia.com/gpu=1"));
  EXPECT_THAT(with_cdi, Contains("--device=nvidia.com/gpu=3"));
  EXPECT_THAT(with_cdi, Not(Contains("--device=/dev/nvidiactl")));

  ReplicaLaunch cpu = Worker();
  cpu.container->gpus.clear();
  for (const std::string& arg : ArgvOrDie(cpu, Options())) {
    EXPECT_FALSE(arg.starts_with("--device")) << arg;
  }
}

TEST(PodmanArgvTest, RunsInTheForegroundOnTheHostNetworkWithItsEnvAndMounts) {
  const std::vector<std::string> argv = ArgvOrDie(Worker(), Options());
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "podman");
  EXPECT_EQ(argv[1], "run");
  for (const char* flag :
       {"--rm", "--init", "--replace", "--pull=never", "--network=host",
        "--log-driver=passthrough", "--ulimit=nofile=1024:4096",
        "--ulimit=nproc=100:200", "--volume=/runs/job_1/4:/runs/job_1/4",
        "--volume=/out/4:/out/4", "--env=TF_CONFIG", "--env=HPTUNE_REPLICA",
        "--label=hptune.runs=/runs/job_1"}) {
    EXPECT_THAT(argv, Contains(flag));
  }
  // Values stay off the command line: podman reads them from its own
  // environment, the replica's.
  for (const std::string& arg : argv) {
    EXPECT_THAT(arg, Not(::testing::HasSubstr("worker\"}"))) << arg;
  }
  EXPECT_THAT(argv, Not(Contains("--cgroups=split")));
  EXPECT_THAT(argv, Not(Contains(::testing::StartsWith("--entrypoint"))));
  // The image, then what follows it, last and in order.
  EXPECT_THAT(std::vector<std::string>(argv.end() - 3, argv.end()),
              ElementsAre("trainer:1", "--data=/d", "--lr=0.1"));

  PodmanOptions split = Options();
  split.split_cgroups = true;
  EXPECT_THAT(ArgvOrDie(Worker(), split), Contains("--cgroups=split"));
}

// --gcs-root is bound at /gcs, as Vertex AI's Cloud Storage FUSE mount;
// without it there is no /gcs.
TEST(PodmanArgvTest, TheBucketsRootIsBoundAtGcs) {
  EXPECT_THAT(ArgvOrDie(Worker(), Options()),
              Not(Contains(::testing::EndsWith(":/gcs"))));
  ReplicaLaunch with_buckets = Worker();
  with_buckets.container->gcs_root = "/srv/buckets";
  EXPECT_THAT(ArgvOrDie(with_buckets, Options()),
              Contains("--volume=/srv/buckets:/gcs"));
  with_buckets.container->gcs_root = "/srv/a:b";
  EXPECT_FALSE(PodmanRunArgv(DefaultEnv(), with_buckets, Options()).ok());
}

// Another user's replica runs under root's podman as that user, with the
// user's groups and nothing more; root's own runs as the image says.
TEST(PodmanArgvTest, AnotherUsersReplicaRunsAsThatUserAndGainsNothing) {
  EXPECT_THAT(ArgvOrDie(Worker(), Options()),
              Not(Contains(::testing::StartsWith("--user"))));
  ReplicaLaunch alices = Worker();
  alices.run_as =
      UserCredentials{.uid = 64001, .gid = 64010, .groups = {64010, 44}};
  const std::vector<std::string> argv = ArgvOrDie(alices, Options());
  for (const char* flag :
       {"--user=64001:64010", "--group-add=44", "--cap-drop=all",
        "--security-opt=no-new-privileges"}) {
    EXPECT_THAT(argv, Contains(flag));
  }
  EXPECT_THAT(argv, Not(Contains("--group-add=64010")));
  // Before the image: podman's options, not the trainer's arguments.
  const auto image = std::find(argv.begin(), argv.end(), "trainer:1");
  EXPECT_LT(std::find(argv.begin(), argv.end(), "--user=64001:64010"), image);
}

TEST(PodmanArgvTest, ACommandReplacesTheEntrypoint) {
  ReplicaLaunch replica = Worker();
  replica.container->spec.command = {"python3", "/app/task.py"};
  EXPECT_THAT(ArgvOrDie(replica, Options()),
              Contains(R"(--entrypoint=["python3","/app/task.py"])"));
}

TEST(PodmanArgvTest, APlainPackageDirectoryIsImportedWhereItIsBound) {
  ReplicaLaunch replica = Worker();
  replica.container->spec.python_module = "trainer.task";
  replica.container->spec.package_uris = {"/src/trainer"};
  const std::vector<std::string> argv = ArgvOrDie(replica, Options());
  EXPECT_THAT(argv,
              Contains("--volume=/src/trainer:/hptune/packages/trainer:ro"));
  // In the container: pip only for what is no plain directory, and the
  // bound directories on PYTHONPATH when one was.
  EXPECT_THAT(
      argv,
      Contains(::testing::AllOf(
          ::testing::HasSubstr("[ -d '/hptune/packages/trainer' ] && [ ! -f "
                               "'/hptune/packages/trainer'/setup.py ]"),
          ::testing::HasSubstr("then imported=1; else"),
          ::testing::HasSubstr("export PYTHONPATH=/hptune/packages"))));
}

TEST(PodmanArgvTest, APythonPackageIsInstalledOfflineThenItsModuleRuns) {
  ReplicaLaunch replica = Worker();
  replica.container->spec.python_module = "trainer.task";
  replica.container->spec.package_uris = {"/pkgs/trainer-0.1.tar.gz"};
  replica.argv.insert(replica.argv.begin(), "trainer.task");
  const std::vector<std::string> argv = ArgvOrDie(replica, Options());
  EXPECT_THAT(argv, Contains("--volume=/pkgs/trainer-0.1.tar.gz:/hptune/"
                             "packages/trainer-0.1.tar.gz:ro"));
  EXPECT_THAT(argv,
              Contains(::testing::AllOf(
                  ::testing::StartsWith(R"(--entrypoint=["/bin/sh","-c",)"),
                  ::testing::HasSubstr("--no-index"),
                  ::testing::HasSubstr("/hptune/packages/trainer-0.1.tar.gz"),
                  ::testing::HasSubstr(R"(exec python3 -m \"$0\" \"$@\")"))));
  EXPECT_THAT(
      std::vector<std::string>(argv.end() - 4, argv.end()),
      ElementsAre("trainer:1", "trainer.task", "--data=/d", "--lr=0.1"));

  replica.container->spec.package_uris = {"gs://bucket/trainer.tar.gz"};
  absl::StatusOr<std::vector<std::string>> remote =
      PodmanRunArgv(DefaultEnv(), replica, Options());
  EXPECT_THAT(remote.status(),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      std::string(remote.status().message()),
      ::testing::HasSubstr("worker 1: pythonPackageSpec.packageUris[0]: "
                           "\"gs://bucket/trainer.tar.gz\" must be an "
                           "absolute path"));
}

TEST(PodmanArgvTest, TheNameIsTheSameForEveryStartAndDiffersPerRunsDir) {
  const std::string name = ContainerName(DefaultEnv(), Worker());
  EXPECT_THAT(name,
              ::testing::MatchesRegex("hptune-job_1-4-worker-1-[0-9a-f]{8}"));
  EXPECT_EQ(ContainerName(DefaultEnv(), Worker()), name);
  ReplicaLaunch elsewhere = Worker();
  elsewhere.log_path = "/other/job_1/4/worker-1.log";
  EXPECT_NE(ContainerName(DefaultEnv(), elsewhere), name);
  EXPECT_THAT(ArgvOrDie(Worker(), Options()), Contains("--name=" + name));
}

}  // namespace
}  // namespace hptune::launch
