// CheckPrivateDirectory on real directories: what another user could write
// into is refused, naming the directory, its owner and mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_format.h"
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
  // Writable by others but not by its group, and by its group alone: each
  // lets another user replace what it holds.
  for (const mode_t mode : {0757, 0775, 0703}) {
    ASSERT_EQ(chmod(dir.c_str(), mode), 0);
    EXPECT_THAT(CheckPrivateDirectory(dir),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr(absl::StrFormat("with mode %04o", mode))));
  }
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

// The same rule for a file (a database, a log): a link is refused even to
// a private file, as is a file others can write; a missing one passes.
TEST(CheckPrivatePathTest, AFileLinkOrAFileOthersCanWriteIsRefused) {
  const fs::path dir = fs::path(testing::MakeTempDir());
  const fs::path file = dir / "h.db";
  EXPECT_OK(CheckPrivatePath(file, PathKind::kFile));
  std::ofstream(file).close();
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  EXPECT_OK(CheckPrivatePath(file, PathKind::kFile));
  ASSERT_EQ(chmod(file.c_str(), 0620), 0);
  EXPECT_THAT(
      CheckPrivatePath(file, PathKind::kFile),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("file " + file.string() + " is owned by uid " +
                         std::to_string(geteuid()) + " with mode 0620")));
  const fs::path link = dir / "link.db";
  fs::create_symlink(file, link);
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  EXPECT_THAT(CheckPrivatePath(link, PathKind::kFile),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("file " + link.string() +
                                 " is a symbolic link to " + file.string())));
  EXPECT_THAT(CheckPrivatePath(dir, PathKind::kFile),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is not a regular file")));
}

// A directory on the way that is a link another user owns: they choose
// where the path leads, whatever the directories it leads to.
TEST(CheckPrivatePathTest, ALinkOfAnotherUserOnTheWayIsRefused) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "giving a link to another user needs root";
  }
  const fs::path dir = fs::path(testing::MakeTempDir());
  fs::create_directory(dir / "real");
  const fs::path via = dir / "via";
  fs::create_directory_symlink(dir / "real", via);
  EXPECT_OK(CheckPrivatePath(via / "h.db", PathKind::kFile));
  ASSERT_EQ(lchown(via.c_str(), 65534, 65534), 0);
  EXPECT_THAT(
      CheckPrivatePath(via / "h.db", PathKind::kFile),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("lies in " + via.string() +
                         ", which is a symbolic link to " +
                         (dir / "real").string() + ", owned by uid 65534")));
}

}  // namespace
}  // namespace hptune
