// LocalLauncher::Reattach: replicas left running by a killed hptune process
// are found by their HPTUNE_REPLICA marker and stopped; others are not.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hptune/launch/local_launcher.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

extern char** environ;

namespace hptune::launch {
namespace {

// Starts `sleep 60` with HPTUNE_REPLICA=`marker`, in a process group of its
// own, as a replica left by a dead server would run.
pid_t StartSleeper(const std::string& marker) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
  env_strings.push_back("HPTUNE_REPLICA=" + marker);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string sleep = "sleep", seconds = "60";
  char* argv[] = {sleep.data(), seconds.data(), nullptr};
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawnp(&pid, "sleep", nullptr, &attr, argv, envp.data()), 0);
  posix_spawnattr_destroy(&attr);
  return pid;
}

// Whether `pid` has exec'd with HPTUNE_REPLICA=`marker`: before its exec a
// spawned child's environment is still the parent's.
bool CarriesMarker(pid_t pid, const std::string& marker) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  std::string environ_text((std::istreambuf_iterator<char>(in)), {});
  return environ_text.find("HPTUNE_REPLICA=" + marker + '\0') !=
         std::string::npos;
}

// Whether `pid` (a child) exits within `timeout`; it is looked at at least
// once, so a zero timeout still sees one that has exited.
bool Exited(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(LocalLauncherReattachTest, StopsLeftoverReplicasAndReturnsNull) {
  const std::string dir = testing::MakeTempDir();
  TrialLaunch launch{.job_id = "j", .trial = 3};
  launch.replicas.push_back({.type = TaskType::kMaster,
                             .argv = {"true"},
                             .log_path = dir + "/j/3/master-0.log"});
  launch.replicas.push_back({.type = TaskType::kWorker,
                             .argv = {"true"},
                             .log_path = dir + "/j/3/worker-0.log"});
  const pid_t master = StartSleeper(dir + "/j/3/master-0.log");
  const pid_t worker = StartSleeper(dir + "/j/3/worker-0.log");
  // Another trial's replica must survive.
  const pid_t other = StartSleeper(dir + "/j/4/master-0.log");
  // Reattach finds only processes that carry the marker: wait until each
  // has exec'd.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!(CarriesMarker(master, dir + "/j/3/master-0.log") &&
           CarriesMarker(worker, dir + "/j/3/worker-0.log") &&
           CarriesMarker(other, dir + "/j/4/master-0.log")) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  LocalLauncher launcher({.env = &hptune::DefaultEnv(),
                          .reattach_grace = std::chrono::milliseconds(500)});
  auto run = launcher.Reattach(launch);
  ASSERT_OK(run);
  EXPECT_EQ(*run, nullptr);
  EXPECT_TRUE(Exited(master, std::chrono::seconds(5)));
  EXPECT_TRUE(Exited(worker, std::chrono::seconds(5)));
  // Reattach has returned: a stop of `other` would have been sent by now,
  // and a second is long enough for a SIGTERMed sleep to exit.
  EXPECT_FALSE(Exited(other, std::chrono::seconds(1)));
  kill(other, SIGKILL);
  EXPECT_TRUE(Exited(other, std::chrono::seconds(5)));
}

// A job's leftovers are found by the runs-directory prefix of their
// marker: job "a"'s must not reach job "ab"'s replicas.
TEST(LocalLauncherReattachTest, StopLeftoverReplicasKeepsToItsJob) {
  const std::string dir = testing::MakeTempDir();
  const pid_t mine = StartSleeper(dir + "/a/1/master-0.log");
  const pid_t other = StartSleeper(dir + "/ab/1/master-0.log");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!(CarriesMarker(mine, dir + "/a/1/master-0.log") &&
           CarriesMarker(other, dir + "/ab/1/master-0.log")) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(StopLeftoverReplicas(DefaultEnv(), dir + "/a",
                                 std::chrono::milliseconds(500)),
            1);
  EXPECT_TRUE(Exited(mine, std::chrono::seconds(5)));
  EXPECT_FALSE(Exited(other, std::chrono::seconds(1)));
  kill(other, SIGKILL);
  EXPECT_TRUE(Exited(other, std::chrono::seconds(5)));
}

TEST(LocalLauncherReattachTest, NothingLeftIsFine) {
  const std::string dir = testing::MakeTempDir();
  TrialLaunch launch{.job_id = "j", .trial = 1};
  launch.replicas.push_back({.type = TaskType::kMaster,
                             .argv = {"true"},
                             .log_path = dir + "/j/1/master-0.log"});
  LocalLauncher launcher({.env = &hptune::DefaultEnv()});
  auto run = launcher.Reattach(launch);
  ASSERT_OK(run);
  EXPECT_EQ(*run, nullptr);
}

}  // namespace
}  // namespace hptune::launch
