#include <unistd.h>

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/clock.h"
#include "hptune/launch/metrics.h"
#include "tests/launch/metrics/files.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune::launch::testing::WriteFile;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double kStart = 1700000000.0;  // Timestamps of the reports.

// One report as cloudml-hypertune writes it: json.dumps(sort_keys=True).
std::string Report(double timestamp, int64_t step, double accuracy) {
  return absl::StrCat("{\"accuracy\": \"", accuracy,
                      "\", \"checkpoint_path\": \"\", \"global_step\": \"",
                      step, "\", \"timestamp\": ", std::to_string(timestamp),
                      ", \"trial\": \"3\"}\n");
}

std::string Lines(const std::vector<std::string>& lines) {
  return absl::StrJoin(lines, "");
}

std::vector<int64_t> Steps(const std::vector<Measurement>& measurements) {
  std::vector<int64_t> steps;
  for (const Measurement& m : measurements) steps.push_back(m.step);
  return steps;
}

std::vector<Measurement> Read(HypertuneFileReader& reader) {
  auto read = reader.ReadNew();
  EXPECT_OK(read);
  return read.ok() ? read->measurements : std::vector<Measurement>{};
}

class HypertuneFileReaderTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = hptune::testing::MakeTempDir();
  std::filesystem::path path_ = dir_ / "output.metrics";
};

TEST_F(HypertuneFileReaderTest, ReportBecomesAMeasurement) {
  WriteFile(path_,
            "{\"accuracy\": \"0.987\", \"checkpoint_path\": \"\", "
            "\"global_step\": \"1000\", \"loss\": \"0.25\", "
            "\"timestamp\": 1525851440.123456, \"trial\": \"3\"}\n");
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  std::vector<Measurement> read = Read(reader);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].step, 1000);
  EXPECT_EQ(ToUnixMicros(read[0].time), 1525851440123456);
  EXPECT_EQ(read[0].metrics, (std::map<std::string, double>{{"accuracy", 0.987},
                                                            {"loss", 0.25}}));
}

TEST_F(HypertuneFileReaderTest, MissingFileIsNothingYetThenReportsCome) {
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  EXPECT_THAT(Read(reader), IsEmpty());
  WriteFile(path_, Report(kStart, 10, 0.5));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10));
}

TEST_F(HypertuneFileReaderTest, TornLastLineWaitsUntilComplete) {
  std::string second = Report(kStart + 2, 20, 0.6);
  WriteFile(path_, Report(kStart + 1, 10, 0.5) + second.substr(0, 30));
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10));
  // The complete line, but still without its newline: not yet.
  WriteFile(path_,
            Report(kStart + 1, 10, 0.5) + second.substr(0, second.size() - 1));
  EXPECT_THAT(Read(reader), IsEmpty());
  WriteFile(path_, Report(kStart + 1, 10, 0.5) + second);
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(20));
}

TEST_F(HypertuneFileReaderTest, RewrittenFileYieldsOnlyNewLines) {
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  WriteFile(path_,
            Lines({Report(kStart + 1, 10, 0.5), Report(kStart + 2, 20, 0.6)}));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10, 20));
  WriteFile(path_,
            Lines({Report(kStart + 1, 10, 0.5), Report(kStart + 2, 20, 0.6),
                   Report(kStart + 3, 30, 0.7), Report(kStart + 4, 40, 0.8)}));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(30, 40));
  EXPECT_THAT(Read(reader), IsEmpty());
}

TEST_F(HypertuneFileReaderTest, LinesDroppedFromTheLast100AreNotReportedAgain) {
  // cloudml-hypertune: a deque of the last 100 reports, the whole file
  // rewritten on each. 250 reports, read after every 7th.
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  std::deque<std::string> kept;
  std::vector<int64_t> read_steps;
  for (int i = 1; i <= 250; ++i) {
    kept.push_back(Report(kStart + i, i, i / 1000.0));
    if (kept.size() > 100) kept.pop_front();
    WriteFile(path_, Lines(std::vector<std::string>(kept.begin(), kept.end())));
    if (i % 7 == 0 || i == 250) {
      for (int64_t step : Steps(Read(reader))) read_steps.push_back(step);
    }
  }
  std::vector<int64_t> expected;
  for (int i = 1; i <= 250; ++i) expected.push_back(i);
  EXPECT_EQ(read_steps, expected);
}

TEST_F(HypertuneFileReaderTest, RestartedTrainerLinesAreNew) {
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  WriteFile(path_, Lines({Report(kStart + 1, 100, 0.5),
                          Report(kStart + 2, 200, 0.6)}));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(100, 200));
  // The restarted program starts an empty file and reports step 100 again,
  // at a later time.
  WriteFile(path_, Report(kStart + 50, 100, 0.55));
  std::vector<Measurement> read = Read(reader);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].step, 100);
  EXPECT_EQ(read[0].metrics.at("accuracy"), 0.55);
}

