#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/launch/metrics.h"
#include "tests/launch/metrics/files.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune::launch::testing::AppendFile;
using ::hptune::launch::testing::WriteFile;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "step:value" for each measurement, e.g. "3:0.9".
std::vector<std::string> Describe(const std::vector<Measurement>& read) {
  std::vector<std::string> out;
  for (const Measurement& m : read) {
    out.push_back(absl::StrCat(m.step, ":", m.metrics.at("accuracy")));
  }
  return out;
}

std::vector<std::string> Read(StdoutMetricReader& reader) {
  auto read = reader.ReadNew();
  EXPECT_OK(read);
  return read.ok() ? Describe(read->measurements) : std::vector<std::string>{};
}

class StdoutMetricReaderTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = hptune::testing::MakeTempDir();
  std::filesystem::path path_ = dir_ / "master-0.log";
  StdoutMetricReader reader_{path_, "accuracy", hptune::DefaultEnv()};
};

TEST_F(StdoutMetricReaderTest, AbsentFileThenPresent) {
  EXPECT_THAT(Read(reader_), IsEmpty());
  AppendFile(path_, "starting\naccuracy=0.5 step=10\n");
  EXPECT_THAT(Read(reader_), ElementsAre("10:0.5"));
}

TEST_F(StdoutMetricReaderTest, TailsAppendedContentInPieces) {
  AppendFile(path_, "loading data\naccuracy=0.5 ste");
  EXPECT_THAT(Read(reader_), IsEmpty());
  AppendFile(path_, "p=10");
  EXPECT_THAT(Read(reader_), IsEmpty());
  AppendFile(path_, "\naccuracy=0.6 step=20\naccuracy=0.7");
  EXPECT_THAT(Read(reader_), ElementsAre("10:0.5", "20:0.6"));
  AppendFile(path_, " step=30\n");
  EXPECT_THAT(Read(reader_), ElementsAre("30:0.7"));
  EXPECT_THAT(Read(reader_), IsEmpty());
}

TEST_F(StdoutMetricReaderTest, LinesWithoutStepAreNumberedAcrossCalls) {
  AppendFile(path_, "accuracy=0.1\nloss=0.5\naccuracy=0.2\n");
  EXPECT_THAT(Read(reader_), ElementsAre("1:0.1", "2:0.2"));
  AppendFile(path_, "accuracy=0.3 epoch=7\naccuracy=0.4\n");
  // The epoch line is the third metric line; the next is the fourth.
  EXPECT_THAT(Read(reader_), ElementsAre("7:0.3", "4:0.4"));
}

TEST_F(StdoutMetricReaderTest, TimestampsAndCarriageReturns) {
  AppendFile(path_, "2026-11-21T10:00:00Z accuracy=0.9 step=1\r\n");
  auto read = reader_.ReadNew();
  ASSERT_OK(read);
  ASSERT_EQ(read->measurements.size(), 1u);
  EXPECT_EQ(ToUnixMicros(read->measurements[0].time), 1795255200LL * 1'000'000);
  EXPECT_EQ(read->measurements[0].metrics.at("accuracy"), 0.9);
}

TEST_F(StdoutMetricReaderTest, OverlongLinesAreSkipped) {
  // 64 KiB is the most a line may hold; one byte more and it is skipped,
  // metric or not.
  std::string fits = "accuracy=0.1 " + std::string(64 * 1024 - 13, 'x');
  std::string too_long = "accuracy=0.2 " + std::string(64 * 1024 - 12, 'x');
  AppendFile(path_, fits + "\n" + too_long + "\naccuracy=0.3\n");
  EXPECT_THAT(Read(reader_), ElementsAre("1:0.1", "2:0.3"));
}

TEST_F(StdoutMetricReaderTest, OverlongLineGrowingAcrossCallsIsSkipped) {
  AppendFile(path_, "accuracy=0.1\n");
  EXPECT_THAT(Read(reader_), ElementsAre("1:0.1"));
  // 1 MiB of progress output without a newline, read while it grows; its
  // tail looks like a metric line but is part of the skipped line.
  for (int i = 0; i < 16; ++i) {
    AppendFile(path_, std::string(64 * 1024, '.'));
    EXPECT_THAT(Read(reader_), IsEmpty());
  }
  AppendFile(path_, " accuracy=0.99");
  EXPECT_THAT(Read(reader_), IsEmpty());
  AppendFile(path_, "\naccuracy=0.2\n");
  EXPECT_THAT(Read(reader_), ElementsAre("2:0.2"));
}

TEST_F(StdoutMetricReaderTest, ManyLinesAcrossReadChunks) {
  // 3000 lines (about 70 KB): lines straddle the reader's 64 KiB chunks.
  std::string text;
  for (int i = 1; i <= 3000; ++i) {
    text += absl::StrCat("epoch=", i, " accuracy=0.5 note=padding\n");
  }
  AppendFile(path_, text);
  std::vector<std::string> read = Read(reader_);
  ASSERT_EQ(read.size(), 3000u);
  for (int i = 1; i <= 3000; ++i) {
    EXPECT_EQ(read[i - 1], absl::StrCat(i, ":0.5"));
  }
}

TEST_F(StdoutMetricReaderTest, TruncatedLogIsReadFromItsStart) {
  AppendFile(path_, "accuracy=0.1 step=1\naccuracy=0.2 step=2\n");
  EXPECT_THAT(Read(reader_), ElementsAre("1:0.1", "2:0.2"));
  WriteFile(path_, "accuracy=0.3 step=3\n");
  EXPECT_THAT(Read(reader_), ElementsAre("3:0.3"));
}

TEST_F(StdoutMetricReaderTest, ANonFiniteObjectiveIsReportedWithItsLine) {
  WriteFile(path_,
            "epoch=1 accuracy=0.5\nepoch=2 accuracy=nan loss=inf\n"
            "epoch=3 accuracy=-Infinity\nnan is a word here\n");
  auto read = reader_.ReadNew();
  ASSERT_OK(read);
  EXPECT_THAT(Describe(read->measurements), ElementsAre("1:0.5"));
  EXPECT_EQ(read->non_finite_objective, "epoch=2 accuracy=nan loss=inf");
  // Free text in a log is not an unreadable report.
  EXPECT_EQ(read->unreadable_lines, 0);
}

TEST_F(StdoutMetricReaderTest, DirectoryIsAnError) {
  std::filesystem::create_directory(path_);
  auto read = reader_.ReadNew();
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read, StatusIs(absl::StatusCode::kFailedPrecondition,
                             absl::StrCat("metrics file \"", path_.string(),
                                          "\" is not a regular file")));
}

}  // namespace
}  // namespace hptune::launch
