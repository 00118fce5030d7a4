// Several users on one root `hptune serve` (docs/operations.md, "Several
// users on one server"): each job's processes and files are its submitter's,
// no user reaches another's job, and root's own jobs need the server's
// leave. Real binary, real processes, two unprivileged uids made with
// setpriv; the users' hptune commands reach the server through its Unix
// socket, where the kernel says who they are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;
using testing::ServeProcess;

// Uids no account has, so the test needs no user database entries.
constexpr uid_t kAlice = 64001;
constexpr uid_t kBob = 64002;

uid_t OwnerOf(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return static_cast<uid_t>(-1);
  return info.st_uid;
}

int ModeOf(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return -1;
  return info.st_mode & 07777;
}

// Whether any user may run `program`: it and every directory above it are
// open to others.
bool OthersMayRun(const std::filesystem::path& program) {
  for (std::filesystem::path at = program; at != at.parent_path();
       at = at.parent_path()) {
    struct stat info {};
    if (stat(at.c_str(), &info) != 0 || (info.st_mode & S_IXOTH) == 0) {
      return false;
    }
  }
  return true;
}

class MultiUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HPTUNE_SKIP_UNLESS_AVAILABLE(geteuid() == 0, "root",
                                 "only root runs trials as other users");
    dir_ = testing::MakeTempDir();
    // Other users pass through to their jobs, the socket and the programs.
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    namespace fs = std::filesystem;
    hptune_ = testing::HptuneBinary();
    // A copy where the build tree lies under a directory only root enters.
    if (!OthersMayRun(hptune_)) {
      hptune_ = dir_ + "/hptune";
      fs::copy_file(testing::HptuneBinary(), hptune_);
      ASSERT_EQ(chmod(hptune_.c_str(), 0755), 0);
    }
    fs::copy_file(
        testing::SourceDir() + "/tests/integration/testdata/whoami_trainer.py",
        dir_ + "/whoami_trainer.py");
    ASSERT_EQ(chmod((dir_ + "/whoami_trainer.py").c_str(), 0755), 0);
    std::ofstream(Config())
        << "trainingInput:\n"
           "  scaleTier: BASIC\n"
           "  command: [/usr/bin/python3, "
        << dir_
        << "/whoami_trainer.py]\n"
           "  hyperparameters:\n"
           "    goal: MINIMIZE\n"
           "    hyperparameterMetricTag: loss\n"
           "    maxTrials: 1\n"
           "    params:\n"
           "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: "
           "1}\n";
    ASSERT_EQ(chmod(Config().c_str(), 0644), 0);
  }

  void StartServer(std::vector<std::string> extra = {}) {
    // A place of the server user's own, which no other user's trial may
    // inherit.
    setenv("XDG_CACHE_HOME", (dir_ + "/server-cache").c_str(), 1);
    extra.insert(extra.begin(), {"--socket", Socket()});
    server_.emplace(dir_ + "/server", extra);
    std::filesystem::create_directory(dir_ + "/server");
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error << server_->Output();
  }

  const std::string& Hptune() const { return hptune_; }
  std::string Config() const { return dir_ + "/job.yaml"; }
  std::string Socket() const { return dir_ + "/hptune.sock"; }
  std::string TrialDir(const std::string& job) const {
    return server_->runs_dir() + "/" + job + "/1";
  }

  // `hptune ARGS --server unix:SOCKET` as `uid` (its own group, no others),
  // with no token given: the identity socket gives one.
  ProcessResult As(uid_t uid, std::vector<std::string> args) const {
    std::vector<std::string> argv = {
        "/usr/bin/setpriv", "--reuid=" + std::to_string(uid),
        "--regid=" + std::to_string(uid), "--clear-groups", Hptune()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--server");
    argv.push_back("unix:" + Socket());
    return testing::RunProcessWithEnv(
        argv, {"HOME=" + dir_, "HPTUNE_CONFIG_DIR", "HPTUNE_TOKEN"});
  }

  // What the job's trainer said about itself (its log's JSON line).
  nlohmann::json Whoami(const std::string& job) const {
    const std::string log =
        testing::ReadFileOrEmpty(TrialDir(job) + "/master-0.log");
    auto parsed = nlohmann::json::parse(log, nullptr, false);
    return parsed.is_discarded() ? nlohmann::json() : parsed;
  }

  std::string dir_;
  std::string hptune_;
  std::optional<ServeProcess> server_;
};