TEST_F(HypertuneFileReaderTest, LinesThatAreNotReportsAreSkipped) {
  WriteFile(path_, Lines({"not json at all\n", "{\"accuracy\": \"0.9\"\n",
                          "[1, 2, 3]\n",
                          "{\"accuracy\": \"0.9\", \"timestamp\": \"soon\"}\n",
                          "{\"accuracy\": \"0.9\", \"timestamp\": -1}\n",
                          "{\"accuracy\": \"0.9\", \"global_step\": \"-5\", "
                          "\"timestamp\": 1700000000}\n",
                          "{\"accuracy\": \"0.9\", \"global_step\": \"ten\", "
                          "\"timestamp\": 1700000000}\n",
                          "{\"accuracy\": \"0.9\", \"global_step\": \"2.5\", "
                          "\"timestamp\": 1700000000}\n",
                          "\n", Report(kStart + 1, 10, 0.5)}));
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10));
}

TEST_F(HypertuneFileReaderTest, AReportWithoutTimestampTakesTheTimeItWasRead) {
  const std::string untimed =
      "{\"accuracy\": \"0.29\", \"global_step\": \"1\"}";
  WriteFile(path_, untimed + "\n");
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  const Timestamp before = SystemClock().Now();
  auto first = reader.ReadNew();
  ASSERT_OK(first);
  ASSERT_THAT(first->measurements, ::testing::SizeIs(1));
  EXPECT_EQ(first->measurements[0].step, 1);
  EXPECT_EQ(first->measurements[0].metrics.at("accuracy"), 0.29);
  EXPECT_GE(first->measurements[0].time, before);
  EXPECT_EQ(first->first_untimed_report, untimed);
  EXPECT_EQ(first->unreadable_lines, 0);

  // Rewritten whole with one more line: only that one is new.
  const std::string next = "{\"accuracy\": \"0.31\", \"global_step\": \"2\"}";
  WriteFile(path_, untimed + "\n" + next + "\n");
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(2));
  EXPECT_THAT(Read(reader), IsEmpty());
}

TEST_F(HypertuneFileReaderTest, ABrokenLineIsReturnedOnceItIsWhole) {
  std::string middle = Report(kStart + 2, 20, 0.6);
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  WriteFile(path_,
            Lines({Report(kStart + 1, 10, 0.5), middle.substr(0, 20) + "\n",
                   Report(kStart + 3, 30, 0.7)}));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10, 30));
  WriteFile(path_, Lines({Report(kStart + 1, 10, 0.5), middle,
                          Report(kStart + 3, 30, 0.7)}));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(20));
}

TEST_F(HypertuneFileReaderTest, NonFiniteAndUnparsableValuesAreLeftOut) {
  WriteFile(path_,
            Lines({"{\"accuracy\": \"nan\", \"global_step\": \"1\", \"loss\": "
                   "\"0.5\", \"note\": \"fast\", \"timestamp\": 1700000001}\n",
                   "{\"accuracy\": \"inf\", \"global_step\": \"2\", "
                   "\"timestamp\": 1700000002}\n",
                   "{\"accuracy\": \"-Infinity\", \"global_step\": \"3\", "
                   "\"loss\": \"1e999\", \"timestamp\": 1700000003}\n",
                   "{\"accuracy\": 0.75, \"global_step\": 4, "
                   "\"timestamp\": 1700000004}\n"}));
  // accuracy is not the objective here: its non-finite values are dropped.
  HypertuneFileReader reader(path_, "loss", hptune::DefaultEnv());
  std::vector<Measurement> read = Read(reader);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].step, 1);
  EXPECT_EQ(read[0].metrics, (std::map<std::string, double>{{"loss", 0.5}}));
  // JSON numbers are taken too, though cloudml-hypertune writes strings.
  EXPECT_EQ(read[1].step, 4);
  EXPECT_EQ(read[1].metrics,
            (std::map<std::string, double>{{"accuracy", 0.75}}));
}

TEST_F(HypertuneFileReaderTest, MissingGlobalStepIsStepZero) {
  WriteFile(path_, Lines({"{\"accuracy\": \"0.5\", \"timestamp\": "
                          "1700000001.5, \"trial\": \"1\"}\n",
                          "{\"accuracy\": \"0.6\", \"global_step\": \"0\", "
                          "\"timestamp\": 1700000002.5}\n"}));
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  std::vector<Measurement> read = Read(reader);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].step, 0);
  EXPECT_EQ(ToUnixMicros(read[0].time), 1700000001500000);
  EXPECT_EQ(read[1].step, 0);
}

TEST_F(HypertuneFileReaderTest, FileTruncatedAndBeingRewrittenInPlace) {
  std::string first = Report(kStart + 1, 10, 0.5);
  std::string second = Report(kStart + 2, 20, 0.6);
  std::string third = Report(kStart + 3, 30, 0.7);
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  WriteFile(path_, first + second);
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10, 20));
  // Caught between open(path, 'w') and the end of the rewrite.
  WriteFile(path_, "");
  EXPECT_THAT(Read(reader), IsEmpty());
  WriteFile(path_, first + second.substr(0, 10));
  EXPECT_THAT(Read(reader), IsEmpty());
  WriteFile(path_, first + second + third);
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(30));
}

