// The default token file: where it is, how it is created (private, random,
// one per user however many servers start at once), and how a token file is
// read.
#include "src/cli/token_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/env/env.h"
#include "hptune/env/env_wrapper.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

int ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(DefaultTokenFileTest, ConfigDirThenXdgThenHome) {
  EXPECT_EQ(*DefaultTokenFile(FakeEnv({{"HPTUNE_CONFIG_DIR", "/c"},
                                       {"XDG_CONFIG_HOME", "/x"},
                                       {"HOME", "/h"}})),
            "/c/token");
  EXPECT_EQ(
      *DefaultTokenFile(FakeEnv({{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/h"}})),
      "/x/hptune/token");
  EXPECT_EQ(*DefaultTokenFile(FakeEnv({{"HOME", "/h"}})),
            "/h/.config/hptune/token");
  EXPECT_THAT(
      DefaultTokenFile(FakeEnv({})),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("set HOME")));
}

TEST(LoadOrCreateTokenFileTest, CreatesAPrivateRandomTokenOnceAndKeepsIt) {
  const std::string dir = testing::MakeTempDir() + "/config/hptune";
  const std::string path = dir + "/token";
  std::ostringstream warnings;
  auto first = LoadOrCreateTokenFile(DefaultEnv(), path, warnings);
  ASSERT_OK(first);
  EXPECT_THAT(*first, MatchesRegex("[0-9a-f]{64}"));
  EXPECT_EQ(ModeOf(path), 0600);
  EXPECT_EQ(ModeOf(dir), 0700);
  EXPECT_EQ(ModeOf(std::filesystem::path(dir).parent_path()), 0700);
  auto again = LoadOrCreateTokenFile(DefaultEnv(), path, warnings);
  ASSERT_OK(again);
  EXPECT_EQ(*again, *first);
  EXPECT_EQ(warnings.str(), "");
  // Another user's file would hold another token: tokens are not constant.
  auto other = LoadOrCreateTokenFile(DefaultEnv(),
                                     testing::MakeTempDir() + "/t", warnings);
  ASSERT_OK(other);
  EXPECT_NE(*other, *first);
}

TEST(LoadOrCreateTokenFileTest, ServersStartingAtOnceAgreeOnOneToken) {
  const std::string path = testing::MakeTempDir() + "/token";
  std::vector<std::string> tokens(8);
  std::vector<std::thread> servers;
  for (std::string& token : tokens) {
    servers.emplace_back([&path, &token] {
      std::ostringstream warnings;
      auto got = LoadOrCreateTokenFile(DefaultEnv(), path, warnings);
      token = got.ok() ? *got : got.status().ToString();
    });
  }
  for (std::thread& t : servers) t.join();
  for (const std::string& token : tokens) EXPECT_EQ(token, tokens.front());
  // No temporary file is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(path).parent_path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(ReadTokenFileTest, TrimsWhitespaceAndRejectsEmptyHugeOrMissing) {
  const std::string dir = testing::MakeTempDir();
  std::ostringstream warnings;
  std::ofstream(dir + "/t") << "  secret\n";
  std::filesystem::permissions(
      dir + "/t",
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_EQ(*ReadTokenFile(DefaultEnv(), dir + "/t", warnings), "secret");
  std::ofstream(dir + "/empty") << "\n\n";
  EXPECT_THAT(ReadTokenFile(DefaultEnv(), dir + "/empty", warnings),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "token file \"" + dir + "/empty\": holds no token"));
  std::ofstream(dir + "/huge") << std::string(5000, 'a');
  EXPECT_THAT(ReadTokenFile(DefaultEnv(), dir + "/huge", warnings),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than 4096 bytes")));
  EXPECT_THAT(ReadTokenFile(DefaultEnv(), dir + "/none", warnings),
              StatusIs(absl::StatusCode::kNotFound,
                       "token file \"" + dir + "/none\": cannot be read"));
}

// A device or a pipe has no size to check first: it is read only as far
// as the limit, so an endless one is refused, not read forever.
TEST(ReadTokenFileTest, AnEndlessFileIsRefusedAtTheLimit) {
  // Reading a file whole is the bug this catches; it must not run the
  // machine out of memory when it is there, so it reads a bounded stand-in.
  class BoundedReads : public EnvWrapper {
   public:
    using EnvWrapper::EnvWrapper;
    absl::StatusOr<std::string> ReadFile(
        const std::filesystem::path& path) override {
      ADD_FAILURE() << path << " read whole";
      return std::string(5000, '\0');
    }
    absl::StatusOr<std::string> ReadFileHead(const std::filesystem::path& path,
                                             int64_t max_bytes) override {
      asked = max_bytes;
      return EnvWrapper::ReadFileHead(path, max_bytes);
    }
    int64_t asked = -1;
  };
  BoundedReads env(DefaultEnv());
  std::ostringstream warnings;
  EXPECT_THAT(ReadTokenFile(env, "/dev/zero", warnings),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than 4096 bytes")));
  EXPECT_EQ(env.asked, 4097);
}

TEST(ReadTokenFileTest, WarnsWhenOthersCanReadTheToken) {
  const std::string path = testing::MakeTempDir() + "/t";
  std::ofstream(path) << "secret\n";
  chmod(path.c_str(), 0644);
  std::ostringstream world;
  EXPECT_EQ(*ReadTokenFile(DefaultEnv(), path, world), "secret");
  EXPECT_EQ(world.str(), "hptune: warning: token file \"" + path +
                             "\" has mode 0644: every user of this machine "
                             "can read it and submit jobs as this server's "
                             "user (chmod 600 \"" +
                             path + "\")\n");
  chmod(path.c_str(), 0640);
  std::ostringstream group;
  EXPECT_EQ(*ReadTokenFile(DefaultEnv(), path, group), "secret");
  EXPECT_THAT(group.str(), HasSubstr("mode 0640: its group can read it"));
  chmod(path.c_str(), 0600);
  std::ostringstream none;
  EXPECT_EQ(*ReadTokenFile(DefaultEnv(), path, none), "secret");
  EXPECT_EQ(none.str(), "");
}

// A disk that fills up as the token file is created: the error names the
// file and the reason, no part of the file is left, and the next start,
// with room, creates it.
TEST(LoadOrCreateTokenFileTest, AFullDiskSaysSoAndLeavesNothing) {
  class FullDisk : public EnvWrapper {
   public:
    using EnvWrapper::EnvWrapper;
    absl::Status CreateFileAtomically(const std::filesystem::path& path,
                                      std::string_view, int) override {
      return absl::InternalError(absl::StrCat("cannot write ", path.string(),
                                              ": No space left on device"));
    }
  };
  testing::FakeEnv fake;
  FullDisk full(fake);
  std::ostringstream warnings;
  EXPECT_THAT(
      LoadOrCreateTokenFile(full, "/home/u/.config/hptune/token", warnings),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "token file \"/home/u/.config/hptune/token\": cannot "
               "write /home/u/.config/hptune/token: No space left on "
               "device"));
  EXPECT_THAT(fake.Files(), ::testing::IsEmpty());
  ASSERT_OK_AND_ASSIGN(
      std::string token,
      LoadOrCreateTokenFile(fake, "/home/u/.config/hptune/token", warnings));
  EXPECT_THAT(token, MatchesRegex("[0-9a-f]{64}"));
  ASSERT_OK_AND_ASSIGN(
      FileInfo info,
      fake.InfoOf("/home/u/.config/hptune/token", Links::kFollow));
  EXPECT_EQ(info.mode, 0600);
}

// A token file that is there is read, never written: a full disk, or a
// server started by mistake, cannot replace the token clients hold.
TEST(LoadOrCreateTokenFileTest, AnExistingFileIsKeptAsItIs) {
  testing::FakeEnv fake;
  ASSERT_OK(fake.CreatePrivateDirectories("/c"));
  ASSERT_OK(fake.WriteFileAtomically("/c/token", "old\n", 0600));
  class NoWrites : public EnvWrapper {
   public:
    using EnvWrapper::EnvWrapper;
    absl::Status CreateFileAtomically(const std::filesystem::path&,
                                      std::string_view, int) override {
      ADD_FAILURE() << "the token file was written";
      return absl::OkStatus();
    }
  };
  NoWrites env(fake);
  std::ostringstream warnings;
  EXPECT_THAT(LoadOrCreateTokenFile(env, "/c/token", warnings),
              ::hptune_testing::IsOkAndHolds(std::string("old")));
  EXPECT_EQ(*fake.ReadFile("/c/token"), "old\n");
}

}  // namespace
}  // namespace hptune::cli
