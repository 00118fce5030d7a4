// A new user's common mistakes, made with the `hptune` binary and real
// Python trainers: each must end fast, with a message that names the cause.
// The trainers are written by the tests into their temp dirs.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;

void WriteFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// A trainer whose argparse knows only --x and --tag (no --job-dir, as many
// AI Platform trainers): it reports `tag` = x through the hypertune file,
// and leaves where it ran and what AIP_CHECKPOINT_DIR was in that
// directory.
constexpr char kStrictTrainer[] = R"(import argparse, json, os, time
parser = argparse.ArgumentParser()
parser.add_argument("--x", type=float, required=True)
parser.add_argument("--tag", default="accuracy")
parser.add_argument("--sleep", type=float, default=0)
parser.add_argument("--style", default="timed")  # untimed, garbled
args = parser.parse_args()
checkpoints = os.environ["AIP_CHECKPOINT_DIR"]
with open(os.path.join(checkpoints, "seen.json"), "w") as f:
    json.dump({"cwd": os.getcwd(), "checkpoints": checkpoints,
               "model": os.environ["AIP_MODEL_DIR"]}, f)
path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
report = {args.tag: str(args.x), "global_step": "1", "loss": "0.5",
          "timestamp": time.time()}
if args.style == "untimed":
    del report["timestamp"]
line = json.dumps(report, sort_keys=True)
if args.style == "garbled":
    line = f"{args.tag}: {args.x}"
with open(path + ".tmp", "w") as f:
    f.write(line + "\n")
os.replace(path + ".tmp", path)
time.sleep(args.sleep)
)";

// dir/strict.yaml: kStrictTrainer in packagePath dir/pkg/trainer, reporting
// `tag` in `style`, `max_trials` trials one at a time; no jobDir.
std::string WriteStrictJob(const std::string& dir, const std::string& tag,
                           int max_trials, double sleep_seconds = 0,
                           const std::string& style = "timed") {
  WriteFile(dir + "/pkg/trainer/__init__.py", "");
  WriteFile(dir + "/pkg/trainer/task.py", kStrictTrainer);
  const std::string config = dir + "/strict.yaml";
  WriteFile(config,
            "trainingInput:\n"
            "  packagePath: pkg/trainer\n"
            "  pythonModule: trainer.task\n"
            "  args: [--tag=" +
                tag + ", --sleep=" + std::to_string(sleep_seconds) +
                ", --style=" + style +
                "]\n"
                "  hyperparameters:\n"
                "    goal: MAXIMIZE\n"
                "    hyperparameterMetricTag: accuracy\n"
                "    maxTrials: " +
                std::to_string(max_trials) +
                "\n"
                "    algorithm: RANDOM_SEARCH\n"
                "    params:\n"
                "    - {parameterName: x, type: DOUBLE, minValue: 0, "
                "maxValue: 1}\n");
  return config;
}

std::vector<std::string> RunArgs(const std::string& dir,
                                 const std::string& config,
                                 const std::string& job) {
  return {kHptune,           "run",        config,
          "--job-id",        job,          "--db",
          dir + "/h.db",     "--runs-dir", dir + "/runs",
          "--grace-seconds", "1"};
}

nlohmann::json TrialsJson(const std::string& dir, const std::string& job) {
  auto trials = RunProcess({kHptune, "trials", "list", "--study", job, "--db",
                            dir + "/h.db", "--format", "json"});
  EXPECT_EQ(trials.exit_code, 0) << trials.err;
  return nlohmann::json::parse(trials.out);
}

TEST(RunMistakesTest, ATrainerWithoutJobDirRunsInItsTrialDirectory) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 2);
  auto result = RunProcess(RunArgs(dir, config, "strict"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("job strict SUCCEEDED"));
  // No --job-dir without a jobDir; a directory of its own through AIP_*,
  // made before it started, and the trial's directory to run in.
  for (int trial : {1, 2}) {
    const std::string trial_dir = dir + "/runs/strict/" + std::to_string(trial);
    std::ifstream seen(trial_dir + "/checkpoints/seen.json");
    ASSERT_TRUE(seen.good()) << trial_dir;
    const nlohmann::json json = nlohmann::json::parse(seen);
    EXPECT_EQ(std::filesystem::path(json["cwd"].get<std::string>()),
              std::filesystem::canonical(trial_dir));
    EXPECT_EQ(json["model"], trial_dir + "/model/");
  }
}