TEST_F(MultiUserTest, EachJobRunsAsItsSubmitterAndItsFilesAreTheirs) {
  StartServer();
  ProcessResult alice =
      As(kAlice, {"jobs", "submit", "alices", "--config", Config(), "--wait"});
  ASSERT_EQ(alice.exit_code, 0) << alice.err << server_->Output();
  ProcessResult bob =
      As(kBob, {"jobs", "submit", "bobs", "--config", Config(), "--wait"});
  ASSERT_EQ(bob.exit_code, 0) << bob.err << server_->Output();

  for (const auto& [job, uid] : {std::pair{"alices", kAlice}, {"bobs", kBob}}) {
    SCOPED_TRACE(job);
    const nlohmann::json me = Whoami(job);
    EXPECT_EQ(me.value("uid", -1), static_cast<int>(uid)) << me.dump();
    EXPECT_EQ(me.value("gid", -1), static_cast<int>(uid));
    EXPECT_EQ(me["groups"], nlohmann::json::array({uid}));
    // Not root: its cgroup holds it.
    EXPECT_EQ(me.value("escaped", true), false);
    // It is told who it is, not the server's HOME, USER and XDG places: a
    // uid the user database lacks gets its trial directory as HOME.
    EXPECT_EQ(me["env"], nlohmann::json({{"HOME", me["cwd"]},
                                         {"USER", std::to_string(uid)},
                                         {"LOGNAME", std::to_string(uid)}}));
    // Its directory, log and metric file are its user's; the job's
    // directory above stays the server's, so no trial directory can be
    // swapped for a link.
    EXPECT_EQ(OwnerOf(TrialDir(job)), uid);
    EXPECT_EQ(ModeOf(TrialDir(job)), 0700);
    EXPECT_EQ(OwnerOf(TrialDir(job) + "/master-0.log"), uid);
    EXPECT_EQ(OwnerOf(TrialDir(job) + "/master-0.metrics"), uid);
    EXPECT_EQ(OwnerOf(server_->runs_dir() + "/" + job), 0u);
  }
  // The metric file was read: the trial has its value.
  EXPECT_THAT(alice.out, HasSubstr("best trial: 1, loss"));
  // Bob cannot read Alice's log on disk either.
  ProcessResult peek = testing::RunProcess(
      {"/usr/bin/setpriv", "--reuid=64002", "--regid=64002", "--clear-groups",
       "/bin/cat", TrialDir("alices") + "/master-0.log"});
  EXPECT_NE(peek.exit_code, 0);
}

TEST_F(MultiUserTest, NoUserReachesAnothersJob) {
  StartServer();
  ASSERT_EQ(
      As(kAlice, {"jobs", "submit", "alices", "--config", Config(), "--wait"})
          .exit_code,
      0)
      << server_->Output();

  for (std::vector<std::string> call :
       {std::vector<std::string>{"jobs", "describe", "alices"},
        {"jobs", "cancel", "alices"},
        {"jobs", "delete", "alices"},
        {"jobs", "stream-logs", "alices", "--trial", "1"},
        {"jobs", "update", "alices", "--update-labels", "team=bob"},
        {"trials", "list", "--study", "alices"},
        {"studies", "describe", "alices"},
        {"studies", "importance", "alices"}}) {
    SCOPED_TRACE(call[0] + " " + call[1]);
    ProcessResult bob = As(kBob, call);
    EXPECT_NE(bob.exit_code, 0) << bob.out;
    EXPECT_THAT(bob.err, HasSubstr("is another user's"));
  }
  // Bob's listings leave Alice's job out; hers and the server's token's
  // show it.
  EXPECT_THAT(As(kBob, {"jobs", "list"}).out, Not(HasSubstr("alices")));
  EXPECT_THAT(As(kBob, {"studies", "list"}).out, Not(HasSubstr("alices")));
  EXPECT_THAT(As(kAlice, {"jobs", "list"}).out, HasSubstr("alices"));
  v1::GetJobRequest request;
  request.set_job_id("alices");
  v1::Job job;
  EXPECT_TRUE(
      server_->JobStub()->GetJob(testing::Context().get(), request, &job).ok());
  EXPECT_EQ(job.state(), v1::Job::SUCCEEDED);

  // Nor can Bob read Alice's results into a job of his own.
  std::string config = testing::ReadFileOrEmpty(Config());
  config.replace(config.find("    maxTrials: 1"), 0,
                 "    resumePreviousJobId: alices\n");
  std::ofstream(dir_ + "/resume.yaml") << config;
  ASSERT_EQ(chmod((dir_ + "/resume.yaml").c_str(), 0644), 0);
  ProcessResult resume =
      As(kBob, {"jobs", "submit", "bobs", "--config", dir_ + "/resume.yaml"});
  EXPECT_NE(resume.exit_code, 0);
  EXPECT_THAT(resume.err, HasSubstr("job \"alices\" is another user's"));
}

