// CheckPrivateDirectory on real directories: what another user could write
// into is refused, naming the directory, its owner and mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hptune/env/env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(CheckPrivateDirectoryTest, CreatesAMissingDirectoryPrivate) {
  const fs::path dir = fs::path(testing::MakeTempDir()) / "runs" / "a";
  EXPECT_OK(CheckPrivateDirectory(dir));
  struct stat info;
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700);
}

TEST(CheckPrivateDirectoryTest, ADirectoryOthersCanWriteIsRefused) {
  const fs::path dir = fs::path(testing::MakeTempDir()) / "runs";
  fs::create_directory(dir);
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  EXPECT_THAT(
      CheckPrivateDirectory(dir),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("directory " + dir.string() + " is owned by uid " +
                         std::to_string(geteuid()) + " with mode 0777")));
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  EXPECT_OK(CheckPrivateDirectory(dir));
}

TEST(CheckPrivateDirectoryTest, AParentOthersCanWriteIsRefusedUnlessSticky) {
  const fs::path parent = fs::path(testing::MakeTempDir()) / "shared";
  fs::create_directory(parent);
  ASSERT_EQ(chmod(parent.c_str(), 0777), 0);
  const fs::path dir = parent / "runs";
  EXPECT_THAT(CheckPrivateDirectory(dir),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("lies in " + parent.string())));
  // Like /tmp: others may add entries but not move or replace ours.
  ASSERT_EQ(chmod(parent.c_str(), 01777), 0);
  EXPECT_OK(CheckPrivateDirectory(dir));
}

TEST(CheckPrivateDirectoryTest, ADirectoryAnotherUserOwnsIsRefused) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "giving a directory to another user needs root";
  }
  const fs::path dir = fs::path(testing::MakeTempDir()) / "runs";
  fs::create_directory(dir);
  ASSERT_EQ(chmod(dir.c_str(), 0700), 0);
  ASSERT_EQ(chown(dir.c_str(), 65534, 65534), 0);
  EXPECT_THAT(CheckPrivateDirectory(dir),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("owned by uid 65534")));
}

}  // namespace
}  // namespace hptune