TEST(RunMistakesTest, AWrongMetricTagFailsTheTrialsAndTheJob) {
  const std::string dir = testing::MakeTempDir();
  // maxFailedTrials defaults to 3 here: the job ends after the third.
  const std::string config = WriteStrictJob(dir, "acc", 5);
  auto result = RunProcess(RunArgs(dir, config, "tag"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const std::string expected =
      "reported acc, loss; expected accuracy (hyperparameterMetricTag)";
  // Said at the first report, before the trial ends, even with no live line.
  EXPECT_THAT(result.err,
              HasSubstr("warning: trial 1 " + expected +
                        "; it will fail unless it reports \"accuracy\""));
  EXPECT_THAT(result.err, HasSubstr("job tag FAILED: maxFailedTrials (3)"));
  const nlohmann::json trials = TrialsJson(dir, "tag");
  ASSERT_EQ(trials.size(), 3u) << trials.dump();
  for (const nlohmann::json& trial : trials) {
    EXPECT_EQ(trial["state"], "FAILED") << trial.dump();
    EXPECT_EQ(trial["reason"], expected) << trial.dump();
  }
  // The study says how its job ended, in the list and in describe.
  auto list = RunProcess({kHptune, "studies", "list", "--db", dir + "/h.db"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("FAILED")) << list.out;
  auto described = RunProcess(
      {kHptune, "studies", "describe", "tag", "--db", dir + "/h.db"});
  EXPECT_THAT(described.out,
              HasSubstr("state:      FAILED (job FAILED: maxFailedTrials (3)"))
      << described.out;
}

TEST(RunMistakesTest, ReportsWithoutATimestampAreRead) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 2, 0, "untimed");
  auto result = RunProcess(RunArgs(dir, config, "untimed"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json trials = TrialsJson(dir, "untimed");
  ASSERT_EQ(trials.size(), 2u) << trials.dump();
  for (const nlohmann::json& trial : trials) {
    EXPECT_EQ(trial["state"], "SUCCEEDED") << trial.dump();
    EXPECT_NEAR(std::stod(trial["hyperparameters"]["x"].get<std::string>()),
                trial["finalMetric"]["objectiveValue"].get<double>(), 1e-9)
        << trial.dump();
  }
}

TEST(RunMistakesTest, LinesThatAreNoReportFailTheTrialsAndTheJob) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 5, 0, "garbled");
  auto result = RunProcess(RunArgs(dir, config, "garbled"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const std::string expected =
      "reported no value of accuracy (hyperparameterMetricTag): its metric "
      "file had 1 line(s) that are no report; the last: accuracy: ";
  EXPECT_THAT(result.err, HasSubstr("warning: trial 1 " + expected));
  EXPECT_THAT(result.err, HasSubstr("job garbled FAILED: maxFailedTrials (3)"));
  const nlohmann::json trials = TrialsJson(dir, "garbled");
  ASSERT_EQ(trials.size(), 3u) << trials.dump();
  for (const nlohmann::json& trial : trials) {
    EXPECT_EQ(trial["state"], "FAILED") << trial.dump();
    EXPECT_THAT(trial["reason"].get<std::string>(), HasSubstr(expected));
  }
}

TEST(RunMistakesTest, AnImportErrorFailsTheJobAtOnceWithTheTraceback) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 6);
  WriteFile(dir + "/pkg/trainer/task.py", "import numpy_typo_for_hptune\n");
  const auto start = std::chrono::steady_clock::now();
  auto result = RunProcess(RunArgs(dir, config, "imports"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::cout << "an import error failed the job in " << seconds << " s wall\n";
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(
      result.err,
      AllOf(HasSubstr("job imports FAILED: trial 1: master-0 exited with "
                      "code 1: ModuleNotFoundError: No module named "
                      "'numpy_typo_for_hptune'"),
            HasSubstr("log: " + dir + "/runs/imports/1/master-0.log"),
            HasSubstr("This error is permanent"), HasSubstr("The log's last"),
            HasSubstr("Traceback")));
  // Started once: no restart, no re-run, no second trial.
  const std::string text =
      testing::ReadFileOrEmpty(dir + "/runs/imports/1/master-0.log");
  EXPECT_EQ(testing::CountOccurrences(text, "Traceback"), 1) << text;
  EXPECT_EQ(TrialsJson(dir, "imports").size(), 1u);
}

TEST(RunMistakesTest, AWrongPackagePathIsRefusedBeforeAnythingRuns) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 2);
  std::filesystem::rename(dir + "/pkg", dir + "/elsewhere");
  const std::vector<std::vector<std::string>> commands = {
      {kHptune, "validate", config},
      {kHptune, "run", config, "--db", dir + "/h.db"}};
  for (const std::vector<std::string>& command : commands) {
    auto result = RunProcess(command);
    EXPECT_EQ(result.exit_code, 2) << command[1] << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr("trainingInput.packagePath: \"" + dir +
                                      "/pkg/trainer\" does not exist"))
        << command[1];
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/h.db"));
  // A module that is not in the package, the same.
  std::filesystem::rename(dir + "/elsewhere", dir + "/pkg");
  std::filesystem::remove(dir + "/pkg/trainer/task.py");
  auto module = RunProcess({kHptune, "validate", config});
  EXPECT_EQ(module.exit_code, 2) << module.err;
  EXPECT_THAT(module.err, HasSubstr("trainingInput.pythonModule: \"trainer."
                                    "task\" is not in"));
}

TEST(RunMistakesTest, ACommandThatCannotRunIsRefusedSayingWhy) {
  const std::string dir = testing::MakeTempDir();
  auto config_for = [&](const std::string& program) {
    const std::string config = dir + "/command.yaml";
    WriteFile(config,
              "trainingInput:\n"
              "  command: [" +
                  program +
                  "]\n"
                  "  hyperparameters:\n"
                  "    maxTrials: 1\n"
                  "    params:\n"
                  "    - {parameterName: x, type: DOUBLE, minValue: 0, "
                  "maxValue: 1}\n");
    return config;
  };
  // No exec bit.
  WriteFile(dir + "/train.py", "#!/usr/bin/env python3\nprint('x=1')\n");
  auto no_exec = RunProcess(
      {kHptune, "run", config_for(dir + "/train.py"), "--db", dir + "/h.db"});
  EXPECT_EQ(no_exec.exit_code, 2) << no_exec.err;
  EXPECT_THAT(no_exec.err,
              HasSubstr("is not executable: make it so (chmod +x " + dir +
                        "/train.py)"));
  // A #! interpreter that does not exist: not "no such file" of the script.
  WriteFile(dir + "/old.py", "#!/usr/bin/python2.4\nprint('x=1')\n");
  chmod((dir + "/old.py").c_str(), 0755);
  auto interpreter = RunProcess(
      {kHptune, "run", config_for(dir + "/old.py"), "--db", dir + "/h.db"});
  EXPECT_EQ(interpreter.exit_code, 2) << interpreter.err;
  EXPECT_THAT(interpreter.err,
              HasSubstr("the interpreter \"/usr/bin/python2.4\" of the #! "
                        "line of \"" +
                        dir + "/old.py\" does not exist"));
  // A program not on PATH.
  auto missing = RunProcess({kHptune, "validate", config_for("pythn3")});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_THAT(missing.err, AllOf(HasSubstr("trainingInput.command[0]"),
                                 HasSubstr("pythn3")));
  EXPECT_FALSE(std::filesystem::exists(dir + "/h.db"));
}

TEST(RunMistakesTest, ACtrlCdJobGoesOnFromItsResultsInANewJob) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 8, 0.5);
  std::vector<std::string> argv = RunArgs(dir, config, "first");
  argv.push_back("--quiet");
  const pid_t run = testing::StartProcess(argv, dir + "/out", dir + "/err");
  testing::StopOnExit stop(run);
  auto succeeded = [&] {
    int n = 0;
    auto list = RunProcess({kHptune, "trials", "list", "--study", "first",
                            "--db", dir + "/h.db", "--format", "json"});
    if (list.exit_code != 0) return 0;
    for (const auto& t : nlohmann::json::parse(list.out)) {
      n += t["state"] == "SUCCEEDED";
    }
    return n;
  };
  ASSERT_TRUE(testing::PollUntil([&] { return succeeded() >= 2; },
                                 std::chrono::seconds(60)))
      << testing::ReadFileOrEmpty(dir + "/err");
  kill(run, SIGINT);
  ASSERT_EQ(testing::WaitForExit(run, std::chrono::seconds(60)), 130);
  const std::string err = testing::ReadFileOrEmpty(dir + "/err");
  EXPECT_THAT(err, HasSubstr("job first CANCELLED"));
  EXPECT_THAT(err, HasSubstr("to go on from its results: hptune run " + config +
                             " --db " + dir +
                             "/h.db --job-id first_2 --resume-from first"));
  // The same ID again says how to go on.
  auto again = RunProcess(RunArgs(dir, config, "first"));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("job first already exists and has ended "
                                   "(CANCELLED); to go on from its results"));

  const int done = succeeded();
  std::vector<std::string> more = RunArgs(dir, config, "second");
  more.insert(more.end(), {"--resume-from", "first", "--max-trials", "2"});
  auto resumed = RunProcess(more);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json first = TrialsJson(dir, "first");
  const nlohmann::json second = TrialsJson(dir, "second");
  ASSERT_EQ(second.size(), static_cast<size_t>(done + 2)) << second.dump();
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i]["trialId"], std::to_string(i + 1));  // Dense, once.
    EXPECT_EQ(second[i]["state"], "SUCCEEDED");
  }
  // Its first trials are the first job's results, in order.
  int copied = 0;
  for (const nlohmann::json& t : first) {
    if (t["state"] != "SUCCEEDED") continue;
    EXPECT_EQ(second[copied]["hyperparameters"], t["hyperparameters"]);
    EXPECT_EQ(second[copied]["origin"],
              "resumed from first trial " + t["trialId"].get<std::string>());
    ++copied;
  }
  EXPECT_EQ(copied, done);
}

