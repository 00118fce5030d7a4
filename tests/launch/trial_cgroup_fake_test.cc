// TrialCgroup's logic on FakeEnv's files: what the kernel's cgroup tree
// cannot show without another user or a full disk. A cgroup here is a
// directory with the interface files a test writes (cgroup.kill,
// cgroup.procs, cgroup.events); no process runs in it.
#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/env_wrapper.h"
#include "src/launch/local/trial_cgroup.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kTrialDir[] = "/runs/job/1";
constexpr char kCgroup[] = "/cg/hptune-7-0";

class TrialCgroupFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // What a killed hptune left: its trial's cgroup with two processes.
    ASSERT_OK(env_.CreatePrivateDirectories(kCgroup));
    ASSERT_OK(env_.WriteFileAtomically(fs::path(kCgroup) / "cgroup.kill", ""));
    ASSERT_OK(env_.WriteFileAtomically(fs::path(kCgroup) / "cgroup.procs",
                                       "11\n12\n"));
    ASSERT_OK(env_.WriteFileAtomically(fs::path(kCgroup) / "cgroup.events",
                                       "populated 0\nfrozen 0\n"));
    ASSERT_OK(env_.CreatePrivateDirectories(kTrialDir));
    ASSERT_OK(env_.WriteFileAtomically(Record(), kCgroup));
  }
  static fs::path Record() { return fs::path(kTrialDir) / kCgroupRecordFile; }
  std::string Kill() {
    return env_.ReadFile(fs::path(kCgroup) / "cgroup.kill").value_or("gone");
  }

  testing::FakeEnv env_;
};

TEST_F(TrialCgroupFakeTest, ARecordedCgroupOfThisUserIsKilled) {
  EXPECT_EQ(KillRecordedCgroup(env_, kTrialDir, std::chrono::seconds(1)), 2);
  EXPECT_EQ(Kill(), "1");
  EXPECT_FALSE(env_.Exists(Record()));
}

TEST_F(TrialCgroupFakeTest, ACgroupAnotherUserOwnsIsNotKilled) {
  env_.SetOwner(kCgroup, env_.uid + 1);
  EXPECT_EQ(KillRecordedCgroup(env_, kTrialDir, std::chrono::seconds(1)), 0);
  EXPECT_EQ(Kill(), "");
  EXPECT_FALSE(env_.Exists(Record()));  // A record of nothing to kill.
}

TEST_F(TrialCgroupFakeTest, ARecordAnotherUserWroteIsNotFollowed) {
  // A trial directory of a root server's job is its owner's, who may write
  // a record naming a cgroup of the server's for it to kill.
  env_.SetOwner(Record(), env_.uid + 1);
  EXPECT_EQ(KillRecordedCgroup(env_, kTrialDir, std::chrono::seconds(1)), 0);
  EXPECT_EQ(Kill(), "");
}

TEST_F(TrialCgroupFakeTest, ATrialsCgroupIsRecordedAndHasOneCgroupPerStart) {
  const CgroupSupport support{.usable = true, .parent = "/cg"};
  env_.pid = 42;
  absl::StatusOr<std::unique_ptr<TrialCgroup>> cgroup =
      TrialCgroup::Create(env_, support, "/runs/job/2", {"master-0"});
  ASSERT_OK(cgroup.status());
  ASSERT_NE(*cgroup, nullptr);
  const std::string recorded =
      env_.ReadFile(fs::path("/runs/job/2") / kCgroupRecordFile).value_or("");
  EXPECT_THAT(recorded, HasSubstr("/cg/hptune-42-"));
  ASSERT_OK((*cgroup)->NextReplicaCgroup(0).status());
  EXPECT_THAT(
      env_.ListDirectory(recorded).value_or(std::vector<DirectoryEntry>()),
      ElementsAre(Field(&DirectoryEntry::name, "master-0.0")));
  cgroup->reset();
  EXPECT_FALSE(env_.Exists(recorded));
  EXPECT_FALSE(env_.Exists(fs::path("/runs/job/2") / kCgroupRecordFile));
}

// A disk that is full when the trial's record is written.
class FullDisk : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  absl::Status WriteFileAtomically(const fs::path& path, std::string_view, int,
                                   Durability) override {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot write ", path.string(), ".tmp: ", std::strerror(ENOSPC)));
  }
};

TEST_F(TrialCgroupFakeTest,
       AFullDiskIsAnErrorNamingTheRecordAndLeavesNoCgroup) {
  FullDisk full(env_);
  const CgroupSupport support{.usable = true, .parent = "/cg"};
  EXPECT_THAT(TrialCgroup::Create(full, support, "/runs/job/2", {"master-0"}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("/runs/job/2/replicas.cgroup"),
                             HasSubstr("No space left on device"))));
  // Only the cgroup a killed hptune left is there.
  EXPECT_THAT(env_.ListDirectory("/cg").value_or(std::vector<DirectoryEntry>()),
              ElementsAre(Field(&DirectoryEntry::name, "hptune-7-0")));
}

}  // namespace
}  // namespace hptune::launch
