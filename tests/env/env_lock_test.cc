// Env's file locks and resolved paths, the same checks on the real machine
// (DefaultEnv in a temporary directory: flocks belong to an open file
// description, so two locks of one process contend as two processes' do)
// and on FakeEnv's lock table, so a test of the runner lease on FakeEnv
// sees holders conflict as on a disk.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/env.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/real_and_fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

class EnvLockTest : public testing::RealAndFakeEnvTest {
 protected:
  void SetUp() override {
    RealAndFakeEnvTest::SetUp();
    ASSERT_OK(env().CreatePrivateDirectories(dir_ / "sub"));
  }
  absl::StatusOr<std::unique_ptr<FileLock>> Lock(LockMode mode,
                                                 LockFileUse use) {
    return env().LockFile(dir_ / "db.lock", mode, use);
  }
};

TEST_P(EnvLockTest, AnExclusiveHolderKeepsEveryOtherOut) {
  absl::StatusOr<std::unique_ptr<FileLock>> held =
      Lock(LockMode::kExclusive, LockFileUse::kKept);
  ASSERT_OK(held.status());
  EXPECT_THAT(Lock(LockMode::kExclusive, LockFileUse::kKept),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr((dir_ / "db.lock").string())));
  EXPECT_THAT(Lock(LockMode::kShared, LockFileUse::kKept),
              StatusHasCode(absl::StatusCode::kUnavailable));
  held->reset();  // Released on destruction; the file stays.
  EXPECT_TRUE(env().Exists(dir_ / "db.lock"));
  EXPECT_OK(Lock(LockMode::kExclusive, LockFileUse::kKept).status());
}

TEST_P(EnvLockTest, SharedHoldersShareAndKeepAnExclusiveOneOut) {
  absl::StatusOr<std::unique_ptr<FileLock>> one =
      Lock(LockMode::kShared, LockFileUse::kKept);
  absl::StatusOr<std::unique_ptr<FileLock>> two =
      Lock(LockMode::kShared, LockFileUse::kKept);
  ASSERT_OK(one.status());
  ASSERT_OK(two.status());
  EXPECT_THAT(Lock(LockMode::kExclusive, LockFileUse::kKept),
              StatusHasCode(absl::StatusCode::kUnavailable));
  one->reset();
  EXPECT_THAT(Lock(LockMode::kExclusive, LockFileUse::kKept),
              StatusHasCode(absl::StatusCode::kUnavailable));
  two->reset();
  EXPECT_OK(Lock(LockMode::kExclusive, LockFileUse::kKept).status());
}

TEST_P(EnvLockTest, AHolderPidFileNamesItsHolderAndGoesWithIt) {
  const std::filesystem::path file = dir_ / "db.lock";
  {
    absl::StatusOr<std::unique_ptr<FileLock>> held =
        Lock(LockMode::kExclusive, LockFileUse::kHolderPid);
    ASSERT_OK(held.status());
    const int pid = fake_ ? fake_->pid : ::getpid();
    EXPECT_THAT(env().ReadFileHead(file, 32),
                IsOkAndHolds(std::to_string(pid)));
    EXPECT_THAT(Lock(LockMode::kExclusive, LockFileUse::kHolderPid),
                StatusHasCode(absl::StatusCode::kUnavailable));
  }
  EXPECT_FALSE(env().Exists(file));
  EXPECT_OK(Lock(LockMode::kExclusive, LockFileUse::kHolderPid).status());
}

TEST_P(EnvLockTest, ALockFileThatCannotBeMadeIsNamed) {
  EXPECT_THAT(env().LockFile(dir_ / "missing" / "db.lock", LockMode::kExclusive,
                             LockFileUse::kKept),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("cannot create lock file \"" +
                                 (dir_ / "missing" / "db.lock").string())));
}

TEST_P(EnvLockTest, RealPathResolvesDotsAndNeedsAFile) {
  const std::filesystem::path sub =
      fake_ ? dir_ / "sub" : std::filesystem::canonical(dir_ / "sub");
  EXPECT_THAT(env().RealPath(dir_ / "sub" / ".." / "." / "sub"),
              IsOkAndHolds(sub));
  EXPECT_THAT(env().RealPath(dir_ / "none"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

INSTANTIATE_TEST_SUITE_P(RealAndFake, EnvLockTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Fake" : "Real";
                         });

TEST(DefaultEnvRealPathTest, ALinkIsResolved) {
  const std::filesystem::path dir = testing::MakeTempDir();
  ASSERT_OK(DefaultEnv().CreatePrivateDirectories(dir / "target"));
  std::filesystem::create_directory_symlink(dir / "target", dir / "link");
  EXPECT_THAT(DefaultEnv().RealPath(dir / "link"),
              IsOkAndHolds(std::filesystem::canonical(dir / "target")));
}

}  // namespace
}  // namespace hptune
