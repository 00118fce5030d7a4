// The cap on a replica's log (src/env/log_cap.h) on real files: a log past
// its cap keeps its head, a line at the cut and its latest output while a
// writer keeps appending to it with O_APPEND; on ext4 or xfs the middle is
// collapsed, on tmpfs punched, and Env::ReadFileChunk skips the hole.
#include "src/env/log_cap.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "hptune/env/env.h"
#include "tests/testing/run_process.h"

namespace hptune::internal {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kCap = int64_t{1} << 20;
constexpr int64_t kLineBytes = 64;

// Line i of the writer's output: kLineBytes bytes, so the byte at any offset
// of what it wrote is known.
std::string Line(int64_t i) {
  char buffer[kLineBytes + 1];
  std::snprintf(buffer, sizeof(buffer), "line %010lld %047d\n",
                static_cast<long long>(i), 0);
  return std::string(buffer, kLineBytes);
}

// The writer's output from byte `begin` to `end`.
std::string Written(int64_t begin, int64_t end) {
  std::string text;
  for (int64_t i = begin / kLineBytes; i * kLineBytes < end; ++i) {
    text += Line(i);
  }
  const int64_t first = begin / kLineBytes * kLineBytes;
  return text.substr(begin - first, end - begin);
}

std::string ReadAll(const fs::path& path) {
  auto file = DefaultEnv().OpenForReading(path);
  if (!file.ok()) return "";
  std::string text((*file)->size(), '\0');
  auto n = (*file)->ReadAt(0, text.data(), text.size());
  text.resize(n.ok() ? *n : 0);
  return text;
}

int64_t SizeOf(const fs::path& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 ? info.st_size : -1;
}

// A directory on a file system of `kinds`, from the test's temp dir and
// the working directory (ctest's: under the build directory); empty when
// none is.
std::optional<fs::path> DirOn(std::initializer_list<long> kinds,
                              std::initializer_list<const char*> bases) {
  for (const char* base : bases) {
    struct statfs info;
    if (base == nullptr || statfs(base, &info) != 0) continue;
    for (long kind : kinds) {
      if (static_cast<long>(info.f_type) != kind) continue;
      std::string pattern = std::string(base) + "/hptune_log_cap_XXXXXX";
      if (mkdtemp(pattern.data()) != nullptr) return fs::path(pattern);
    }
  }
  return std::nullopt;
}

// Appends Line(0), Line(1), ... with O_APPEND, as a replica writes its log,
// until stopped; `written` counts the bytes.
class Writer {
 public:
  explicit Writer(const fs::path& path)
      : fd_(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600)) {}
  ~Writer() { Stop(); }
  void Start() {
    thread_ = std::thread([this] {
      while (!stop_.load()) WriteLine();
    });
  }
  void WriteLine() {
    const std::string line = Line(lines_++);
    ASSERT_EQ(write(fd_, line.data(), line.size()), kLineBytes);
    written_.store(lines_ * kLineBytes);
  }
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int64_t written() const { return written_.load(); }

 private:
  int fd_;
  int64_t lines_ = 0;
  std::atomic<int64_t> written_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Waits, with a deadline, until `writer` has written `bytes`.
bool WaitForBytes(const Writer& writer, int64_t bytes) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (writer.written() < bytes) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(LogCapTest, TheCutKeepsAQuarterOfTheCapAndLeavesHalfOfIt) {
  EXPECT_EQ(LogHead(kCap, 4096), kCap / 4);
  EXPECT_EQ(PlanLogCut(kCap, kCap / 4, kCap, 4096), std::nullopt);
  const std::optional<LogCutRange> cut =
      PlanLogCut(3 * kCap + 100, kCap / 4, kCap, 4096);
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->offset, kCap / 4);
  EXPECT_EQ(cut->length % 4096, 0);
  const int64_t left = 3 * kCap + 100 - cut->length;
  EXPECT_GE(left, kCap / 4 + kCap / 2);
  EXPECT_LT(left, kCap / 4 + kCap / 2 + 4096);
}

TEST(LogCapTest, TheLineAtTheCutHasAFixedSizeAndItsCount) {
  const std::string line = LogCutLine(123456789, 67108864);
  EXPECT_EQ(static_cast<int64_t>(line.size()), kLogCutLineBytes);
  const std::string text =
      "\n[hptune: 123456789 bytes of this log removed here: "
      "--max-log-bytes 67108864]";
  EXPECT_EQ(line,
            text + std::string(kLogCutLineBytes - 1 - text.size(), ' ') + "\n");
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(ParseLogCutLine(line), 123456789);
  EXPECT_EQ(ParseLogCutLine(std::string(kLogCutLineBytes, 'x')), std::nullopt);
}

TEST(LogCapTest, ALogUnderItsCapIsLeftAlone) {
  const fs::path dir = testing::MakeTempDir();
  const fs::path log = dir / "master-0.log";
  Writer writer(log);
  for (int i = 0; i < 100; ++i) writer.WriteLine();
  absl::StatusOr<LogCut> cut = CapPosixLog(log, kCap);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(cut->length, 0);
  EXPECT_EQ(ReadAll(log), Written(0, 100 * kLineBytes));
}

