// CommandPolicy on real files in a temporary directory: trainers under an
// allowed directory, an interpreter with its scripts or package there, and
// what must not pass (another program, an option instead of a script, a
// link out of the directory, a module from elsewhere).
#include "src/server/command_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

namespace fs = std::filesystem;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

class CommandPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(testing::MakeTempDir());
    trainers_ = root_ / "trainers";
    fs::create_directories(trainers_ / "pkg");
    Write(trainers_ / "train.sh");
    Write(trainers_ / "train.py");
    Write(trainers_ / "pkg" / "task.py");
    Write(root_ / "elsewhere.py");
    fs::create_symlink(root_ / "elsewhere.py", trainers_ / "link.py");
    testing::ProcessResult which =
        testing::RunProcess({"/bin/sh", "-c", "command -v python3"});
    ASSERT_EQ(which.exit_code, 0);
    python_ = fs::canonical(which.out.substr(0, which.out.find('\n')));
  }

  static void Write(const fs::path& file) {
    std::ofstream(file) << "#!/bin/sh\n";
    chmod(file.c_str(), 0755);
  }

  CommandPolicy Policy(const std::vector<std::string>& rules) {
    absl::StatusOr<CommandPolicy> policy =
        CommandPolicy::Parse(DefaultEnv(), rules);
    EXPECT_OK(policy);
    return policy.ok() ? *std::move(policy) : CommandPolicy();
  }

  static JobSpec Command(std::vector<std::string> command,
                         std::vector<std::string> args = {}) {
    JobSpec job;
    job.command = std::move(command);
    job.args = std::move(args);
    return job;
  }

  static JobSpec Module(const fs::path& package, const std::string& module) {
    JobSpec job;
    job.package_path = package.string();
    job.module_name = module;
    return job;
  }

  fs::path root_, trainers_, python_;
};

TEST_F(CommandPolicyTest, NoRulesAllowAnything) {
  CommandPolicy policy = Policy({});
  EXPECT_TRUE(policy.allows_everything());
  EXPECT_OK(policy.Check(Command({"/bin/sh", "-c", "id"})));
}

TEST_F(CommandPolicyTest, ADirectoryAllowsTheProgramsUnderIt) {
  CommandPolicy policy = Policy({trainers_.string() + "/"});
  EXPECT_OK(policy.Check(Command({(trainers_ / "train.sh").string()})));
  EXPECT_OK(policy.Check(
      Command({(trainers_ / "pkg" / ".." / "train.sh").string(), "--lr=1"})));
  EXPECT_THAT(policy.Check(Command({"/bin/sh", "-c", "id"})),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("command: \"/bin/sh\"")));
  // A link inside that points out is where it points.
  EXPECT_THAT(policy.Check(Command({(trainers_ / "link.py").string()})),
              StatusHasCode(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(
      policy.Check(Command({(trainers_ / ".." / "elsewhere.py").string()})),
      StatusHasCode(absl::StatusCode::kPermissionDenied));
}

// A refusal names the program as the job gave it, and what the server
// resolved it to where that differs, or why it resolved to nothing.
TEST_F(CommandPolicyTest, ARefusalNamesTheProgramAndWhatItResolvedTo) {
  CommandPolicy policy = Policy({trainers_.string() + "/"});
  const std::string rules = " is not allowed by this server's --allow-command";
  const std::string elsewhere = (root_ / "elsewhere.py").string();
  EXPECT_THAT(policy.Check(Command({elsewhere})),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("command: \"" + elsewhere + "\"" + rules)));
  EXPECT_THAT(policy.Check(Command({"python3", "-V"})),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("command: \"python3\" (" + python_.string() +
                                 ") with \"-V\" first" + rules)));
  EXPECT_THAT(
      policy.Check(Command({"hptune-no-such-program"})),
      StatusIs(absl::StatusCode::kPermissionDenied,
               HasSubstr("command: \"hptune-no-such-program\" (not an "
                         "absolute path or a program on the server's PATH)" +
                         rules)));
}

