// The paths an administrator gives `hptune serve` (docs/operations.md,
// "Paths the server is given"), attacked as another user of the machine
// would: a database, log file or state directory that user owns or links,
// trainer text that would forge lines of the server's log, and a database
// whose job has no known owner. The real binary, real processes; the
// attacker is uid 65534 (nobody) where the test runs as root.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using testing::Context;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ServeProcess;

constexpr uid_t kNobody = 65534;

int ModeOf(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return -1;
  return info.st_mode & 07777;
}

// What `hptune serve` did with `flags` under `umask`: its exit code, or
// nullopt when it was still serving after a while (then killed), and its
// stderr.
struct Served {
  std::optional<int> exit_code;
  std::string err;
};
Served Serve(const std::string& dir, const std::vector<std::string>& flags,
             const std::string& umask = "077") {
  std::vector<std::string> argv = {"/bin/sh",
                                   "-c",
                                   "umask " + umask + "; exec \"$0\" \"$@\"",
                                   testing::HptuneBinary(),
                                   "serve",
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--http",
                                   "off"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const std::string out = dir + "/serve.out", err = dir + "/serve.err";
  const pid_t pid = testing::StartProcess(argv, out, err);
  Served served;
  served.exit_code = testing::WaitForExit(pid, std::chrono::seconds(15));
  served.err = testing::ReadFileOrEmpty(err);
  return served;
}

// A file or link at `path` that the attacker owns (when the test can give
// it away: as root).
void GiveToNobody(const std::string& path) {
  if (geteuid() == 0) {
    ASSERT_EQ(lchown(path.c_str(), kNobody, kNobody), 0);
  }
}

std::string Owner() {
  return std::to_string(geteuid() == 0 ? kNobody : geteuid());
}

TEST(ServePathsTest, ADatabaseAnotherUserOwnsIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  const std::string dir = testing::MakeTempDir();
  const std::string db = dir + "/h.db";
  std::ofstream(db).close();
  ASSERT_EQ(chmod(db.c_str(), 0600), 0);
  GiveToNobody(db);
  Served served = Serve(dir, {"--db", db, "--state-dir", dir + "/runs"});
  EXPECT_EQ(served.exit_code, 2) << served.err;
  EXPECT_THAT(served.err, HasSubstr("--db: file " + db +
                                    " is owned by uid 65534 with mode 0600"));
  EXPECT_FALSE(fs::exists(dir + "/runs"));
}

// `hptune dashboard` opens the same database and state directory, by the
// same rule.
TEST(ServePathsTest, TheDashboardRefusesADatabaseAnotherUserOwns) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  const std::string dir = testing::MakeTempDir();
  const std::string db = dir + "/h.db";
  std::ofstream(db).close();
  ASSERT_EQ(chmod(db.c_str(), 0600), 0);
  GiveToNobody(db);
  const pid_t pid = testing::StartProcess(
      {testing::HptuneBinary(), "dashboard", "--db", db, "--state-dir",
       dir + "/runs", "--http", "127.0.0.1:0"},
      dir + "/out", dir + "/err");
  // Still serving after a while: it took the database (then killed).
  EXPECT_EQ(testing::WaitForExit(pid, std::chrono::seconds(15)), 2);
  EXPECT_THAT(
      testing::ReadFileOrEmpty(dir + "/err"),
      HasSubstr("--db: file " + db + " is owned by uid 65534 with mode 0600"));
}

