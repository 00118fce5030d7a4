// The flags `hptune run` and `hptune serve` share (src/cli/runner_flags.h),
// through the real binary: the same value is taken or refused alike, with
// the same message. Each command keeps its exit code for a bad value (run
// 2, serve 64: docs/cli.md).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kConfig =
    std::string(HPTUNE_SOURCE_DIR) + "/examples/stdlib_trainer/config.yaml";

testing::ProcessResult RunCommand(const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {kHptune, "run", kConfig};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return testing::RunProcess(argv);
}

testing::ProcessResult ServeCommand(const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {kHptune, "serve", "--listen", "127.0.0.1:0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return testing::RunProcess(argv);
}

// What follows "hptune COMMAND: " on the first line of `err`.
std::string Message(const std::string& err, const std::string& command) {
  const std::string prefix = "hptune " + command + ": ";
  EXPECT_THAT(err, StartsWith(prefix));
  return err.substr(prefix.size(), err.find('\n') - prefix.size());
}

TEST(SharedFlagsCliTest, RunAndServeRefuseABadGraceSecondsAlike) {
  for (const std::string bad : {"-1", "5s", "3601", "nan"}) {
    SCOPED_TRACE(bad);
    auto run = RunCommand({"--grace-seconds", bad});
    auto serve = ServeCommand({"--grace-seconds", bad});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(serve.exit_code, 64) << serve.err;
    const std::string expected =
        "--grace-seconds: expected a number of seconds from 0 to 3600 such "
        "as 5 or 2.5, got \"" +
        bad + "\"";
    EXPECT_EQ(Message(run.err, "run"), expected);
    EXPECT_EQ(Message(serve.err, "serve"), expected);
  }
}

TEST(SharedFlagsCliTest, RunAndServeTakeFractionsOfASecond) {
  // Each goes on to the next mistake, so the grace was taken.
  auto run =
      RunCommand({"--grace-seconds", "2.5", "--early-stopping", "never"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err,
              HasSubstr("--early-stopping: hptune has no early-stopping rule "
                        "\"never\"; its rules: asha, asha-resume, convex, "
                        "decay-curve, envelope, median, median-at-step"));
  auto serve =
      ServeCommand({"--grace-seconds", "2.5", "--tls-cert", "cert.pem"});
  EXPECT_EQ(serve.exit_code, 64);
  EXPECT_THAT(serve.err, HasSubstr("--tls-cert and --tls-key go together"));
}

TEST(SharedFlagsCliTest, RunAndServeRefuseABadReplicaCountAlike) {
  auto run = RunCommand({"--max-restarts", "-2"});
  auto serve = ServeCommand({"--max-restarts", "-2"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(serve.exit_code, 64) << serve.err;
  EXPECT_EQ(Message(run.err, "run"), Message(serve.err, "serve"));
  EXPECT_EQ(Message(run.err, "run"),
            "--max-restarts: expected an integer >= 0, got \"-2\"");
}

TEST(SharedFlagsCliTest, RunAndServeRefuseABadGpuSpecAlike) {
  auto run = RunCommand({"--gpus", "T4:x"});
  auto serve = ServeCommand({"--gpus", "T4:x"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(serve.exit_code, 2) << serve.err;
  EXPECT_THAT(Message(run.err, "run"), StartsWith("--gpus: GPU spec \"T4:x\""));
  EXPECT_EQ(Message(run.err, "run"), Message(serve.err, "serve"));
}

}  // namespace
}  // namespace hptune