TEST(RunMistakesTest, AStudyExtendedFrom10To20TrialsKeepsItsFirst10) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 10);
  ASSERT_EQ(RunProcess(RunArgs(dir, config, "ten")).exit_code, 0);
  std::vector<std::string> more = RunArgs(dir, config, "twenty");
  more.insert(more.end(), {"--resume-from", "ten", "--max-trials", "10"});
  auto extended = RunProcess(more);
  ASSERT_EQ(extended.exit_code, 0) << extended.err;
  const nlohmann::json ten = TrialsJson(dir, "ten");
  const nlohmann::json twenty = TrialsJson(dir, "twenty");
  ASSERT_EQ(ten.size(), 10u);
  ASSERT_EQ(twenty.size(), 20u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(twenty[i]["hyperparameters"], ten[i]["hyperparameters"]) << i;
    EXPECT_EQ(twenty[i]["finalMetric"], ten[i]["finalMetric"]) << i;
  }
  // The new ten are new points.
  for (size_t i = 10; i < 20; ++i) {
    EXPECT_THAT(twenty[i]["origin"].get<std::string>(),
                Not(HasSubstr("resumed")))
        << i;
  }
  // Its own ID as the one to resume from is refused.
  std::vector<std::string> self = RunArgs(dir, config, "same");
  self.insert(self.end(), {"--resume-from", "same"});
  auto refused = RunProcess(self);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--resume-from: \"same\" is this job's "
                                     "own ID"));
  self.back() = "no such";
  auto malformed = RunProcess(self);
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_THAT(malformed.err, HasSubstr("--resume-from"));
}

