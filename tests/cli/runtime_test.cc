// MakeRuntime, the one factory of the commands that work on a database: on
// a real SQLite file in a temp directory and on a memory: store.
#include "src/cli/runtime.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <variant>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/run_process.h"

namespace hptune::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

RuntimeOptions Options(StoreUse use, const std::string& db,
                       const std::string& state_dir = "") {
  RuntimeOptions options;
  options.use = use;
  options.db = db;
  options.state_dir = state_dir;
  options.state_flag = "state-dir";
  options.env = &DefaultEnv();
  return options;
}

const RuntimeError& ErrorOf(const std::variant<Runtime, RuntimeError>& made) {
  return std::get<RuntimeError>(made);
}

TEST(RuntimeTest, RunningJobsCreatesTheDatabaseAndTheStateDirAndHoldsTheLease) {
  const std::string dir = testing::MakeTempDir();
  auto made = MakeRuntime(
      Options(StoreUse::kRunJobs, "sqlite:" + dir + "/h.db", dir + "/runs"));
  ASSERT_TRUE(std::holds_alternative<Runtime>(made))
      << ErrorOf(made).status.message();
  const Runtime& runtime = std::get<Runtime>(made);
  EXPECT_EQ(runtime.db, "sqlite:" + dir + "/h.db");
  EXPECT_TRUE(fs::is_regular_file(dir + "/h.db"));
  EXPECT_TRUE(fs::is_directory(dir + "/runs"));
  ASSERT_NE(runtime.store, nullptr);
  ASSERT_NE(runtime.lease, nullptr);
  EXPECT_TRUE(runtime.store->ListStudies().ok());

  // A server beside the held run lease is refused, as the lease step.
  RuntimeOptions server = Options(StoreUse::kRunJobs, dir + "/h.db", dir);
  server.holder = store::RunnerHolder::kServer;
  auto refused = MakeRuntime(server);
  ASSERT_TRUE(std::holds_alternative<RuntimeError>(refused));
  EXPECT_EQ(ErrorOf(refused).step, RuntimeStep::kLease);
  EXPECT_TRUE(absl::IsUnavailable(ErrorOf(refused).status))
      << ErrorOf(refused).status;
}

TEST(RuntimeTest, AMemoryStoreRunsJobsWithItsLeaseAndNoFile) {
  const std::string dir = testing::MakeTempDir();
  auto made = MakeRuntime(Options(StoreUse::kRunJobs, "memory:", dir + "/r"));
  ASSERT_TRUE(std::holds_alternative<Runtime>(made))
      << ErrorOf(made).status.message();
  EXPECT_NE(std::get<Runtime>(made).lease, nullptr);
  EXPECT_FALSE(fs::exists("memory:"));
  // Read: empty; shown: refused, a dashboard needs a file.
  EXPECT_TRUE(std::holds_alternative<Runtime>(
      MakeRuntime(Options(StoreUse::kRead, "memory:"))));
  auto shown = MakeRuntime(Options(StoreUse::kShow, "memory:", dir));
  ASSERT_TRUE(std::holds_alternative<RuntimeError>(shown));
  EXPECT_EQ(ErrorOf(shown).step, RuntimeStep::kMissing);
}

TEST(RuntimeTest, AServingCommandHasItsStopSignalsBlockedAndReturned) {
  const std::string dir = testing::MakeTempDir();
  RuntimeOptions options = Options(StoreUse::kRunJobs, "memory:", dir);
  auto unblocked = MakeRuntime(options);
  ASSERT_TRUE(std::holds_alternative<Runtime>(unblocked));
  EXPECT_FALSE(
      sigismember(&std::get<Runtime>(unblocked).stop_signals, SIGTERM));

  options.block_stop_signals = true;
  auto made = MakeRuntime(options);
  ASSERT_TRUE(std::holds_alternative<Runtime>(made));
  const sigset_t& stop = std::get<Runtime>(made).stop_signals;
  sigset_t blocked;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, nullptr, &blocked), 0);
  for (int signal : {SIGTERM, SIGINT}) {
    EXPECT_TRUE(sigismember(&stop, signal)) << signal;
    EXPECT_TRUE(sigismember(&blocked, signal)) << signal;
  }
  pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
}