TEST_F(CommandPolicyTest, AnInterpreterRunsOnlyScriptsUnderItsDirectory) {
  CommandPolicy policy = Policy(
      {"/usr/bin/env", python_.string() + ":" + trainers_.string() + "/"});
  EXPECT_OK(
      policy.Check(Command({"python3", (trainers_ / "train.py").string()})));
  EXPECT_OK(policy.Check(
      Command({python_.string()}, {(trainers_ / "train.py").string()})));
  // An option first, a script elsewhere or through a link out, a relative
  // script: refused, naming what was asked and the rules.
  absl::Status code = policy.Check(Command({"python3", "-c", "print(1)"}));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kPermissionDenied,
                             HasSubstr("with \"-c\" first")));
  EXPECT_THAT(code.message(),
              HasSubstr(python_.string() + ":" + trainers_.string() + "/"));
  EXPECT_THAT(
      policy.Check(Command({"python3", (root_ / "elsewhere.py").string()})),
      StatusHasCode(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(
      policy.Check(Command({"python3", (trainers_ / "link.py").string()})),
      StatusHasCode(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(policy.Check(Command({"python3", "train.py"})),
              StatusHasCode(absl::StatusCode::kPermissionDenied));
  // A program named alone takes any arguments.
  EXPECT_OK(policy.Check(Command({"/usr/bin/env", "anything"})));
}

TEST_F(CommandPolicyTest, AModuleJobNeedsItsPackageUnderTheDirectory) {
  CommandPolicy policy =
      Policy({python_.string() + ":" + trainers_.string() + "/"});
  EXPECT_OK(policy.Check(Module(trainers_ / "pkg", "pkg.task")));
  // `python3 -m timeit CODE` would run CODE: a module that is not the
  // package's is refused.
  absl::Status timeit = policy.Check(Module(trainers_ / "pkg", "timeit"));
  EXPECT_THAT(timeit, StatusIs(absl::StatusCode::kPermissionDenied,
                               HasSubstr("pythonModule: \"python3\"")));
  EXPECT_THAT(timeit.message(), HasSubstr("module \"timeit\""));
  EXPECT_THAT(policy.Check(Module(root_, "elsewhere")),
              StatusHasCode(absl::StatusCode::kPermissionDenied));
  // The package's name first, then no dotted name: a path out of it, or
  // an empty part.
  for (const char* module :
       {"pkg./../../elsewhere", "pkg..task", "pkg.task "}) {
    EXPECT_THAT(policy.Check(Module(trainers_ / "pkg", module)),
                StatusIs(absl::StatusCode::kPermissionDenied,
                         HasSubstr(absl::StrCat("module \"", module,
                                                "\" is not in packagePath's "
                                                "package"))))
        << module;
  }
}

// The attack: an allowed interpreter and script, with a package elsewhere
// whose parent goes on PYTHONPATH, where a sitecustomize.py would run first.
TEST_F(CommandPolicyTest, APackageOutsideTheRulesDirectoryIsRefused) {
  fs::create_directories(root_ / "evil" / "evilpkg");
  Write(root_ / "evil" / "sitecustomize.py");
  CommandPolicy policy =
      Policy({python_.string() + ":" + trainers_.string() + "/"});
  JobSpec job = Command({python_.string(), (trainers_ / "train.py").string()});
  EXPECT_OK(policy.Check(job));
  job.package_path = (root_ / "evil" / "evilpkg").string();
  EXPECT_THAT(policy.Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("packagePath \"" + job.package_path +
                                 "\" is not under " + trainers_.string())));
  // The package itself under the directory puts only the directory on
  // PYTHONPATH.
  job.package_path = (trainers_ / "pkg").string();
  EXPECT_OK(policy.Check(job));
  // A directory rule and a program rule judge the package too.
  job.package_path = (root_ / "evil" / "evilpkg").string();
  JobSpec direct = Command({(trainers_ / "train.sh").string()});
  direct.package_path = job.package_path;
  EXPECT_THAT(
      Policy({trainers_.string() + "/"}).Check(direct),
      StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("packagePath")));
  JobSpec env = Command({"/usr/bin/env", "true"});
  env.package_path = (trainers_ / "pkg").string();
  EXPECT_THAT(Policy({"/usr/bin/env"}).Check(env),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("a PROGRAM rule names no directory")));
}