TEST(LogCapTest, CollapsesTheMiddleWhileAWriterAppends) {
  const std::optional<fs::path> dir =
      DirOn({EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC},
            {getenv("TEST_TMPDIR"), ".", "/tmp", "/var/tmp"});
  if (!dir) GTEST_SKIP() << "no ext4 or xfs directory to collapse a file in";
  const fs::path log = *dir / "worker-1.log";
  Writer writer(log);
  writer.Start();
  ASSERT_TRUE(WaitForBytes(writer, 3 * kCap));
  const int64_t before = writer.written();
  absl::StatusOr<LogCut> cut = CapPosixLog(log, kCap);
  ASSERT_TRUE(cut.ok()) << cut.status();
  // Some more output after the cut, then the log as it ends.
  ASSERT_TRUE(WaitForBytes(writer, writer.written() + 10 * kLineBytes));
  writer.Stop();
  const int64_t total = writer.written();
  ASSERT_TRUE(cut->collapsed);
  ASSERT_GT(cut->length, 0);
  EXPECT_EQ(cut->offset, cut->head);
  EXPECT_EQ(cut->removed_in_all, kLogCutLineBytes + cut->length);
  const std::string text = ReadAll(log);
  ASSERT_EQ(static_cast<int64_t>(text.size()), total - cut->length);
  // Under the cap but for what was written while it was cut.
  EXPECT_LE(static_cast<int64_t>(text.size()), kCap + (total - before));
  const int64_t line_at = cut->head - kLogCutLineBytes;
  EXPECT_EQ(text.substr(0, line_at), Written(0, line_at));
  EXPECT_EQ(text.substr(line_at, kLogCutLineBytes),
            LogCutLine(cut->removed_in_all, kCap));
  // Every byte after the cut, the latest ones included, as written.
  EXPECT_EQ(text.substr(cut->head), Written(cut->head + cut->length, total));
}

TEST(LogCapTest, ASecondCutAddsToTheLineInPlace) {
  const std::optional<fs::path> dir =
      DirOn({EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC},
            {getenv("TEST_TMPDIR"), ".", "/tmp", "/var/tmp"});
  if (!dir) GTEST_SKIP() << "no ext4 or xfs directory to collapse a file in";
  const fs::path log = *dir / "ps-0.log";
  Writer writer(log);
  while (writer.written() < 2 * kCap) writer.WriteLine();
  absl::StatusOr<LogCut> first = CapPosixLog(log, kCap);
  ASSERT_TRUE(first.ok()) << first.status();
  while (SizeOf(log) <= 2 * kCap) writer.WriteLine();
  absl::StatusOr<LogCut> second = CapPosixLog(log, kCap);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_GT(second->length, 0);
  EXPECT_EQ(second->removed_in_all, first->removed_in_all + second->length);
  const std::string text = ReadAll(log);
  const int64_t line_at = second->head - kLogCutLineBytes;
  EXPECT_EQ(text.substr(0, line_at), Written(0, line_at));
  EXPECT_EQ(text.substr(line_at, kLogCutLineBytes),
            LogCutLine(second->removed_in_all, kCap));
  EXPECT_EQ(text.substr(second->head),
            Written(second->head + second->removed_in_all - kLogCutLineBytes,
                    writer.written()));
}

TEST(LogCapTest, PunchesAHoleWhereNothingCollapsesAndReadersSkipIt) {
  const std::optional<fs::path> dir =
      DirOn({TMPFS_MAGIC}, {"/dev/shm", getenv("TEST_TMPDIR"), "/tmp"});
  if (!dir) GTEST_SKIP() << "no tmpfs directory, where collapse fails";
  const fs::path log = *dir / "evaluator-0.log";
  Writer writer(log);
  writer.Start();
  ASSERT_TRUE(WaitForBytes(writer, 3 * kCap));
  absl::StatusOr<LogCut> cut = CapPosixLog(log, kCap);
  ASSERT_TRUE(cut.ok()) << cut.status();
  writer.Stop();
  const int64_t total = writer.written();
  ASSERT_FALSE(cut->collapsed);
  EXPECT_EQ(SizeOf(log), total);  // A hole: the size stays.
  struct stat info;
  ASSERT_EQ(stat(log.c_str(), &info), 0);
  EXPECT_LE(info.st_blocks * 512, total - cut->length + 4096);
  // A reader from the head's end gets the line, then what follows the hole.
  const int64_t line_at = cut->head - kLogCutLineBytes;
  absl::StatusOr<FileChunk> line =
      DefaultEnv().ReadFileChunk(log, line_at, kLogCutLineBytes);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->data, LogCutLine(cut->removed_in_all, kCap));
  absl::StatusOr<FileChunk> after =
      DefaultEnv().ReadFileChunk(log, cut->head, 4096);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->offset, cut->offset + cut->length);
  EXPECT_EQ(after->data, Written(after->offset, after->offset + 4096));
  // A second cut widens the hole; the line counts it all.
  Writer more(log);
  while (SizeOf(log) < total + 2 * kCap) more.WriteLine();
  absl::StatusOr<LogCut> second = CapPosixLog(log, kCap);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->offset, cut->offset + cut->length);
  EXPECT_EQ(second->removed_in_all, cut->removed_in_all + second->length);
}

TEST(LogCapTest, ACapUnderSixteenBlocksIsRefused) {
  const fs::path dir = testing::MakeTempDir();
  const fs::path log = dir / "master-0.log";
  Writer writer(log);
  writer.WriteLine();
  EXPECT_EQ(CapPosixLog(log, 4096).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace hptune::internal