TEST(RuntimeTest, ReadingAMissingDatabaseIsNotFoundAndCreatesNothing) {
  const std::string dir = testing::MakeTempDir();
  for (StoreUse use : {StoreUse::kRead, StoreUse::kShow}) {
    RuntimeOptions options = Options(use, dir + "/missing.db", dir);
    options.db_source = "$HPTUNE_DB";
    auto made = MakeRuntime(options);
    ASSERT_TRUE(std::holds_alternative<RuntimeError>(made));
    EXPECT_EQ(ErrorOf(made).step, RuntimeStep::kMissing);
    EXPECT_EQ(ErrorOf(made).status.message(),
              "$HPTUNE_DB: no study database at \"" + dir + "/missing.db\"");
  }
  EXPECT_FALSE(fs::exists(dir + "/missing.db"));
}

TEST(RuntimeTest, AnUnknownSchemeIsRefusedNamingTheFlagBeforeAnythingOpens) {
  auto made = MakeRuntime(Options(StoreUse::kRunJobs, "nosuch:h.db", "r"));
  ASSERT_TRUE(std::holds_alternative<RuntimeError>(made));
  EXPECT_EQ(ErrorOf(made).step, RuntimeStep::kPaths);
  EXPECT_THAT(ErrorOf(made).status.message(),
              HasSubstr("--db: store URL \"nosuch:h.db\""));
}

TEST(RuntimeTest, ADatabaseLinkOrAnOpenStateDirIsRefusedBeforeItIsOpened) {
  const std::string dir = testing::MakeTempDir();
  fs::create_symlink(dir + "/elsewhere.db", dir + "/h.db");
  auto linked = CheckRuntimePaths(
      Options(StoreUse::kRunJobs, dir + "/h.db", dir + "/runs"));
  ASSERT_TRUE(linked.has_value());
  EXPECT_EQ(linked->step, RuntimeStep::kPaths);
  EXPECT_THAT(linked->status.message(),
              HasSubstr("--db: file " + dir + "/h.db is a symbolic link"));
  EXPECT_FALSE(fs::exists(dir + "/elsewhere.db"));

  fs::create_directory(dir + "/open");
  ASSERT_EQ(chmod((dir + "/open").c_str(), 0777), 0);
  std::ofstream(dir + "/shown.db").close();
  ASSERT_EQ(chmod((dir + "/shown.db").c_str(), 0600), 0);
  auto shown =
      MakeRuntime(Options(StoreUse::kShow, dir + "/shown.db", dir + "/open"));
  ASSERT_TRUE(std::holds_alternative<RuntimeError>(shown));
  EXPECT_EQ(ErrorOf(shown).step, RuntimeStep::kPaths);
  EXPECT_THAT(ErrorOf(shown).status.message(), HasSubstr("--state-dir: "));
}

TEST(RuntimeTest, ServingCommandsExitByTheStepThatFailed) {
  EXPECT_EQ(
      ExitCodeOf({RuntimeStep::kPaths, absl::FailedPreconditionError("")}),
      kExitInvalid);
  EXPECT_EQ(ExitCodeOf({RuntimeStep::kMissing, absl::NotFoundError("")}),
            kExitNotFound);
  EXPECT_EQ(ExitCodeOf({RuntimeStep::kOpen, absl::FailedPreconditionError("")}),
            kExitFailure);
  EXPECT_EQ(ExitCodeOf({RuntimeStep::kLease, absl::UnavailableError("")}),
            kExitFailure);
}

TEST(RuntimeTest, OptionsComeFromTheFlagThenTheEnvironmentThenTheDefault) {
  auto env = [](std::map<std::string, std::string> vars) -> EnvLookup {
    return [vars](const char* name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  ParsedArgs flag;
  flag.flags = {{"db", "a.db"}, {"runs-dir", "r"}};
  RuntimeOptions given = RuntimeOptionsFromFlags(
      StoreUse::kRunJobs, flag, env({{"HPTUNE_DB", "b.db"}}), "runs-dir");
  EXPECT_EQ(given.db, "a.db");
  EXPECT_EQ(given.db_source, "--db");
  EXPECT_EQ(given.state_dir, "r");
  EXPECT_EQ(given.state_flag, "runs-dir");
  RuntimeOptions from_env = RuntimeOptionsFromFlags(
      StoreUse::kShow, ParsedArgs{}, env({{"HPTUNE_DB", "b.db"}}), "state-dir");
  EXPECT_EQ(from_env.db, "b.db");
  EXPECT_EQ(from_env.db_source, "$HPTUNE_DB");
  EXPECT_EQ(from_env.state_dir, "hptune-runs");
  EXPECT_EQ(RuntimeOptionsFromFlags(StoreUse::kRead, ParsedArgs{}, env({})).db,
            "hptune.db");
}

}  // namespace
}  // namespace hptune::cli