// SubmitJob's checks of the trainer are no file oracle: they run with the
// submitter's rights, so a root-only directory's modules and a root-only
// script's #! line stay unsaid.
TEST_F(MultiUserTest, SubmittingTellsAUserOnlyWhatTheyCouldSee) {
  StartServer();
  namespace fs = std::filesystem;
  const std::string secret = dir_ + "/secret";
  fs::create_directories(secret + "/pkg");
  ASSERT_EQ(chmod(secret.c_str(), 0700), 0);
  std::ofstream(secret + "/pkg/hidden_module.py") << "print(1)\n";
  std::ofstream(secret + "/run.sh") << "#!/opt/hidden-interpreter\n";
  ASSERT_EQ(chmod((secret + "/run.sh").c_str(), 0755), 0);
  std::string config = testing::ReadFileOrEmpty(Config());
  const size_t command = config.find("  command:");
  const std::string module_config = std::string(config).replace(
      command, config.find('\n', command) - command + 1,
      "  packagePath: " + secret + "/pkg\n  pythonModule: pkg.task\n");
  std::ofstream(dir_ + "/module.yaml") << module_config;
  const std::string script_config = std::string(config).replace(
      command, config.find('\n', command) - command + 1,
      "  command: [" + secret + "/run.sh]\n");
  std::ofstream(dir_ + "/script.yaml") << script_config;
  for (const char* name : {"module", "script"}) {
    SCOPED_TRACE(name);
    const std::string file = dir_ + "/" + name + ".yaml";
    ASSERT_EQ(chmod(file.c_str(), 0644), 0);
    ProcessResult alice =
        As(kAlice, {"jobs", "submit", name, "--config", file});
    EXPECT_NE(alice.exit_code, 0);
    EXPECT_THAT(alice.err, HasSubstr(secret));
    EXPECT_THAT(alice.err, Not(HasSubstr("hidden_module")));
    EXPECT_THAT(alice.err, Not(HasSubstr("hidden-interpreter")));
  }
}

constexpr char kImage[] = "localhost/hptune-test/python:1";

// Why a container job cannot run here, or "".
std::string WhyNoContainers() {
  if (access("/usr/bin/podman", X_OK) != 0) return "podman is not installed";
  if (testing::RunProcess({"/usr/bin/podman", "image", "exists", kImage})
          .exit_code != 0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh)";
  }
  return "";
}

// A one-trial job whose master runs in the test image and says who it is
// and what its pool's variable holds; `extra` is more trainingInput YAML.
std::string ContainerConfig(const std::string& extra) {
  return std::string(
             "trainingInput:\n"
             "  scaleTier: CUSTOM\n"
             "  masterType: n1-standard-4\n"
             "  masterConfig:\n"
             "    imageUri: ") +
         kImage +
         "\n"
         "    containerCommand: [python3, -c, \"import json, os, time; "
         "print(json.dumps({'uid': os.getuid(), 'gid': os.getgid(), "
         "'greeting': os.environ.get('GREETING'), "
         "'preload': os.environ.get('LD_PRELOAD')}), flush=True); "
         "open(os.environ['CLOUD_ML_HP_METRIC_FILE'], 'w').write("
         "json.dumps({'loss': 1.0, 'global_step': '1', "
         "'timestamp': time.time()}) + chr(10))\"]\n"
         "    env: [{name: GREETING, value: hello}]\n" +
         extra +
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
}