// The database given as the attacker's link: SQLite followed it, creating
// the file it names with the umask's mode, or opening a file the attacker
// chose. Refused; a database at a plain path is made 0600 whatever the
// umask, as are the files beside it.
TEST(ServePathsTest, ADatabaseLinkIsRefusedAndOneIsMadePrivateUnderAnyUmask) {
  const std::string dir = testing::MakeTempDir();
  const std::string link = dir + "/h.db";
  const std::string target = dir + "/made-through-the-link.db";
  fs::create_symlink(target, link);
  GiveToNobody(link);
  Served linked =
      Serve(dir, {"--db", link, "--state-dir", dir + "/runs"}, "000");
  EXPECT_EQ(linked.exit_code, 2) << linked.err;
  EXPECT_THAT(linked.err,
              HasSubstr("--db: file " + link + " is a symbolic link to " +
                        target + ", owned by uid " + Owner()));
  EXPECT_FALSE(fs::exists(target)) << "mode " << ModeOf(target);

  const mode_t umask_before = umask(0);
  ServeProcess server(dir);
  std::string error;
  const bool started = server.Start(&error);
  umask(umask_before);
  ASSERT_TRUE(started) << error;
  for (const std::string& file :
       {server.db(), server.db() + "-wal", server.db() + "-shm",
        server.db() + ".serve-lock"}) {
    if (file.ends_with("-shm") && !fs::exists(file)) continue;
    EXPECT_EQ(ModeOf(file), 0600) << file;
  }
}