TEST_F(CommandPolicyTest, PythonOptionsPassOnlyWhenTheyChooseNoCode) {
  CommandPolicy policy =
      Policy({python_.string() + ":" + trainers_.string() + "/"});
  const std::string script = (trainers_ / "train.py").string();
  EXPECT_OK(policy.Check(Command({python_.string(), "-u", "-B", script})));
  // -W imports a warning category's module; -X and -c are not judged.
  for (const char* option : {"-W", "-X", "-c", "-i"}) {
    EXPECT_THAT(policy.Check(Command({python_.string(), option, script})),
                StatusIs(absl::StatusCode::kPermissionDenied,
                         HasSubstr(std::string("interpreter option \"") +
                                   option + "\"")))
        << option;
  }
  // `python3 -m` runs the package's module, as a pythonModule job does.
  JobSpec module = Command({python_.string(), "-u", "-m", "pkg.task"});
  module.package_path = (trainers_ / "pkg").string();
  EXPECT_OK(policy.Check(module));
  module.command = {python_.string(), "-m", "timeit", "print(1)"};
  EXPECT_THAT(policy.Check(module),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("module \"timeit\" is not in")));
  module.command = {python_.string(), "-m", "pkg/../../elsewhere"};
  EXPECT_THAT(policy.Check(module),
              StatusHasCode(absl::StatusCode::kPermissionDenied));
  // Only Python's -m names a module: another interpreter's -m is an option.
  JobSpec shell = Command({"/bin/sh", "-m", "pkg"});
  shell.package_path = (trainers_ / "pkg").string();
  EXPECT_THAT(Policy({"/bin/sh:" + trainers_.string() + "/"}).Check(shell),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("interpreter option \"-m\"")));
}

TEST_F(CommandPolicyTest, OnlyResourceSbatchOptionsPass) {
  CommandPolicy policy = Policy({trainers_.string() + "/"});
  JobSpec job = Command({(trainers_ / "train.sh").string()});
  job.slurm.options = {"--qos=high", "--mem=4G", "--exclusive"};
  EXPECT_OK(policy.Check(job));
  job.slurm.options.push_back("--export=ALL,LD_PRELOAD=/tmp/evil.so");
  EXPECT_THAT(policy.Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("slurm.options[3]: \"--export=ALL")));
  job.slurm.options = {"--chdir=/tmp"};
  EXPECT_THAT(policy.Check(job),
              StatusHasCode(absl::StatusCode::kPermissionDenied));
  // Without rules, sbatch options are the token holder's to choose.
  EXPECT_OK(Policy({}).Check(job));
}

