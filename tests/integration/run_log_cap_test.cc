// `hptune run --max-log-bytes` (and serve's), the binary, with a trainer that
// writes 50 MB of log at once: while it runs, its log is cut back near the cap,
// keeping its first and last lines and a line saying what was removed, and its
// stdout metrics on both sides of the cut are read once each.
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using testing::RunProcess;
using ::testing::StartsWith;

constexpr char kHptune[] = HPTUNE_BINARY;
constexpr int64_t kCap = 4194304;

// Reports loss 0.9, writes 50 MB as fast as Python can, then waits (up to
// 60 s) until its log, its own stdout, holds less than 8 MB on disk: the
// runner cut it while it ran. Then reports loss 0.25 and ends.
constexpr char kLoudTrainer[] = R"(import os, sys, time
print("first line of the log", flush=True)
print("loss=0.9 step=1", flush=True)
block = ("x" * 99 + "\n") * 10000
for i in range(50):
    sys.stdout.write("chunk %d\n" % i)
    sys.stdout.write(block)
sys.stdout.flush()
deadline = time.time() + 60
while os.fstat(1).st_blocks * 512 >= 8000000 and time.time() < deadline:
    time.sleep(0.05)
print("on disk after the wait: %d" % (os.fstat(1).st_blocks * 512), flush=True)
print("loss=0.25 step=2", flush=True)
print("last line of the log", flush=True)
)";

// dir/config.yaml, of one trial of dir/train.py (kLoudTrainer).
std::string WriteJob(const std::string& dir) {
  std::ofstream(dir + "/train.py") << kLoudTrainer;
  std::ofstream(dir + "/config.yaml")
      << "trainingInput:\n"
         "  command: [python3, "
      << dir
      << "/train.py]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  return dir + "/config.yaml";
}

// What follows `label` in `text`, up to the next space or newline, as a
// number; -1 when it is not there.
int64_t NumberAfter(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return -1;
  const size_t begin = at + label.size();
  const size_t end = text.find_first_of(" \n", begin);
  int64_t value = -1;
  if (!absl::SimpleAtoi(text.substr(begin, end - begin), &value)) return -1;
  return value;
}

TEST(RunLogCapTest, ALogPastItsCapKeepsItsHeadAndTailAndSaysWhatWasCut) {
  const std::string dir = testing::MakeTempDir();
  WriteJob(dir);
  testing::ProcessResult result =
      RunProcess({kHptune, "run", dir + "/config.yaml", "--job-id", "loud",
                  "--db", dir + "/h.db", "--runs-dir", dir + "/runs",
                  "--max-log-bytes", std::to_string(kCap), "--quiet"});
  ASSERT_EQ(result.exit_code, 0) << result.err;

  const std::string log = dir + "/runs/loud/1/master-0.log";
  struct stat info;
  ASSERT_EQ(stat(log.c_str(), &info), 0);
  // On disk: the cap, and what came after the last cut. (Where the file
  // system cannot collapse, the size stays and the cut is a hole.)
  EXPECT_LE(info.st_blocks * 512, kCap + (1 << 20));
  std::string text;
  {
    std::ifstream in(log, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::erase(text, '\0');
  EXPECT_LE(static_cast<int64_t>(text.size()), kCap + (1 << 20));
  EXPECT_THAT(text, StartsWith("first line of the log\nloss=0.9 step=1\n"));
  EXPECT_THAT(text, EndsWith("loss=0.25 step=2\nlast line of the log\n"));
  const size_t at = text.find("\n[hptune: ");
  ASSERT_NE(at, std::string::npos) << text.substr(0, 200);
  EXPECT_THAT(text.substr(at, text.find('\n', at + 1) - at),
              HasSubstr(" bytes of this log removed here: "
                        "--max-log-bytes 4194304]"));
  EXPECT_GT(NumberAfter(text, "\n[hptune: "), 45'000'000);
  // The trainer saw its log cut while it ran, not only after it ended.
  const int64_t seen = NumberAfter(text, "on disk after the wait: ");
  EXPECT_GE(seen, 0);
  EXPECT_LT(seen, 8'000'000);

  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto trials = (*store)->ListTrials("loud");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 1u);
  const Trial& trial = (*trials)[0];
  EXPECT_EQ(trial.state, TrialState::kSucceeded) << trial.reason;
  ASSERT_TRUE(trial.final_measurement.has_value());
  EXPECT_EQ(trial.final_measurement->metrics.at("loss"), 0.25);
  // Each report once: none lost to the cut, none read twice after it.
  ASSERT_EQ(trial.measurements.size(), 2u);
  EXPECT_EQ(trial.measurements[0].metrics.at("loss"), 0.9);
  auto events = (*store)->ListEvents(0, 10000);
  ASSERT_OK(events);
  bool noted = false;
  for (const store::Event& e : *events) {
    if (e.kind == "replica" &&
        e.detail.find("master-0's log passed --max-log-bytes 4194304: ") !=
            std::string::npos) {
      noted = true;
    }
  }
  EXPECT_TRUE(noted);
}

// `hptune serve --max-log-bytes` passes the cap on to the jobs it runs.
TEST(RunLogCapTest, AServerCapsItsJobsLogsAtItsFlag) {
  const std::string dir = testing::MakeTempDir();
  testing::ServeProcess server(dir, {"--max-log-bytes", std::to_string(kCap)});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  testing::ProcessResult submit =
      RunProcess({kHptune, "jobs", "submit", "loud", "--config", WriteJob(dir),
                  "--wait", "--server", server.address()});
  ASSERT_EQ(submit.exit_code, 0) << submit.err << server.Output();
  std::string text;
  {
    std::ifstream in(server.runs_dir() + "/loud/1/master-0.log",
                     std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::erase(text, '\0');
  EXPECT_LE(static_cast<int64_t>(text.size()), kCap + (1 << 20));
  EXPECT_THAT(text, HasSubstr(" bytes of this log removed here: "
                              "--max-log-bytes 4194304]"));
  EXPECT_THAT(text, EndsWith("last line of the log\n"));
}

TEST(RunLogCapTest, ABadCapIsAUsageErrorNamingTheFlagAndValue) {
  const std::string dir = testing::MakeTempDir();
  testing::ProcessResult result =
      RunProcess({kHptune, "run", WriteJob(dir), "--db", dir + "/h.db",
                  "--runs-dir", dir + "/runs", "--max-log-bytes", "4096"});
  EXPECT_EQ(result.exit_code, 2);  // As for every bad flag of run.
  EXPECT_THAT(
      result.err,
      HasSubstr("--max-log-bytes: expected 0 (no cap) or a number of "
                "bytes from 1048576 to 1125899906842624, got \"4096\""));
}

}  // namespace
}  // namespace hptune
