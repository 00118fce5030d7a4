// Env's appended files and its I/O on descriptors hptune made itself
// (sockets, pipes, an eventfd), on the real machine and on FakeEnv: the
// appended file lives in FakeEnv's memory, while its descriptors are the
// machine's (fake_env.h), so both run the same checks on real pipes.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/env.h"
#include "src/env/scoped_fd.h"
#include "tests/testing/real_and_fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class EnvDescriptorsTest : public testing::RealAndFakeEnvTest {
 protected:
  void SetUp() override {
    RealAndFakeEnvTest::SetUp();
    ASSERT_OK(env().CreatePrivateDirectories(dir_));
  }
};

// A pipe whose ends are closed with the test.
struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    read_end.Reset(fds[0]);
    write_end.Reset(fds[1]);
  }
  ScopedFd read_end;
  ScopedFd write_end;
};

TEST_P(EnvDescriptorsTest, AppendsGoAfterWhatIsThereAndCreateTheFile) {
  const std::filesystem::path log = dir_ / "serve.log";
  absl::StatusOr<std::unique_ptr<AppendFile>> first =
      env().OpenForAppending(log, 0600);
  ASSERT_OK(first);
  ASSERT_OK((*first)->Append("one\n"));
  absl::StatusOr<std::unique_ptr<AppendFile>> second =
      env().OpenForAppending(log, 0600);
  ASSERT_OK(second);
  // Two writers of one file: each line lands whole after the last.
  ASSERT_OK((*second)->Append("two\n"));
  ASSERT_OK((*first)->Append("three\n"));
  EXPECT_THAT(env().ReadFile(log), IsOkAndHolds("one\ntwo\nthree\n"));
  absl::StatusOr<FileInfo> info = env().InfoOf(log, Links::kNotFollowed);
  ASSERT_OK(info);
  EXPECT_EQ(info->mode, 0600);
}

TEST_P(EnvDescriptorsTest, AFileThatCannotBeOpenedIsNamed) {
  EXPECT_THAT(env().OpenForAppending(dir_ / "none" / "serve.log", 0600),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("cannot open \"" +
                                 (dir_ / "none" / "serve.log").string() +
                                 "\": No such file")));
  EXPECT_THAT(env().OpenForAppending(dir_, 0600).status().message(),
              HasSubstr("cannot open \"" + dir_.string() + "\""));
}

TEST_P(EnvDescriptorsTest, APollSaysWhichAreReadableOrThatTheTimePassed) {
  Pipe quiet;
  Pipe written;
  const int fds[] = {quiet.read_end.get(), written.read_end.get()};
  EXPECT_THAT(env().PollReadable(fds, std::chrono::milliseconds(1)),
              IsOkAndHolds(IsEmpty()));
  ASSERT_OK(env().Write(written.write_end.get(), "line\n"));
  EXPECT_THAT(env().PollReadable(fds, std::nullopt),
              IsOkAndHolds(ElementsAre(written.read_end.get())));
  // Its other end closed: readable too, and a read says it ended.
  quiet.write_end.Reset();
  EXPECT_THAT(
      env().PollReadable(fds, std::nullopt),
      IsOkAndHolds(ElementsAre(quiet.read_end.get(), written.read_end.get())));
  char buffer[64];
  EXPECT_THAT(env().ReadSome(quiet.read_end.get(), buffer),
              IsOkAndHolds(size_t{0}));
  EXPECT_THAT(env().ReadSome(written.read_end.get(), buffer),
              IsOkAndHolds(size_t{5}));
  EXPECT_EQ(std::string(buffer, 5), "line\n");
}

TEST_P(EnvDescriptorsTest, ABadDescriptorIsAnError) {
  char buffer[8];
  EXPECT_THAT(
      env().ReadSome(-1, buffer),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("read")));
  EXPECT_THAT(
      env().Write(-1, "x"),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("write")));
}

INSTANTIATE_TEST_SUITE_P(RealAndFake, EnvDescriptorsTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "FakeEnv" : "DefaultEnv";
                         });

// What FakeEnv does not model: links. A log file named as a link is not
// written through.
TEST(DefaultEnvDescriptorsTest, AnAppendedFileIsNotALink) {
  const std::filesystem::path dir = testing::MakeTempDir();
  std::filesystem::create_symlink(dir / "target", dir / "serve.log");
  EXPECT_THAT(
      DefaultEnv().OpenForAppending(dir / "serve.log", 0600).status().message(),
      HasSubstr("Too many levels of symbolic links"));
  EXPECT_FALSE(DefaultEnv().Exists(dir / "target"));
}

}  // namespace
}  // namespace hptune