// The attack: an allowed interpreter and script, with a pool variable that
// makes it load the submitter's code first.
TEST_F(CommandPolicyTest, PoolVariablesThatChooseCodeAreRefused) {
  CommandPolicy policy =
      Policy({python_.string() + ":" + trainers_.string() + "/"});
  JobSpec job = Command({python_.string(), (trainers_ / "train.py").string()});
  job.master.env = {{"OMP_NUM_THREADS", "4"}, {"PYTHONUNBUFFERED", "1"}};
  EXPECT_OK(policy.Check(job));
  for (const char* name : {"PYTHONPATH", "LD_PRELOAD", "BASH_ENV", "ENV",
                           "PERL5OPT", "NODE_OPTIONS", "PYTHONWARNINGS"}) {
    job.master.env = {{"OMP_NUM_THREADS", "4"}, {name, "/tmp/evil"}};
    EXPECT_THAT(policy.Check(job),
                StatusIs(absl::StatusCode::kPermissionDenied,
                         HasSubstr(std::string("masterConfig.env[1].name: \"") +
                                   name + "\" is not allowed")))
        << name;
  }
  // Every pool that runs, named as the job's dialect names it; a pool of
  // no replicas runs nothing.
  job.master.env.clear();
  job.evaluator.env = {{"LD_PRELOAD", "/tmp/evil.so"}};
  EXPECT_OK(policy.Check(job));
  job.evaluator.count = 1;
  EXPECT_THAT(policy.Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("evaluatorConfig.env[0].name")));
  job.dialect = SpecDialect::kVertex;
  job.study.emplace();  // A tuning job's pools are its trialJobSpec's.
  EXPECT_THAT(policy.Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("trialJobSpec.workerPoolSpecs[3]."
                                 "containerSpec.env[0].name")));
  // --allow-env names what the administrator vouches for; without rules a
  // job's variables are its token holder's to choose.
  absl::StatusOr<CommandPolicy> widened = CommandPolicy::Parse(
      DefaultEnv(), {python_.string() + ":" + trainers_.string() + "/"},
      {"LD_PRELOAD"});
  ASSERT_OK(widened);
  EXPECT_OK(widened->Check(job));
  EXPECT_OK(Policy({}).Check(job));
}

TEST_F(CommandPolicyTest, AnImageRunsOnlyWhenAllowedAndWithItsEntrypoint) {
  JobSpec job;
  job.master.container.image_uri = "localhost/trainer:1";
  job.master.container.args = {"--epochs=2"};
  // A PROGRAM rule for the Python a container job would have named does
  // not let an image through.
  EXPECT_THAT(Policy({python_.string()}).Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("masterConfig.imageUri: "
                                 "\"localhost/trainer:1\" is not allowed")));
  absl::StatusOr<CommandPolicy> images = CommandPolicy::Parse(
      DefaultEnv(), {trainers_.string() + "/"}, {}, {"localhost/trainer:1"});
  ASSERT_OK(images);
  EXPECT_OK(images->Check(job));
  job.master.container.command = {"sh", "-c", "id"};
  EXPECT_THAT(images->Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("masterConfig.containerCommand: \"sh -c "
                                 "id\" is not allowed")));
  job.master.container.command.clear();
  job.master.container.python_module = "evil.task";
  EXPECT_THAT(images->Check(job),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("masterConfig.pythonModule")));
  // A pool on the host still runs the trainer, which the rules judge.
  job.master.container.python_module.clear();
  job.worker.count = 1;
  job.command = {"/bin/sh", "-c", "id"};
  EXPECT_THAT(images->Check(job), StatusIs(absl::StatusCode::kPermissionDenied,
                                           HasSubstr("command: \"/bin/sh\"")));
}

TEST_F(CommandPolicyTest, RulesMustBeAbsoluteAndExist) {
  EXPECT_THAT(CommandPolicy::Parse(DefaultEnv(), {"trainers/"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--allow-command \"trainers/\": expected an absolute "
                       "path: DIR/, PROGRAM or PROGRAM:DIR/"));
  EXPECT_THAT(
      CommandPolicy::Parse(DefaultEnv(), {(root_ / "nope/").string()}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no directory")));
  EXPECT_THAT(CommandPolicy::Parse(DefaultEnv(), {"/no/such/program"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no program \"/no/such/program\"")));
  EXPECT_THAT(
      CommandPolicy::Parse(DefaultEnv(), {python_.string() + ":relative/"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("expected an absolute DIR/")));
  EXPECT_THAT(CommandPolicy::Parse(DefaultEnv(), {}, {"LD_PRELOAD"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--allow-env and --allow-image widen")));
  EXPECT_THAT(CommandPolicy::Parse(DefaultEnv(), {"/bin/true"}, {"A=B"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--allow-env \"A=B\": expected a "
                                 "variable's name")));
}

}  // namespace
}  // namespace hptune::server