// `hptune run` and `hptune jobs submit` apply the same flags in one way
// (src/cli/spec_overrides.h): the same bad value gets the same words, and
// submit says them before it looks for a server.
TEST(RunMistakesTest, RunAndSubmitRefuseABadOverrideInTheSameWords) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteStrictJob(dir, "accuracy", 2);
  const std::vector<std::vector<std::string>> cases = {
      {"--max-parallel-trials", "0"},
      {"--max-trials", "2000000"},
      {"--max-failed-trials", "many"},
      {"--resume-from", "same"},
      {"--command", "  "},
      {"--job-dir", ""},
      {"--labels", "Team=x"},
  };
  for (const std::vector<std::string>& flags : cases) {
    SCOPED_TRACE(flags[0] + " " + flags[1]);
    std::vector<std::string> run = RunArgs(dir, config, "same");
    run.insert(run.end(), flags.begin(), flags.end());
    std::vector<std::string> submit = {kHptune,    "jobs",       "submit",
                                       "same",     "--config",   config,
                                       "--server", "127.0.0.1:1"};
    submit.insert(submit.end(), flags.begin(), flags.end());
    const auto by_run = RunProcess(run);
    const auto by_submit = RunProcess(submit);
    EXPECT_EQ(by_run.exit_code, 2) << by_run.err;
    EXPECT_EQ(by_submit.exit_code, 2) << by_submit.err;
    const std::string said = by_run.err.substr(by_run.err.find(": ") + 2);
    EXPECT_THAT(
        said, HasSubstr(flags[0] == "--max-trials" ? "hyperparameters.maxTrials"
                                                   : flags[0]));
    EXPECT_EQ(by_submit.err.substr(by_submit.err.find(": ") + 2), said);
  }
}

