// Env's files, the same checks on the real one (DefaultEnv in a temporary
// directory) and on FakeEnv's in-memory file system, so tests that run the
// job runner on FakeEnv see the files behave as on a disk.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

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
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class EnvFilesTest : public testing::RealAndFakeEnvTest {
 protected:
  void SetUp() override {
    RealAndFakeEnvTest::SetUp();
    ASSERT_OK(env().CreatePrivateDirectories(dir_ / "sub"));
  }
  std::string Read(const std::filesystem::path& path) {
    absl::StatusOr<std::string> text = env().ReadFile(path);
    return text.ok() ? *text : "(" + std::string(text.status().message()) + ")";
  }
};

TEST_P(EnvFilesTest, AWriteReplacesTheWholeFile) {
  for (Durability d : {Durability::kSynced, Durability::kUnsynced}) {
    ASSERT_OK(env().WriteFileAtomically(dir_ / "f", "first, longer", 0600, d));
    ASSERT_OK(env().WriteFileAtomically(dir_ / "f", "second", 0600, d));
    EXPECT_EQ(Read(dir_ / "f"), "second");
  }
  EXPECT_THAT(env().WriteFileAtomically(dir_ / "none" / "f", "x"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

TEST_P(EnvFilesTest, ChunksAreReadByOffsetWithTheWholeSize) {
  ASSERT_OK(env().WriteFileAtomically(dir_ / "log", "0123456789"));
  absl::StatusOr<FileChunk> chunk = env().ReadFileChunk(dir_ / "log", 3, 4);
  ASSERT_OK(chunk);
  EXPECT_EQ(chunk->data, "3456");
  EXPECT_EQ(chunk->size, 10);
  chunk = env().ReadFileChunk(dir_ / "log", 8, 100);
  ASSERT_OK(chunk);
  EXPECT_EQ(chunk->data, "89");
  chunk = env().ReadFileChunk(dir_ / "log", 50, 100);
  ASSERT_OK(chunk);
  EXPECT_EQ(chunk->data, "");
  EXPECT_THAT(env().ReadFileChunk(dir_ / "absent", 0, 10),
              StatusHasCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(env().OpenForReading(dir_ / "sub", "log"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is not a regular file")));
}

TEST_P(EnvFilesTest, AnOpenFileKeepsWhatItOpened) {
  ASSERT_OK(env().WriteFileAtomically(dir_ / "m", "old"));
  auto file = env().OpenForReading(dir_ / "m");
  ASSERT_OK(file);
  ASSERT_OK(env().WriteFileAtomically(dir_ / "m", "replaced"));
  std::string buffer(8, '\0');
  auto n = (*file)->ReadAt(0, buffer.data(), buffer.size());
  ASSERT_OK(n);
  EXPECT_EQ(buffer.substr(0, *n), "old");
  EXPECT_EQ((*file)->size(), 3u);
}

TEST_P(EnvFilesTest, RenameRemoveAndListSeeTheSameTree) {
  ASSERT_OK(env().WriteFileAtomically(dir_ / "b.log", "bb"));
  ASSERT_OK(env().WriteFileAtomically(dir_ / "a.metrics", "a"));
  ASSERT_OK(env().Rename(dir_ / "b.log", dir_ / "b.log.1"));
  EXPECT_FALSE(env().Exists(dir_ / "b.log"));
  EXPECT_EQ(Read(dir_ / "b.log.1"), "bb");
  auto entries = env().ListDirectory(dir_);
  ASSERT_OK(entries);
  std::vector<std::string> seen;
  for (const DirectoryEntry& e : *entries) {
    seen.push_back(e.name + (e.type == FileType::kDirectory ? "/" : "") + ":" +
                   std::to_string(e.type == FileType::kRegular ? e.size : 0));
  }
  EXPECT_THAT(seen, ElementsAre("a.metrics:1", "b.log.1:2", "sub/:0"));
  EXPECT_THAT(env().TypeOf(dir_ / "sub"), IsOkAndHolds(FileType::kDirectory));
  EXPECT_THAT(env().Remove(dir_ / "a.metrics"), IsOkAndHolds(true));
  EXPECT_THAT(env().Remove(dir_ / "a.metrics"), IsOkAndHolds(false));
  EXPECT_FALSE(env().Remove(dir_).ok());  // Not empty.
  EXPECT_THAT(env().TypeOf(dir_ / "a.metrics"),
              StatusHasCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(env().ListDirectory(dir_ / "absent"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

TEST_P(EnvFilesTest, PermissionsChangeWhatIsThereAndTheUserIsOurs) {
  ASSERT_OK(env().WriteFileAtomically(dir_ / "f", "x", 0600));
  ASSERT_OK(env().SetPermissions(dir_ / "f", 0640));
  ASSERT_OK(env().SetPermissions(dir_ / "sub", 0711));
  if (!GetParam()) {  // FakeEnv keeps no modes.
    using std::filesystem::perms;
    EXPECT_EQ(std::filesystem::status(dir_ / "f").permissions(),
              perms::owner_read | perms::owner_write | perms::group_read);
    EXPECT_EQ(std::filesystem::status(dir_ / "sub").permissions(),
              perms::owner_all | perms::group_exec | perms::others_exec);
  }
  EXPECT_THAT(env().SetPermissions(dir_ / "absent", 0600),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent")));
  EXPECT_EQ(env().EffectiveUserId(), ::geteuid());
}

INSTANTIATE_TEST_SUITE_P(RealAndFake, EnvFilesTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "FakeEnv" : "DefaultEnv";
                         });

// What FakeEnv does not model: links. A trainer may name its log or metric
// file as a link, or a hard link, to a file only the server may read.
TEST(DefaultEnvFilesTest, LinksAreNeitherFollowedNorRead) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/secret") << "TOPSECRET";
  std::filesystem::create_symlink(dir + "/secret", dir + "/soft.log");
  std::filesystem::create_hard_link(dir + "/secret", dir + "/hard.log");
  EXPECT_THAT(DefaultEnv().ReadFileChunk(dir + "/soft.log", 0, 100, "log"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "log \"" + dir +
                           "/soft.log\" is a link, which is not followed"));
  EXPECT_THAT(DefaultEnv().ReadFileChunk(dir + "/hard.log", 0, 100, "log"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "log \"" + dir + "/hard.log\" has other links"));
  EXPECT_THAT(DefaultEnv().TypeOf(dir + "/soft.log"),
              IsOkAndHolds(FileType::kLink));
}

TEST(EnvWorkingDirectoryTest, RelativePathsAreTakenFromIt) {
  testing::FakeEnv fake;
  fake.working_directory = "/home/u";
  EXPECT_THAT(fake.Absolute("runs/a"),
              IsOkAndHolds(std::filesystem::path("/home/u/runs/a")));
  EXPECT_THAT(fake.Absolute("/srv/b"),
              IsOkAndHolds(std::filesystem::path("/srv/b")));
  EXPECT_THAT(DefaultEnv().Absolute("c"),
              IsOkAndHolds(std::filesystem::current_path() / "c"));
}

}  // namespace
}  // namespace hptune