// On a root server, another user's container job runs under root's podman
// (root's image storage) as that user: its processes are the user's, with
// the pool's variables and nothing of root's, and its files are the user's.
TEST_F(MultiUserTest, ContainerJobsOfTwoUsersRunAsTheirUsers) {
  const std::string why = WhyNoContainers();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  StartServer();
  std::ofstream(dir_ + "/box.yaml") << ContainerConfig("");
  ASSERT_EQ(chmod((dir_ + "/box.yaml").c_str(), 0644), 0);
  for (const auto& [job, uid] :
       {std::pair{"alices_box", kAlice}, {"bobs_box", kBob}}) {
    SCOPED_TRACE(job);
    ProcessResult run = As(
        uid, {"jobs", "submit", job, "--config", dir_ + "/box.yaml", "--wait"});
    ASSERT_EQ(run.exit_code, 0) << run.err << server_->Output();
    const nlohmann::json me = Whoami(job);
    EXPECT_EQ(me.value("uid", -1), static_cast<int>(uid)) << me.dump();
    EXPECT_EQ(me.value("gid", -1), static_cast<int>(uid));
    EXPECT_EQ(me["greeting"], "hello");
    EXPECT_TRUE(me["preload"].is_null());
    EXPECT_EQ(OwnerOf(TrialDir(job)), uid);
    EXPECT_EQ(OwnerOf(TrialDir(job) + "/master-0.log"), uid);
    // The variables root's podman gave the container: root's, 0600, in the
    // job's directory that stays root's.
    const std::string env_file =
        server_->runs_dir() + "/" + job + "/.1-master-0.env";
    EXPECT_EQ(OwnerOf(env_file), 0u);
    EXPECT_EQ(ModeOf(env_file), 0600);
  }
}

// A container job's jobDir makes nothing where its user could not: the
// <jobDir>/<N> a container is given is made with the user's rights.
TEST_F(MultiUserTest, AContainerJobDirIsMadeWithItsUsersRights) {
  const std::string why = WhyNoContainers();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  StartServer();
  const std::string root_only = dir_ + "/root-only";
  std::filesystem::create_directory(root_only);
  ASSERT_EQ(chmod(root_only.c_str(), 0700), 0);
  std::ofstream(dir_ + "/jobdir.yaml")
      << ContainerConfig("  jobDir: " + root_only + "/out\n");
  ASSERT_EQ(chmod((dir_ + "/jobdir.yaml").c_str(), 0644), 0);
  ProcessResult run = As(kAlice, {"jobs", "submit", "alices_dir", "--config",
                                  dir_ + "/jobdir.yaml", "--wait"});
  EXPECT_NE(run.exit_code, 0) << server_->Output();
  EXPECT_FALSE(std::filesystem::exists(root_only + "/out"));
}

// --share-jobs: every user reaches every job.
TEST_F(MultiUserTest, ASharingServerLetsUsersReachEachOthersJobs) {
  StartServer({"--share-jobs"});
  ASSERT_EQ(
      As(kAlice, {"jobs", "submit", "alices", "--config", Config(), "--wait"})
          .exit_code,
      0)
      << server_->Output();
  ProcessResult bob = As(kBob, {"jobs", "describe", "alices"});
  EXPECT_EQ(bob.exit_code, 0) << bob.err;
  EXPECT_THAT(As(kBob, {"jobs", "list"}).out, HasSubstr("alices"));
  // The job still ran as Alice.
  EXPECT_EQ(Whoami("alices").value("uid", -1), static_cast<int>(kAlice));
}

TEST_F(MultiUserTest, RootsOwnJobsNeedTheServersLeave) {
  StartServer();
  // Root asks through the socket as any user would, and gets the server's
  // own token: its job would run as root.
  ProcessResult root = As(0, {"jobs", "submit", "roots", "--config", Config()});
  EXPECT_NE(root.exit_code, 0);
  EXPECT_THAT(root.err, HasSubstr("does not run jobs as root"));
  EXPECT_THAT(root.err, HasSubstr("--allow-root-trials"));
  server_->Stop(SIGTERM);

  StartServer({"--allow-root-trials"});
  root = As(0, {"jobs", "submit", "roots", "--config", Config(), "--wait"});
  ASSERT_EQ(root.exit_code, 0) << root.err << server_->Output();
  EXPECT_EQ(Whoami("roots").value("uid", -1), 0);
}