TEST(RunMistakesTest, ABudgetTheGpBarelyUsesIsSaid) {
  const std::string dir = testing::MakeTempDir();
  WriteFile(dir + "/train.py", "print('loss=1')\n");
  const std::string config = dir + "/small.yaml";
  WriteFile(
      config,
      "trainingInput:\n"
      "  command: [python3, train.py]\n"
      "  hyperparameters:\n"
      "    maxTrials: 10\n"
      "    params:\n"
      "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"
      "    - {parameterName: y, type: DOUBLE, minValue: 0, maxValue: 1}\n");
  auto result = RunProcess({kHptune, "validate", config});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("the first 4 of 10 trials are quasi-random seeding; "
                        "the GP chooses the other 6"));
  EXPECT_THAT(result.err,
              HasSubstr("warning: trainingInput.hyperparameters.maxTrials "
                        "(10) leaves the GP 6 trials after its 4 seeding "
                        "trials: give maxTrials 14 or more"));
}

TEST(RunMistakesTest, TodaysGpuTypesValidate) {
  const std::string dir = testing::MakeTempDir();
  WriteFile(dir + "/train.py", "print('accuracy=1')\n");
  const std::string config = dir + "/h100.yaml";
  WriteFile(config,
            "trainingInput:\n"
            "  command: [python3, train.py]\n"
            "  scaleTier: CUSTOM\n"
            "  masterType: a3-highgpu-8g\n"
            "  masterConfig: {acceleratorConfig: {count: 8, type: "
            "NVIDIA_H100_80GB}}\n"
            "  workerType: g2-standard-48\n"
            "  workerCount: 2\n"
            "  workerConfig: {acceleratorConfig: {count: 4, type: NVIDIA_L4}}\n"
            "  hyperparameters:\n"
            "    maxTrials: 4\n"
            "    params:\n"
            "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: "
            "1}\n");
  auto result = RunProcess({kHptune, "validate", config});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  // A type on the wrong machine names the machines that take it.
  WriteFile(config,
            "trainingInput:\n"
            "  command: [python3, train.py]\n"
            "  scaleTier: CUSTOM\n"
            "  masterType: n1-standard-8\n"
            "  masterConfig: {acceleratorConfig: {count: 1, type: "
            "NVIDIA_H200_141GB}}\n"
            "  hyperparameters:\n"
            "    maxTrials: 4\n"
            "    params:\n"
            "    - {parameterName: x, type: DOUBLE, minValue: 0, "
            "maxValue: 1}\n");
  auto wrong = RunProcess({kHptune, "validate", config});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_THAT(wrong.err,
              AllOf(HasSubstr("NVIDIA_H200_141GB"), HasSubstr("a3-ultragpu-8g"),
                    Not(HasSubstr("unknown"))));
}

}  // namespace
}  // namespace hptune