// A sqlite: URL is checked as the file it names; a URL of no known scheme
// is refused before anything is opened, naming the flag and the value.
TEST(ServePathsTest, ASqliteUrlIsCheckedAsItsFileAndAnUnknownOneIsRefused) {
  const std::string dir = testing::MakeTempDir();
  const std::string link = dir + "/h.db";
  const std::string target = dir + "/made-through-the-link.db";
  fs::create_symlink(target, link);
  GiveToNobody(link);
  Served linked =
      Serve(dir, {"--db", "sqlite:" + link, "--state-dir", dir + "/runs"});
  EXPECT_EQ(linked.exit_code, 2) << linked.err;
  EXPECT_THAT(linked.err,
              HasSubstr("--db: file " + link + " is a symbolic link to "));
  EXPECT_FALSE(fs::exists(target));

  Served unknown =
      Serve(dir, {"--db", "nosuch:h.db", "--state-dir", dir + "/runs"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_THAT(unknown.err, HasSubstr("--db: store URL \"nosuch:h.db\""));
  EXPECT_THAT(unknown.err, HasSubstr("memory:"));
}

// --log-file as a link to a file only root may write: the server appended
// its lines there.
TEST(ServePathsTest, ALogFileThatIsALinkIsRefused) {
  const std::string dir = testing::MakeTempDir();
  const std::string secret = dir + "/root-only";
  std::ofstream(secret) << "kept\n";
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  const std::string log = dir + "/serve.log";
  fs::create_symlink(secret, log);
  GiveToNobody(log);
  Served served = Serve(dir, {"--db", dir + "/h.db", "--state-dir",
                              dir + "/runs", "--log-file", log});
  EXPECT_EQ(served.exit_code, 2) << served.err;
  EXPECT_THAT(served.err,
              HasSubstr("--log-file: file " + log + " is a symbolic link to " +
                        secret + ", owned by uid " + Owner()));
  EXPECT_EQ(testing::ReadFileOrEmpty(secret), "kept\n");
  EXPECT_FALSE(fs::exists(dir + "/h.db"));
}

TEST(ServePathsTest, AStateDirectoryLinkIsRefused) {
  const std::string dir = testing::MakeTempDir();
  const std::string real = dir + "/real";
  fs::create_directory(real);
  const std::string runs = dir + "/runs";
  fs::create_directory_symlink(real, runs);
  GiveToNobody(runs);
  Served served = Serve(dir, {"--db", dir + "/h.db", "--state-dir", runs});
  EXPECT_EQ(served.exit_code, 2) << served.err;
  EXPECT_THAT(served.err, HasSubstr("--state-dir: directory " + runs +
                                    " is a symbolic link to " + real +
                                    ", owned by uid " + Owner()));
}

// A trainer reports a metric whose name holds a newline and a crontab
// line; the trial fails naming it, and the server's log line says so. The
// log is one record a line: the crontab line stays escaped on the
// trainer's.
TEST(ServePathsTest, TrainerTextStaysOnItsLineInTheServerLog) {
  const std::string dir = testing::MakeTempDir();
  const std::string log = dir + "/serve.log";
  ServeProcess server(dir, {"--log-file", log});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string config = dir + "/config.yaml";
  std::ofstream(config)
      << "trainingInput:\n"
         "  command: [/usr/bin/python3, -c, \"import json, os, time; "
         "open(os.environ['CLOUD_ML_HP_METRIC_FILE'], 'w').write("
         "json.dumps({'x\\\\n* * * * * root evil': '1', 'timestamp': "
         "time.time()}) + '\\\\n')\"]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: p, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  testing::ProcessResult submitted = testing::RunProcess(
      {testing::HptuneBinary(), "jobs", "submit", "forge", "--config", config,
       "--wait", "--server", server.address()});
  ASSERT_THAT(submitted.err, HasSubstr("job forge")) << server.Output();
  std::string text;
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        text = testing::ReadFileOrEmpty(log);
        return text.find("job forge: FAILED") != std::string::npos ||
               text.find("job forge: SUCCEEDED") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << text;
  EXPECT_THAT(text, HasSubstr("job forge: trial 1 FAILED: reported "
                              "x\\n* * * * * root evil"));
  EXPECT_THAT(text, Not(HasSubstr("\n* * * * *")));
}

// A database whose unfinished job has no known owner (uid -1: written by a
// server that ran root's jobs, one that was not root, or crafted): a root
// server without --allow-root-trials would resume it as root. It ends
// FAILED naming why, and what its dead server left running is stopped.
TEST(ServePathsTest, AJobOfNoKnownOwnerIsNotResumedAsRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs a root server";
  const std::string dir = testing::MakeTempDir();
  const std::string starts = dir + "/starts";
  const std::string config = dir + "/config.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  command: [/usr/bin/python3, -c, \"import time; "
                           "open('"
                        << starts
                        << "', 'a').write('x'); time.sleep(600)\"]\n"
                           "  hyperparameters:\n"
                           "    goal: MINIMIZE\n"
                           "    hyperparameterMetricTag: loss\n"
                           "    maxTrials: 1\n"
                           "    params:\n"
                           "    - {parameterName: p, type: DOUBLE, minValue: "
                           "0, maxValue: 1}\n";
  {
    ServeProcess root_allowed(dir);  // With --allow-root-trials.
    std::string error;
    ASSERT_TRUE(root_allowed.Start(&error)) << error;
    testing::ProcessResult submitted = testing::RunProcess(
        {testing::HptuneBinary(), "jobs", "submit", "rooted", "--config",
         config, "--server", root_allowed.address()});
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    ASSERT_TRUE(testing::PollUntil(
        [&] { return testing::ReadFileOrEmpty(starts) == "x"; },
        std::chrono::seconds(60)))
        << root_allowed.Output();
    root_allowed.Stop(SIGKILL);
  }
  // --socket: the fixture then leaves --allow-root-trials out.
  ServeProcess server(dir, {"--socket", dir + "/sock/hptune.sock"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  v1::GetJobRequest request;
  request.set_job_id("rooted");
  request.set_omit_trials(true);
  v1::Job job;
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return server.JobStub()->GetJob(Context().get(), request, &job).ok() &&
               job.state() == v1::Job::FAILED;
      },
      std::chrono::seconds(60)))
      << job.DebugString() << server.Output();
  EXPECT_THAT(job.error_message(),
              HasSubstr("the job has no known owner (uid -1), so its trials "
                        "would run as root; start the server with "
                        "--allow-root-trials"));
  EXPECT_TRUE(testing::ReplicasUnder(dir + "/runs").empty());
  EXPECT_EQ(testing::ReadFileOrEmpty(starts), "x");
}

}  // namespace
}  // namespace hptune
