// The /proc scans behind stopping and collecting replicas, on a real
// process started as a replica is: its group is live while it runs and not
// once it has ended (a zombie only waits to be collected), and its marker
// finds it, which is how a restarted server finds what an earlier one left.
#include "src/launch/local/replica_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "src/launch/child_processes.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::chrono::seconds kExecDeadline{30};

TEST(ReplicaProcessTest, AReplicaIsFoundByItsMarkerAndLiveUntilItEnds) {
  ReplicaLaunch replica{.argv = {"sleep", "60"},
                        .log_path = testing::MakeTempDir() + "/master-0.log"};
  absl::StatusOr<pid_t> pid = SpawnReplica(DefaultEnv(), replica);
  ASSERT_OK(pid);
  EXPECT_TRUE(GroupHasLiveProcess(DefaultEnv(), *pid));
  // The marker is in the replica's environment once it has exec'd; until
  // then /proc shows the environment of the process that forked it.
  std::vector<pid_t> found;
  const auto deadline = std::chrono::steady_clock::now() + kExecDeadline;
  while ((found = FindMarkedProcesses(DefaultEnv(),
                                      ReplicaMarker(DefaultEnv(), replica)))
             .empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_THAT(found, ElementsAre(*pid));

  ASSERT_EQ(kill(*pid, SIGKILL), 0);
  // Ended and not collected yet: a zombie, which neither counts as live nor
  // is found.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, *pid, &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(GroupIsGone(*pid));
  EXPECT_FALSE(GroupHasLiveProcess(DefaultEnv(), *pid));
  EXPECT_THAT(
      FindMarkedProcesses(DefaultEnv(), ReplicaMarker(DefaultEnv(), replica)),
      IsEmpty());

  ASSERT_EQ(waitpid(*pid, nullptr, 0), *pid);
  Disown(*pid);
  EXPECT_TRUE(GroupIsGone(*pid));
}

}  // namespace
}  // namespace hptune::launch