TEST_F(MultiUserTest, AUsersFileTokenActsAsItsUser) {
  const std::string users = dir_ + "/users";
  const std::string token(40, 'a');
  std::ofstream(users) << "# user token\n" << kAlice << " " << token << "\n";
  ASSERT_EQ(chmod(users.c_str(), 0644), 0);
  server_.emplace(dir_ + "/server",
                  std::vector<std::string>{"--users-file", users});
  std::filesystem::create_directory(dir_ + "/server");
  std::string error;
  // A file everyone can read gives every token away.
  EXPECT_FALSE(server_->Start(&error));
  EXPECT_THAT(server_->Output(), HasSubstr("readable by no one else"));

  ASSERT_EQ(chmod(users.c_str(), 0600), 0);
  ASSERT_TRUE(server_->Start(&error)) << error << server_->Output();
  ProcessResult alice = testing::RunProcessWithEnv(
      {Hptune(), "jobs", "submit", "alices", "--config", Config(), "--wait",
       "--server", server_->address()},
      {"HPTUNE_TOKEN=" + token});
  ASSERT_EQ(alice.exit_code, 0) << alice.err << server_->Output();
  EXPECT_EQ(Whoami("alices").value("uid", -1), static_cast<int>(kAlice));
}

// A trainer owns its trial directory, so it may put links there where
// root reads its log and metric file; root must not follow them to a file
// only root may read.
TEST_F(MultiUserTest, ATrainersLinksNeverMakeRootReadForIt) {
  const std::string secret = dir_ + "/secret";
  std::ofstream(secret) << "TOPSECRET\n";
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  const std::string trainer = dir_ + "/linking_trainer.py";
  // The log's link comes first: the metric file's link may get the trial
  // stopped at once, and a log removed but not yet replaced reads as empty.
  std::ofstream(trainer) << "import os\n"
                            "print('before the links', flush=True)\n"
                            "os.unlink('master-0.log')\n"
                            "os.symlink('"
                         << secret
                         << "', 'master-0.log')\n"
                            "os.symlink('"
                         << secret
                         << "', os.environ['CLOUD_ML_HP_METRIC_FILE'])\n";
  ASSERT_EQ(chmod(trainer.c_str(), 0755), 0);
  std::string config = testing::ReadFileOrEmpty(Config());
  config.replace(config.find(dir_ + "/whoami_trainer.py"),
                 (dir_ + "/whoami_trainer.py").size(), trainer);
  std::ofstream(Config()) << config;
  StartServer();

  ProcessResult run =
      As(kAlice, {"jobs", "submit", "links", "--config", Config(), "--wait"});
  ProcessResult logs =
      As(kAlice, {"jobs", "stream-logs", "links", "--trial", "1"});
  ProcessResult trials = As(kAlice, {"trials", "list", "--study", "links"});
  for (const ProcessResult* seen : {&run, &logs, &trials}) {
    EXPECT_THAT(seen->out + seen->err, Not(HasSubstr("TOPSECRET")));
  }
  EXPECT_NE(logs.exit_code, 0);
  EXPECT_THAT(logs.err,
              HasSubstr("master-0.log\" is a link, which is not followed"));
  EXPECT_THAT(run.out + run.err, HasSubstr("metrics file"));
}

TEST_F(MultiUserTest, ASocketWhereOthersCanPlantLinksIsRefused) {
  // The server makes its socket files there by name and opens them to
  // everyone (chmod): a link planted in between would open another file.
  const std::string shared = dir_ + "/shared";
  ASSERT_EQ(mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(chmod(shared.c_str(), 0777), 0);
  server_.emplace(dir_ + "/server",
                  std::vector<std::string>{"--socket", shared + "/s.sock"});
  std::filesystem::create_directory(dir_ + "/server");
  std::string error;
  EXPECT_FALSE(server_->Start(&error));
  EXPECT_THAT(server_->Output(), HasSubstr("directory " + shared +
                                           " is owned by uid 0 with mode "
                                           "0777"));
}

}  // namespace
}  // namespace hptune
