// Unit tests of the permanent-failure rules (src/runner/failure_cause.h).
#include "src/runner/failure_cause.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/run_process.h"

namespace hptune::runner::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

launch::ReplicaExit Exited(int code) { return {.exit_code = code}; }

TEST(PermanentCauseTest, ShellCodesArePermanentEvenAfterReports) {
  EXPECT_THAT(
      PermanentCause(Exited(127), {}, /*reported=*/true),
      Optional(std::string("exit code 127: the command was not found")));
  EXPECT_TRUE(PermanentCause(Exited(126), {}, true).has_value());
}

TEST(PermanentCauseTest, PythonStartupErrorsBeforeAnyReport) {
  const std::vector<std::string> tail = {
      "Traceback (most recent call last):", "  File \"task.py\", line 3",
      "ModuleNotFoundError: No module named 'torchh'", ""};
  EXPECT_THAT(
      PermanentCause(Exited(1), tail, /*reported=*/false),
      Optional(std::string("ModuleNotFoundError: No module named 'torchh'")));
  // The same line after reports: the trainer ran, a restart may pass.
  EXPECT_EQ(PermanentCause(Exited(1), tail, /*reported=*/true), std::nullopt);
  EXPECT_TRUE(PermanentCause(Exited(1),
                             {"    x = = 1", "SyntaxError: invalid syntax"},
                             false)
                  .has_value());
  EXPECT_TRUE(PermanentCause(Exited(1),
                             {"/usr/bin/python3: Error while finding module "
                              "specification for 'trainer.tsk'"},
                             false)
                  .has_value());
  EXPECT_TRUE(
      PermanentCause(Exited(2),
                     {"python3: can't open file '/x/task.py': [Errno 2] "
                      "No such file or directory"},
                     false)
          .has_value());
}

TEST(PermanentCauseTest, ArgparseUsageErrorIsPermanent) {
  const std::vector<std::string> tail = {
      "usage: task.py [-h] [--lr LR]",
      "task.py: error: unrecognized arguments: --job-dir=/tmp/1"};
  EXPECT_THAT(PermanentCause(Exited(2), tail, false), Optional(tail[1]));
  // Exit 1 with the same text is not argparse's.
  EXPECT_EQ(PermanentCause(Exited(1), tail, false), std::nullopt);
}

TEST(PermanentCauseTest, OtherFailuresMayPass) {
  EXPECT_EQ(
      PermanentCause(Exited(1), {"RuntimeError: CUDA out of memory"}, false),
      std::nullopt);
  EXPECT_EQ(PermanentCause({.signal = 9}, {"ImportError: x"}, false),
            std::nullopt);
  EXPECT_EQ(PermanentCause(Exited(0), {"ImportError: x"}, false), std::nullopt);
}

TEST(LogTailTest, KeepsTheLastLinesOfALargeLog) {
  const std::string path = hptune::testing::MakeTempDir() + "/master-0.log";
  {
    std::ofstream out(path);
    for (int i = 0; i < 100000; ++i) out << "line " << i << "\n";
    out << std::string(1000, 'x') << "\r\n";
  }
  std::vector<std::string> tail = LogTail(DefaultEnv(), path, 3);
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(tail[0], "line 99998");
  EXPECT_EQ(tail[1], "line 99999");
  EXPECT_EQ(tail[2], std::string(300, 'x') + "...");
  EXPECT_EQ(LastLogLine({"a", "  b  ", " ", ""}), "b");
  EXPECT_THAT(LogTail(DefaultEnv(), path + ".missing"), ElementsAre());
}

// A trainer may name its log as a link to a file only the server may read:
// its failure must not quote that file.
TEST(LogTailTest, ALinkedLogIsNotQuoted) {
  const std::string dir = hptune::testing::MakeTempDir();
  std::ofstream(dir + "/secret") << "TOPSECRET\n";
  std::filesystem::create_symlink(dir + "/secret", dir + "/master-0.log");
  std::filesystem::create_hard_link(dir + "/secret", dir + "/worker-0.log");
  EXPECT_THAT(LogTail(DefaultEnv(), dir + "/master-0.log"), ElementsAre());
  EXPECT_THAT(LogTail(DefaultEnv(), dir + "/worker-0.log"), ElementsAre());
  std::ofstream(dir + "/ps-0.log") << "TOPSECRET\n";
  EXPECT_THAT(LogTail(DefaultEnv(), dir + "/ps-0.log"),
              ElementsAre("TOPSECRET"));
}

}  // namespace
}  // namespace hptune::runner::internal
