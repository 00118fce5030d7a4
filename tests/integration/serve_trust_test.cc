// Who may make `hptune serve` run programs, and what hptune's files and
// replicas give away (docs/operations.md, "Who may submit jobs"): the real
// binary, real processes, and another Unix user where the machine has one.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

int ModeOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return st.st_mode & 07777;
}

grpc::Status ListStudies(const ServeProcess& server,
                         const std::optional<std::string>& token) {
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse reply;
  return server.StudyStub()->ListStudies(Context(token).get(), request, &reply);
}

// Writes `path`: a one-trial job of parameter x whose trainer is
// `trainer`, the trainingInput lines that say what runs.
std::string WriteConfig(const std::string& path, const std::string& trainer) {
  std::ofstream(path)
      << "trainingInput:\n"
      << trainer
      << "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  return path;
}

// A config whose one-trial job writes `marker` when it runs.
std::string WriteMarkerConfig(const std::string& dir,
                              const std::string& marker) {
  return WriteConfig(dir + "/config.yaml",
                     "  command: [/usr/bin/python3, -c, \"open('" + marker +
                         "', 'w'); print('loss=1 step=1')\"]\n");
}

TEST(ServeTrustTest, EveryCallNeedsTheTokenThatOnlyThisUserCanRead) {
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  EXPECT_THAT(server.Output(),
              HasSubstr("clients authenticate with the token in "));

  // The server made (or reused) this user's default token file, private.
  const char* config_dir = std::getenv("HPTUNE_CONFIG_DIR");
  ASSERT_NE(config_dir, nullptr) << "ctest sets HPTUNE_CONFIG_DIR";
  const std::string token_file = std::string(config_dir) + "/token";
  EXPECT_EQ(ModeOf(token_file), 0600);
  EXPECT_EQ(ModeOf(config_dir), 0700);
  ASSERT_EQ(testing::DefaultToken().size(), 64u);

  EXPECT_EQ(ListStudies(server, "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ListStudies(server, "not-the-token").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(ListStudies(server, std::nullopt).ok());

  // This user's CLI finds the token by itself.
  testing::ProcessResult mine = testing::RunProcess(
      {testing::HptuneBinary(), "jobs", "list", "--server", server.address()});
  EXPECT_EQ(mine.exit_code, 0) << mine.err;
  // A client without it is refused, and told what it lacked and what to do.
  const std::string elsewhere = testing::MakeTempDir();
  testing::ProcessResult other = testing::RunProcessWithEnv(
      {testing::HptuneBinary(), "jobs", "list", "--server", server.address()},
      {"HPTUNE_CONFIG_DIR=" + elsewhere});
  EXPECT_EQ(other.exit_code, 77);
  EXPECT_THAT(other.err, HasSubstr("refused the call: this server needs a "
                                   "token"));
  EXPECT_THAT(other.err, HasSubstr("no token: token file \"" + elsewhere +
                                   "/token\": cannot be read"));
  EXPECT_THAT(other.err, HasSubstr("jobs run as the user who started the "
                                   "server: ask them for its token"));
}

// The attack of a local user: uid nobody submits a job to a server that
// root runs. Needs root (to start the server and to become nobody) and a
// build tree nobody can read.
TEST(ServeTrustTest, AnotherUserOfThisMachineCannotSubmitAJob) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const std::vector<std::string> as_nobody = {
      "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  std::vector<std::string> version = as_nobody;
  version.push_back(testing::HptuneBinary());
  version.push_back("--version");
  if (testing::RunProcess(version).exit_code != 0) {
    GTEST_SKIP() << "user nobody cannot run " << testing::HptuneBinary();
  }
  ServeProcess server(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  // Files nobody can read, in a directory nobody may write to.
  const std::string shared = testing::MakeTempDir();
  chmod(shared.c_str(), 0755);
  const std::string marker = shared + "/ran";
  const std::string config = WriteMarkerConfig(shared, marker);
  chmod(config.c_str(), 0644);

  std::vector<std::string> submit = as_nobody;
  for (std::string arg :
       {testing::HptuneBinary(), std::string("jobs"), std::string("submit"),
        std::string("intruder"), std::string("--config"), config,
        std::string("--server"), server.address()}) {
    submit.push_back(arg);
  }
  testing::ProcessResult refused = testing::RunProcess(submit);
  EXPECT_EQ(refused.exit_code, 77) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("refused the call: this server needs a "
                                     "token"));
  EXPECT_THAT(refused.err, HasSubstr("ask them for its token"));
  // A guessed token fares no better.
  testing::ProcessResult guessed =
      testing::RunProcessWithEnv(submit, {"HPTUNE_TOKEN=0123456789abcdef"});
  EXPECT_EQ(guessed.exit_code, 77);
  EXPECT_THAT(guessed.err, HasSubstr("the token is not this server's token"));

  v1::ListJobsRequest request;
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(server.JobStub()->ListJobs(Context().get(), request, &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// A shared server's policy: only the trainers under one directory, run by
// python3. A job running `python3 -c CODE` is refused before anything runs.
TEST(ServeTrustTest, AllowCommandRefusesTrainersItDoesNotName) {
  const std::string dir = testing::MakeTempDir();
  const std::string trainers = testing::SourceDir() + "/tests/testdata/";
  ServeProcess server(dir, {"--allow-command", "/bin/true",
                            "--allow-command=/usr/bin/python3:" + trainers});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string marker = dir + "/ran";
  testing::ProcessResult refused = testing::RunProcess(
      {testing::HptuneBinary(), "jobs", "submit", "code", "--config",
       WriteMarkerConfig(dir, marker), "--server", server.address()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("command: \"/usr/bin/python3\""));
  EXPECT_THAT(refused.err,
              HasSubstr("with \"-c\" first is not allowed by this server's "
                        "--allow-command rules (/bin/true, /usr/bin/python3:" +
                        trainers + ")"));
  EXPECT_FALSE(std::filesystem::exists(marker));

  const std::string config = dir + "/allowed.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  command: [/usr/bin/python3, "
                        << trainers
                        << "curve_trainer.py]\n"
                           "  args: [--steps=2, --step_seconds=0.01]\n"
                           "  hyperparameters:\n"
                           "    goal: MINIMIZE\n"
                           "    hyperparameterMetricTag: loss\n"
                           "    maxTrials: 1\n"
                           "    params:\n"
                           "    - {parameterName: x, type: DOUBLE, minValue: "
                           "0, maxValue: 1}\n"
                           "    - {parameterName: y, type: DOUBLE, minValue: "
                           "0, maxValue: 1}\n";
  testing::ProcessResult allowed = testing::RunProcess(
      {testing::HptuneBinary(), "jobs", "submit", "curve", "--config", config,
       "--wait", "--server", server.address()});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err << server.Output();
  EXPECT_THAT(allowed.err, HasSubstr("job curve SUCCEEDED"));
}

// Submits to `server`, whose rules allow python3 with `trainers`' scripts,
// the allowed script with `extra` trainingInput lines that put
// <dir>/evil on PYTHONPATH, where a sitecustomize.py writes `marker` before
// the script runs.
testing::ProcessResult SubmitBehindSitecustomize(const ServeProcess& server,
                                                 const std::string& dir,
                                                 const std::string& trainers,
                                                 const std::string& marker,
                                                 const std::string& extra) {
  std::filesystem::create_directories(dir + "/evil/evilpkg");
  std::ofstream(dir + "/evil/sitecustomize.py")
      << "open('" << marker << "', 'w')\n";
  const std::string config = WriteConfig(
      dir + "/evil.yaml", "  command: [/usr/bin/python3, " + trainers +
                              "curve_trainer.py]\n" + extra);
  return testing::RunProcess({testing::HptuneBinary(), "jobs", "submit", "evil",
                              "--config", config, "--wait", "--server",
                              server.address()});
}

// The attack on the policy above: an allowed interpreter and script, with a
// packagePath elsewhere. Its parent went in front of PYTHONPATH, where the
// attacker's sitecustomize.py ran before the script.
TEST(ServeTrustTest, AllowCommandJudgesThePackagePathToo) {
  const std::string dir = testing::MakeTempDir();
  const std::string trainers = testing::SourceDir() + "/tests/testdata/";
  ServeProcess server(dir, {"--allow-command=/usr/bin/python3:" + trainers});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string marker = dir + "/ran";
  testing::ProcessResult refused =
      SubmitBehindSitecustomize(server, dir, trainers, marker,
                                "  packagePath: " + dir + "/evil/evilpkg\n");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("packagePath \"" + dir +
                        "/evil/evilpkg\" is not under " + trainers));
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The attack on the policy through a pool's environment: the allowed
// interpreter and script, with PYTHONPATH naming the directory.
TEST(ServeTrustTest, AllowCommandJudgesThePoolsEnvironmentToo) {
  const std::string dir = testing::MakeTempDir();
  const std::string trainers = testing::SourceDir() + "/tests/testdata/";
  ServeProcess server(dir, {"--allow-command=/usr/bin/python3:" + trainers});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const std::string marker = dir + "/ran";
  testing::ProcessResult refused = SubmitBehindSitecustomize(
      server, dir, trainers, marker,
      "  masterConfig:\n    env: [{name: PYTHONPATH, value: " + dir +
          "/evil}]\n");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("masterConfig.env[0].name: \"PYTHONPATH\" is not "
                        "allowed on a server with --allow-command rules"));
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// Rules given at start-up hold for the jobs already in the database: a job
// a server without rules accepted is not resumed by one whose rules refuse
// it, and what the dead server left running of it is stopped.
TEST(ServeTrustTest, AllowCommandHoldsForJobsItResumes) {
  const std::string dir = testing::MakeTempDir();
  const std::string starts = dir + "/starts";
  const std::string config =
      WriteConfig(dir + "/config.yaml",
                  "  command: [/usr/bin/python3, -c, \"import time; open('" +
                      starts + "', 'a').write('x'); time.sleep(600)\"]\n");
  {
    ServeProcess open(dir);
    std::string error;
    ASSERT_TRUE(open.Start(&error)) << error;
    testing::ProcessResult submitted =
        testing::RunProcess({testing::HptuneBinary(), "jobs", "submit", "code",
                             "--config", config, "--server", open.address()});
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    ASSERT_TRUE(testing::PollUntil(
        [&] { return testing::ReadFileOrEmpty(starts) == "x"; },
        std::chrono::seconds(60)))
        << open.Output();
    open.Stop(SIGKILL);
  }
  ASSERT_FALSE(testing::ReplicasUnder(dir + "/runs").empty());

  ServeProcess ruled(dir, {"--allow-command", "/bin/true"});
  std::string error;
  ASSERT_TRUE(ruled.Start(&error)) << error;
  v1::GetJobRequest request;
  request.set_job_id("code");
  request.set_omit_trials(true);
  v1::Job job;
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return ruled.JobStub()->GetJob(Context().get(), request, &job).ok() &&
               job.state() == v1::Job::FAILED;
      },
      std::chrono::seconds(60)))
      << job.DebugString() << ruled.Output();
  EXPECT_THAT(job.error_message(),
              HasSubstr("cannot resume: command: \"/usr/bin/python3\""));
  EXPECT_THAT(job.error_message(),
              HasSubstr("--allow-command rules (/bin/true"));
  EXPECT_TRUE(testing::ReplicasUnder(dir + "/runs").empty());
  EXPECT_EQ(testing::ReadFileOrEmpty(starts), "x");
}

TEST(ServeTrustTest, BadTlsFilesAreNamedNotReportedAsABusyPort) {
  const std::string dir = testing::MakeTempDir();
  const std::string garbage = dir + "/garbage.pem";
  std::ofstream(garbage) << "not a certificate\n";
  testing::ProcessResult run = testing::RunProcess(
      {testing::HptuneBinary(), "serve", "--listen", "127.0.0.1:0", "--db",
       dir + "/hptune.db", "--tls-cert", garbage, "--tls-key", garbage});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "hptune serve: --tls-cert \"" + garbage +
                         "\": holds no PEM certificate (expected "
                         "\"-----BEGIN CERTIFICATE-----\")\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/hptune.db"));
}

TEST(RunTrustTest, FilesArePrivateAndReplicasNeverSeeAToken) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = dir + "/config.yaml";
  std::ofstream(config)
      << "trainingInput:\n"
         "  command: [/usr/bin/python3, -c, \"import os; print('token' if "
         "'HPTUNE_TOKEN' in os.environ else 'no token'); "
         "print('loss=1 step=1')\"]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  const std::string runs = dir + "/state/runs";
  testing::ProcessResult run = testing::RunProcessWithEnv(
      {testing::HptuneBinary(), "run", config, "--job-id", "private", "--db",
       dir + "/h.db", "--runs-dir", runs, "--quiet"},
      {"HPTUNE_TOKEN=a-client-token"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const std::string log = runs + "/private/1/master-0.log";
  EXPECT_THAT(testing::ReadFileOrEmpty(log), HasSubstr("no token"));
  for (const std::string& file :
       {dir + "/h.db", dir + "/h.db.serve-lock", log}) {
    EXPECT_EQ(ModeOf(file), 0600) << file;
  }
  for (const std::string& wal : {dir + "/h.db-wal", dir + "/h.db-shm"}) {
    if (std::filesystem::exists(wal)) {
      EXPECT_EQ(ModeOf(wal), 0600) << wal;
    }
  }
  for (const std::string& made :
       {dir + "/state", runs, runs + "/private", runs + "/private/1"}) {
    EXPECT_EQ(ModeOf(made), 0700) << made;
  }
}

// A state directory another user can write: that user could plant a link
// where a replica log goes (the server appended trainer output to whatever
// it named) or a metric file. Neither the runner nor the server starts.
TEST(RunTrustTest, AStateDirectoryOthersCanWriteIsRefused) {
  const std::string dir = testing::MakeTempDir();
  const std::string runs = dir + "/runs";
  std::filesystem::create_directory(runs);
  ASSERT_EQ(chmod(runs.c_str(), 0777), 0);
  testing::ProcessResult run = testing::RunProcess(
      {testing::HptuneBinary(), "run", WriteMarkerConfig(dir, dir + "/ran"),
       "--job-id", "planted", "--db", dir + "/h.db", "--runs-dir", runs,
       "--quiet"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err,
              HasSubstr("directory " + runs + " is owned by uid " +
                        std::to_string(geteuid()) + " with mode 0777"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran"));

  ServeProcess server(dir);  // Its state directory is dir/runs.
  std::string error;
  EXPECT_FALSE(server.Start(&error));
  EXPECT_THAT(server.Output(), HasSubstr("with mode 0777"));
}

}  // namespace
}  // namespace hptune