TEST_F(HypertuneFileReaderTest, FileReplacedByRename) {
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  WriteFile(path_, Report(kStart + 1, 10, 0.5));
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(10));
  std::filesystem::path temp = dir_ / "output.metrics.tmp";
  WriteFile(temp, Report(kStart + 1, 10, 0.5) + Report(kStart + 2, 20, 0.6));
  std::filesystem::rename(temp, path_);
  EXPECT_THAT(Steps(Read(reader)), ElementsAre(20));
}

TEST_F(HypertuneFileReaderTest, ANonFiniteObjectiveIsReportedWithItsLine) {
  const std::string diverged =
      "{\"accuracy\": \"nan\", \"global_step\": \"2\", \"timestamp\": "
      "1700000002}";
  WriteFile(path_, Lines({Report(kStart + 1, 1, 0.5), diverged + "\n",
                          "{\"accuracy\": \"1e400\", \"global_step\": \"3\", "
                          "\"timestamp\": 1700000003}\n"}));
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  auto read = reader.ReadNew();
  ASSERT_OK(read);
  EXPECT_THAT(Steps(read->measurements), ElementsAre(1));
  // The first such line, whole: what the trial's end reason shows.
  EXPECT_EQ(read->non_finite_objective, diverged);
  EXPECT_EQ(read->unreadable_lines, 0);
}

TEST_F(HypertuneFileReaderTest, LinesThatAreNoReportAreCountedOnce) {
  WriteFile(path_, Lines({"not json\n", "\n", Report(kStart + 1, 1, 0.5)}));
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  auto first = reader.ReadNew();
  ASSERT_OK(first);
  EXPECT_EQ(first->unreadable_lines, 1);
  EXPECT_EQ(first->last_unreadable_line, "not json");
  // Rewritten in place with one more line of each kind: only those count.
  WriteFile(path_, Lines({"not json\n", "\n", Report(kStart + 1, 1, 0.5),
                          "{\"accuracy\": \"0.6\", \"timestamp\": -1}\n",
                          Report(kStart + 2, 2, 0.6)}));
  auto second = reader.ReadNew();
  ASSERT_OK(second);
  EXPECT_THAT(Steps(second->measurements), ElementsAre(2));
  EXPECT_EQ(second->unreadable_lines, 1);
  EXPECT_EQ(second->last_unreadable_line,
            "{\"accuracy\": \"0.6\", \"timestamp\": -1}");
}

TEST_F(HypertuneFileReaderTest, EveryLineOfAHugeAppendedFileIsReadOnce) {
  // A trainer that appends instead of keeping 100 lines: 60,000 reports
  // (over 4 MiB), then 10,000 more and a line over 64 KiB. Every report is
  // returned once; the long line is counted, not held.
  std::string text;
  for (int i = 1; i <= 60000; ++i) text += Report(kStart + i, i, 0.5);
  ASSERT_GT(text.size(), 4u << 20);
  WriteFile(path_, text);
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  std::vector<int64_t> steps = Steps(Read(reader));
  ASSERT_EQ(steps.size(), 60000u);
  text += std::string(100 << 10, 'x') + "\n";
  for (int i = 60001; i <= 70000; ++i) text += Report(kStart + i, i, 0.5);
  WriteFile(path_, text);
  auto more = reader.ReadNew();
  ASSERT_OK(more);
  for (const Measurement& m : more->measurements) steps.push_back(m.step);
  std::vector<int64_t> expected;
  for (int i = 1; i <= 70000; ++i) expected.push_back(i);
  EXPECT_EQ(steps, expected);
  EXPECT_EQ(more->unreadable_lines, 1);
  EXPECT_EQ(more->last_unreadable_line, "(a line longer than 64 KiB)");
}

TEST_F(HypertuneFileReaderTest, DirectoryIsAnError) {
  std::filesystem::create_directory(path_);
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  auto read = reader.ReadNew();
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read, StatusIs(absl::StatusCode::kFailedPrecondition,
                             absl::StrCat("metrics file \"", path_.string(),
                                          "\" is not a regular file")));
}

TEST_F(HypertuneFileReaderTest, PathThatCannotBeOpenedIsAnError) {
  WriteFile(dir_ / "plain", "");
  HypertuneFileReader reader(dir_ / "plain" / "output.metrics", "accuracy",
                             hptune::DefaultEnv());
  auto read = reader.ReadNew();
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(
      read, StatusIs(absl::StatusCode::kFailedPrecondition,
                     absl::StrCat("cannot open metrics file \"", dir_.string(),
                                  "/plain/output.metrics\": Not a directory")));
}

TEST_F(HypertuneFileReaderTest, UnreadableFileIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files without permission";
  WriteFile(path_, Report(kStart + 1, 10, 0.5));
  std::filesystem::permissions(path_, std::filesystem::perms::none);
  HypertuneFileReader reader(path_, "accuracy", hptune::DefaultEnv());
  auto read = reader.ReadNew();
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(
      read, StatusIs(absl::StatusCode::kPermissionDenied,
                     absl::StrCat("cannot open metrics file \"", path_.string(),
                                  "\": Permission denied")));
}

}  // namespace
}  // namespace hptune::launch
