// TrialCgroup and SpawnInCgroup on the machine's cgroup v2: a replica starts
// inside its own cgroup, and killing the cgroup ends it. Skipped where
// cgroups cannot be used, failed there when HPTUNE_EXPECT names them.
#include "src/launch/local/trial_cgroup.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "src/launch/local/spawn_in_cgroup.h"
#include "src/launch/local/v1_replica_cgroups.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Starts `sleep 600` in the cgroup `cgroup_fd` is open on, and then in
// those of `enter`.
pid_t StartSleep(int cgroup_fd, std::span<const int> enter = {}) {
  static char* const argv[] = {const_cast<char*>("sleep"),
                               const_cast<char*>("600"), nullptr};
  static char* const envp[] = {nullptr};
  const int log = open("/dev/null", O_WRONLY | O_CLOEXEC);
  const pid_t pid = SpawnInCgroup({.program = "/bin/sleep",
                                   .argv = argv,
                                   .envp = envp,
                                   .log_fd = log,
                                   .enter_cgroups = enter},
                                  cgroup_fd);
  close(log);
  return pid;
}

class TrialCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HPTUNE_SKIP_UNLESS_AVAILABLE(DetectCgroupSupport().usable, "cgroups",
                                 DetectCgroupSupport().description);
  }
  const fs::path trial_dir_ = testing::MakeTempDir();
};

TEST_F(TrialCgroupTest, AReplicaRunsInItsOwnCgroupUntilItIsKilled) {
  auto cgroup =
      TrialCgroup::Create(DefaultEnv(), trial_dir_, {"master-0", "worker-0"});
  ASSERT_OK(cgroup.status());
  ASSERT_NE(*cgroup, nullptr);
  // The record names the trial's cgroup before anything starts in it.
  const std::string recorded = ReadAll(trial_dir_ / kCgroupRecordFile);
  ASSERT_FALSE(recorded.empty());
  ASSERT_TRUE(fs::is_directory(recorded)) << recorded;

  absl::StatusOr<int> fd = (*cgroup)->NextReplicaCgroup(0);
  ASSERT_OK(fd.status());
  const pid_t pid = StartSleep(*fd);
  ASSERT_GT(pid, 0) << strerror(errno);
  // /proc/PID/cgroup's v2 line names the replica's cgroup in the trial's.
  const std::string membership =
      ReadAll("/proc/" + std::to_string(pid) + "/cgroup");
  const std::string trial = fs::path(recorded).filename().string();
  EXPECT_NE(membership.find("/" + trial + "/master-0."), std::string::npos)
      << membership << " is not in " << recorded;
  EXPECT_TRUE((*cgroup)->ReplicaPopulated(0));
  EXPECT_FALSE((*cgroup)->ReplicaPopulated(1));

  (*cgroup)->KillReplica(0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_FALSE((*cgroup)->ReplicaPopulated(0));

  cgroup->reset();  // Removes the cgroups and the record.
  EXPECT_FALSE(fs::exists(recorded));
  EXPECT_FALSE(fs::exists(trial_dir_ / kCgroupRecordFile));
}

// On a hybrid cgroup v1/v2 host a replica leaves this process's v1 cgroups
// for hptune-replicas in each, so that podman's split mode moves replicas
// only (v1_replica_cgroups.h).
TEST_F(TrialCgroupTest, AReplicaLeavesThisProcesssCgroupV1s) {
  const std::vector<std::string> ours =
      V1CgroupDirs(ReadAll("/proc/self/cgroup"));
  if (ours.empty()) {
    GTEST_SKIP() << "this process is at the root of every cgroup v1 "
                    "hierarchy, or there is none: podman moves nothing";
  }
  if (geteuid() != 0) GTEST_SKIP() << "cgroup v1 directories are root's";
  ASSERT_EQ(DetectCgroupSupport().v1_replica_procs.size(), ours.size());
  auto cgroup = TrialCgroup::Create(DefaultEnv(), trial_dir_, {"master-0"});
  ASSERT_OK(cgroup.status());
  absl::StatusOr<int> fd = (*cgroup)->NextReplicaCgroup(0);
  ASSERT_OK(fd.status());
  const pid_t pid = StartSleep(*fd, DetectCgroupSupport().v1_replica_procs);
  ASSERT_GT(pid, 0) << strerror(errno);
  const std::string membership =
      ReadAll("/proc/" + std::to_string(pid) + "/cgroup");
  std::vector<std::string> expected;
  for (const std::string& dir : ours) {
    expected.push_back(dir + "/" + kV1ReplicaCgroup);
  }
  EXPECT_EQ(V1CgroupDirs(membership), expected) << membership;
  EXPECT_EQ(V1CgroupDirs(ReadAll("/proc/self/cgroup")), ours);
  (*cgroup)->KillReplica(0);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
}

TEST_F(TrialCgroupTest, AProgramThatCannotStartIsAnErrorAndLeavesNoChild) {
  auto cgroup = TrialCgroup::Create(DefaultEnv(), trial_dir_, {"master-0"});
  ASSERT_OK(cgroup.status());
  absl::StatusOr<int> fd = (*cgroup)->NextReplicaCgroup(0);
  ASSERT_OK(fd.status());
  static char* const argv[] = {const_cast<char*>("nope"), nullptr};
  static char* const envp[] = {nullptr};
  errno = 0;
  EXPECT_EQ(SpawnInCgroup({.program = "/no/such/program",
                           .argv = argv,
                           .envp = envp,
                           .log_fd = STDERR_FILENO},
                          *fd),
            -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_LE(waitpid(-1, nullptr, WNOHANG), 0);  // No zombie left behind.
  EXPECT_FALSE((*cgroup)->ReplicaPopulated(0));
}

}  // namespace
}  // namespace hptune::launch
