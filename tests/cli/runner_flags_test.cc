#include "src/cli/runner_flags.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/runner/job_runner.h"

namespace hptune::cli {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

ParsedArgs Flags(std::map<std::string, std::string> flags) {
  ParsedArgs args;
  args.flags = std::move(flags);
  return args;
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt
                            : std::optional<std::string>(it->second);
  };
}

TEST(RunnerFlagsTest, TheDatabaseIsTheFlagThenTheEnvironmentThenTheDefault) {
  EXPECT_EQ(DatabaseFlag(Flags({{"db", "a.db"}}), Env({{"HPTUNE_DB", "b"}})),
            "a.db");
  EXPECT_EQ(DatabaseFlag(Flags({}), Env({{"HPTUNE_DB", "b.db"}})), "b.db");
  EXPECT_EQ(DatabaseFlag(Flags({}), Env({})), "hptune.db");
}

TEST(RunnerFlagsTest, TheStateDirectoryIsTheNamedFlagElseTheDefault) {
  EXPECT_EQ(StateDirFlag(Flags({{"runs-dir", "r"}}), "runs-dir"), "r");
  EXPECT_EQ(StateDirFlag(Flags({{"runs-dir", "r"}}), "state-dir"),
            "hptune-runs");
}

TEST(RunnerFlagsTest, GraceSecondsAreADecimalNumberOfSecondsUpToAnHour) {
  EXPECT_EQ(*ParseGraceSeconds("5"), milliseconds(5000));
  EXPECT_EQ(*ParseGraceSeconds("0"), milliseconds(0));
  EXPECT_EQ(*ParseGraceSeconds("2.5"), milliseconds(2500));
  EXPECT_EQ(*ParseGraceSeconds("0.001"), milliseconds(1));
  EXPECT_EQ(*ParseGraceSeconds("3600"), milliseconds(3600000));
  for (const char* bad : {"-1", "3600.5", "five", "", "nan", "inf", "1s"}) {
    EXPECT_EQ(ParseGraceSeconds(bad).status().message(),
              absl::StrCat("--grace-seconds: expected a number of seconds "
                           "from 0 to 3600 such as 5 or 2.5, got \"",
                           bad, "\""));
  }
}

TEST(RunnerFlagsTest, ReplicaFlagsSetOnlyWhatIsGiven) {
  runner::JobRunnerOptions options;
  ASSERT_TRUE(
      ApplyReplicaFlags(
          Flags({{"max-retries", "0"}, {"grace-seconds", "0.25"}}), options)
          .ok());
  EXPECT_EQ(options.max_replica_restarts, 5);
  EXPECT_EQ(options.max_trial_retries, 0);
  EXPECT_EQ(options.termination_grace, milliseconds(250));

  absl::Status bad =
      ApplyReplicaFlags(Flags({{"max-restarts", "-1"}}), options);
  EXPECT_EQ(bad.message(),
            "--max-restarts: expected an integer >= 0, got \"-1\"");
}

TEST(RunnerFlagsTest, MaxLogBytesIsZeroOrAtLeastOneMebibyte) {
  runner::JobRunnerOptions options;
  EXPECT_EQ(options.max_log_bytes, int64_t{64} << 20);
  ASSERT_TRUE(
      ApplyReplicaFlags(Flags({{"max-log-bytes", "4194304"}}), options).ok());
  EXPECT_EQ(options.max_log_bytes, 4194304);
  ASSERT_TRUE(ApplyReplicaFlags(Flags({{"max-log-bytes", "0"}}), options).ok());
  EXPECT_EQ(options.max_log_bytes, 0);
  for (const std::string bad :
       {"-1", "4096", "1048575", "1e9", "x", "1125899906842625"}) {
    EXPECT_EQ(
        ApplyReplicaFlags(Flags({{"max-log-bytes", bad}}), options).message(),
        absl::StrCat("--max-log-bytes: expected 0 (no cap) or a number of "
                     "bytes from 1048576 to 1125899906842624, got \"",
                     bad, "\""));
  }
}

TEST(RunnerFlagsTest, AGpuSpecErrorNamesWhereTheSpecCameFrom) {
  auto flag = GpusFlag(Flags({{"gpus", "T4:x"}}), Env({}), DefaultEnv());
  EXPECT_THAT(flag.status().message(), HasSubstr("--gpus: GPU spec \"T4:x\""));
  auto env = GpusFlag(Flags({}), Env({{"HPTUNE_GPUS", "T4:x"}}), DefaultEnv());
  EXPECT_THAT(env.status().message(),
              HasSubstr("$HPTUNE_GPUS: GPU spec \"T4:x\""));
  auto given = GpusFlag(Flags({{"gpus", "2"}}), Env({{"HPTUNE_GPUS", "x"}}),
                        DefaultEnv());
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->gpus().size(), 2u);
}

}  // namespace
}  // namespace hptune::cli
