// Env::OpenDirectory's handles, the same checks on the real one (DefaultEnv
// in a temporary directory) and on FakeEnv's, then what only the real one
// can show (a link planted under a name) and what only the fake one can
// (another user's directory).
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

namespace fs = std::filesystem;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

class DirectoryHandleTest : public testing::RealAndFakeEnvTest {
 protected:
  void SetUp() override {
    RealAndFakeEnvTest::SetUp();
    ASSERT_OK(env().CreatePrivateDirectories(dir_));
    ASSERT_OK(env().WriteFileAtomically(dir_ / "control", "0\n"));
  }
  std::unique_ptr<DirectoryHandle> Open(const fs::path& path) {
    absl::StatusOr<std::unique_ptr<DirectoryHandle>> handle =
        env().OpenDirectory(path);
    EXPECT_OK(handle.status());
    return handle.ok() ? std::move(*handle) : nullptr;
  }
};

TEST_P(DirectoryHandleTest, TheOwnerAndTypeAreTheOpenedDirectorys) {
  std::unique_ptr<DirectoryHandle> dir = Open(dir_);
  ASSERT_NE(dir, nullptr);
  absl::StatusOr<FileInfo> info = dir->Info();
  ASSERT_OK(info.status());
  EXPECT_EQ(info->type, FileType::kDirectory);
  EXPECT_EQ(info->owner, env().EffectiveUserId());
  EXPECT_EQ(dir->path(), dir_);
  EXPECT_THAT(env().OpenDirectory(dir_ / "control"),
              StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(env().OpenDirectory(dir_ / "none"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

TEST_P(DirectoryHandleTest, AFileIsReadAndWrittenByNameWithItsOwner) {
  std::unique_ptr<DirectoryHandle> dir = Open(dir_);
  ASSERT_NE(dir, nullptr);
  ASSERT_OK(dir->WriteAt("control", "1\n"));
  absl::StatusOr<FileContents> read = dir->ReadAt("control", 100);
  ASSERT_OK(read.status());
  EXPECT_EQ(read->text, "1\n");
  EXPECT_EQ(read->info.owner, env().EffectiveUserId());
  EXPECT_EQ(dir->ReadAt("control", 1)->text, "1");
  // A control file is never created by a write.
  EXPECT_THAT(dir->WriteAt("absent", "1"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent")));
  EXPECT_THAT(dir->ReadAt("absent", 100),
              StatusHasCode(absl::StatusCode::kNotFound));
}

TEST_P(DirectoryHandleTest, SubdirectoriesAreMadeListedOpenedAndRemoved) {
  std::unique_ptr<DirectoryHandle> dir = Open(dir_);
  ASSERT_NE(dir, nullptr);
  ASSERT_OK(dir->CreateSubdirectory("child"));
  EXPECT_THAT(dir->CreateSubdirectory("child"),
              StatusHasCode(absl::StatusCode::kAlreadyExists));
  absl::StatusOr<std::vector<DirectoryEntry>> entries = dir->List();
  ASSERT_OK(entries.status());
  EXPECT_THAT(*entries, ElementsAre(Field(&DirectoryEntry::name, "child"),
                                    Field(&DirectoryEntry::name, "control")));
  EXPECT_EQ((*entries)[0].type, FileType::kDirectory);
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> child =
      dir->OpenSubdirectory("child");
  ASSERT_OK(child.status());
  EXPECT_EQ((*child)->path(), dir_ / "child");
  EXPECT_EQ((*child)->descriptor() >= 0, !GetParam());
  ASSERT_OK(dir->RemoveSubdirectory("child"));
  EXPECT_THAT(dir->RemoveSubdirectory("child"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

INSTANTIATE_TEST_SUITE_P(RealAndFake, DirectoryHandleTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "FakeEnv" : "DefaultEnv";
                         });

TEST(PosixDirectoryHandleTest, ALinkUnderANameIsRefused) {
  const fs::path dir = testing::MakeTempDir();
  ASSERT_OK(DefaultEnv().WriteFileAtomically(dir / "target", "secret"));
  fs::create_directory(dir / "real");
  fs::create_symlink(dir / "target", dir / "file-link");
  fs::create_directory_symlink(dir / "real", dir / "dir-link");
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> handle =
      DefaultEnv().OpenDirectory(dir);
  ASSERT_OK(handle.status());
  DirectoryHandle& opened = **handle;
  EXPECT_THAT(opened.ReadAt("file-link", 100),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is a link, which is not followed")));
  EXPECT_THAT(opened.WriteAt("file-link", "1"),
              StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(
      opened.OpenSubdirectory("dir-link"),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is a link")));
  EXPECT_THAT(DefaultEnv().OpenDirectory(dir / "dir-link"),
              StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(DefaultEnv().ReadFile(dir / "target").value_or(""), "secret");
}

TEST(PosixDirectoryHandleTest, AFileWithOtherLinksIsNotRead) {
  const fs::path dir = testing::MakeTempDir();
  ASSERT_OK(DefaultEnv().WriteFileAtomically(dir / "target", "secret"));
  fs::create_hard_link(dir / "target", dir / "hard");
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> handle =
      DefaultEnv().OpenDirectory(dir);
  ASSERT_OK(handle.status());
  EXPECT_THAT((*handle)->ReadAt("hard", 100),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("has other links")));
}

TEST(FakeDirectoryHandleTest, AnotherUsersDirectoryAndFileSayWhose) {
  testing::FakeEnv env;
  ASSERT_OK(env.CreatePrivateDirectories("/theirs"));
  ASSERT_OK(env.WriteFileAtomically("/theirs/record", "x"));
  env.SetOwner("/theirs", env.uid + 1);
  env.SetOwner("/theirs/record", env.uid + 2);
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> handle =
      env.OpenDirectory("/theirs");
  ASSERT_OK(handle.status());
  EXPECT_EQ((*handle)->Info()->owner, env.uid + 1);
  EXPECT_EQ((*handle)->ReadAt("record", 10)->info.owner, env.uid + 2);
  ASSERT_OK(env.Remove("/theirs/record").status());
  ASSERT_OK(env.WriteFileAtomically("/theirs/record", "y"));
  EXPECT_EQ((*handle)->ReadAt("record", 10)->info.owner, env.uid);
}

}  // namespace
}  // namespace hptune
