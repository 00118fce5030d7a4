// OpenRegularFile on real files: what a trainer's user may plant in a
// trial's directory in place of a log, metric file or cgroup record (a
// FIFO, a link, a directory, a hard link) is refused, and the open never
// waits, for reading or for appending.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "hptune/env/env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

constexpr int kAppend = O_WRONLY | O_CREAT | O_APPEND;

// OpenRegularFile(path, flags) on another thread. When it has not returned
// by the deadline it is blocked in open(2) on the FIFO: a writer is opened
// to let it go, and the test fails.
absl::StatusOr<int> OpenWithDeadline(const fs::path& path, int flags) {
  auto opened = std::async(std::launch::async, [&] {
    return OpenRegularFile(path, flags, "record");
  });
  if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "opening " << path << " blocked";
    const int unblock = open(path.c_str(), O_RDWR | O_NONBLOCK);
    absl::StatusOr<int> fd = opened.get();
    if (fd.ok()) close(*fd);
    if (unblock >= 0) close(unblock);
    return absl::DeadlineExceededError("blocked");
  }
  return opened.get();
}

class OpenRegularFileTest : public ::testing::Test {
 protected:
  const fs::path dir_ = testing::MakeTempDir();
};

TEST_F(OpenRegularFileTest, AFifoIsRefusedWithoutBlocking) {
  const fs::path fifo = dir_ / "replicas.cgroup";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(OpenWithDeadline(fifo, O_RDONLY),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("record \"" + fifo.string() +
                                 "\" is not a regular file")));
  EXPECT_THAT(OpenWithDeadline(fifo, kAppend),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is not a regular file")));
}

TEST_F(OpenRegularFileTest, ALinkIsNotFollowed) {
  const fs::path target = dir_ / "secret";
  std::ofstream(target) << "root's";
  const fs::path link = dir_ / "master-0.log";
  fs::create_symlink(target, link);
  EXPECT_THAT(OpenWithDeadline(link, O_RDONLY),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is a link, which is not followed")));
  EXPECT_THAT(OpenWithDeadline(link, kAppend),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is a link, which is not followed")));
}

TEST_F(OpenRegularFileTest, ADirectoryOrAHardLinkIsRefused) {
  const fs::path directory = dir_ / "metrics";
  fs::create_directory(directory);
  EXPECT_THAT(OpenWithDeadline(directory, O_RDONLY),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is not a regular file")));
  const fs::path file = dir_ / "file";
  std::ofstream(file) << "x";
  fs::create_hard_link(file, dir_ / "other");
  EXPECT_THAT(OpenWithDeadline(file, O_RDONLY),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("has other links")));
}

TEST_F(OpenRegularFileTest, ALogIsMadeAndItsDescriptorBlocks) {
  const fs::path log = dir_ / "master-0.log";
  absl::StatusOr<int> fd = OpenWithDeadline(log, kAppend);
  ASSERT_OK(fd);
  // It becomes a replica's stdout: non-blocking there would surprise it.
  EXPECT_EQ(fcntl(*fd, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(fcntl(*fd, F_GETFD) & FD_CLOEXEC, 0);
  EXPECT_EQ(write(*fd, "ok\n", 3), 3);
  close(*fd);
  struct stat info;
  ASSERT_EQ(stat(log.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_THAT(OpenWithDeadline(dir_ / "missing", O_RDONLY),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing")));
}

}  // namespace
}  // namespace hptune
