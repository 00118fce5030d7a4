// Runs the real `hptune validate` on the example configs and the broken test
// configs: exit codes, the summary, and every expected error line on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string SourcePath(const std::string& relative) {
  return std::string(HPTUNE_SOURCE_DIR) + "/" + relative;
}

testing::ProcessResult Validate(std::vector<std::string> args) {
  args.insert(args.begin(), {HPTUNE_BINARY, "validate"});
  return testing::RunProcess(args);
}

std::vector<std::string> Lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ValidateCliTest, ContractExampleIsValidAndSummarised) {
  testing::ProcessResult result =
      Validate({SourcePath("examples/configs/mnist_custom.yaml")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, IsEmpty());
  EXPECT_THAT(result.out, HasSubstr("mnist_custom.yaml: valid"));
  EXPECT_THAT(result.out,
              HasSubstr("labels            project=mnist, team=vision"));
  EXPECT_THAT(result.out, HasSubstr("scale tier        CUSTOM"));
  EXPECT_THAT(result.out,
              HasSubstr("worker  9      n1-highcpu-16  16     14.4 GB  "
                        "4 x NVIDIA_TESLA_T4"));
  EXPECT_THAT(result.out,
              HasSubstr("time limits       cancelled if no trial runs within "
                        "3600s; cancelled after running 86400s"));
  EXPECT_THAT(result.out, HasSubstr("goal              MAXIMIZE accuracy"));
  EXPECT_THAT(result.out,
              HasSubstr("algorithm         ALGORITHM_UNSPECIFIED (hptune's "
                        "default: Gaussian process BO)"));
  EXPECT_THAT(
      result.out,
      HasSubstr("budget            30 trials, 2 in parallel, stop after "
                "3 failed"));
  EXPECT_THAT(result.out, HasSubstr("lr         DOUBLE       [1e-05, 0.1]  "
                                    "UNIT_LOG_SCALE"));
  EXPECT_THAT(result.out, HasSubstr("cell       CATEGORICAL  {GRU, LSTM}   -"));
}

// The summary names the Python that will run the trainer, not python3.
TEST(ValidateCliTest, ThePythonInterpreterIsTheTrainerShown) {
  const std::string config = ::testing::TempDir() + "/interpreter.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  pythonModule: trainer.task\n"
                           "  pythonInterpreter: /usr/bin/python3\n"
                           "  hyperparameters:\n"
                           "    goal: MINIMIZE\n"
                           "    hyperparameterMetricTag: loss\n"
                           "    maxTrials: 1\n"
                           "    params:\n"
                           "    - {parameterName: x, type: DOUBLE, minValue: "
                           "0, maxValue: 1}\n";
  testing::ProcessResult result = Validate({config});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("trainer           /usr/bin/python3 -m trainer.task"));
}

TEST(ValidateCliTest, JsonGridExampleIsValid) {
  testing::ProcessResult result = Validate(
      {SourcePath("examples/configs/basic_grid.json"), "--job-id", "grid_1"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("job ID            grid_1"));
  EXPECT_THAT(result.out, HasSubstr("GRID_SEARCH"));
}

TEST(ValidateCliTest, VertexExamplesAreValidAndSummarised) {
  testing::ProcessResult container =
      Validate({SourcePath("examples/vertex/container_job.yaml")});
  EXPECT_EQ(container.exit_code, 0) << container.err;
  EXPECT_THAT(container.err, IsEmpty());
  EXPECT_THAT(container.out, HasSubstr("container_job.yaml: valid"));
  EXPECT_THAT(container.out,
              HasSubstr("display name      stdlib trainer in a container"));
  EXPECT_THAT(container.out, HasSubstr("dialect           VERTEX"));
  EXPECT_THAT(container.out,
              HasSubstr("trainer           image "
                        "localhost/hptune-stdlib-trainer:latest: python3 -m "
                        "trainer.task --steps=300 --eval_every=20"));
  EXPECT_THAT(container.out, HasSubstr("output directory  " +
                                       SourcePath("examples/vertex/outputs")));
  EXPECT_THAT(container.out, HasSubstr("goal              MINIMIZE loss"));

  testing::ProcessResult package =
      Validate({SourcePath("examples/vertex/python_package_job.yaml")});
  EXPECT_EQ(package.exit_code, 0) << package.err;
  EXPECT_THAT(package.out,
              HasSubstr("image python:3.11-slim: python3 -m trainer.task "
                        "(packages " +
                        SourcePath("examples/stdlib_trainer/trainer")));
  EXPECT_THAT(package.out, HasSubstr("early stopping    on, median"));
}

TEST(ValidateCliTest, AVertexSpecsIgnoredFieldsAreNamedAndItsErrorsListed) {
  const std::string dir = ::testing::TempDir();
  const std::string good = dir + "/vertex_ignored.yaml";
  std::ofstream(good) << "studySpec:\n"
                         "  metrics: [{metricId: acc, goal: MAXIMIZE}]\n"
                         "  parameters: [{parameterId: x, doubleValueSpec: "
                         "{minValue: 0, maxValue: 1}}]\n"
                         "trialJobSpec:\n"
                         "  serviceAccount: sa@p.iam.gserviceaccount.com\n"
                         "  workerPoolSpecs:\n"
                         "  - machineSpec: {machineType: n1-standard-4}\n"
                         "    containerSpec: {imageUri: 'python:3.11'}\n";
  testing::ProcessResult ok = Validate({good});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.err, HasSubstr("note: accepted and ignored here: "
                                "trialJobSpec.serviceAccount"));
  const std::string bad = dir + "/vertex_bad.json";
  std::ofstream(bad)
      << R"({"studySpec": {"metrics": [{"metricId": "a", "goal": "MAXIMIZE"}],
    "parameters": [{"parameterId": "x"}]},
  "trialJobSpec": {"workerPoolSpecs": [{"machineSpec":
    {"machineType": "n1-standard-4"}, "containerSpec": {}}]}})";
  testing::ProcessResult errors = Validate({bad});
  EXPECT_EQ(errors.exit_code, 2);
  EXPECT_EQ(errors.err,
            "studySpec.parameters[0]: needs one of doubleValueSpec, "
            "integerValueSpec, discreteValueSpec or categoricalValueSpec\n"
            "trialJobSpec.workerPoolSpecs[0].containerSpec.imageUri: "
            "required\n" +
                bad + ": 2 errors\n");
}

class BrokenConfigCliTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenConfigCliTest, PrintsEveryErrorAndExits2) {
  const std::string base = "tests/core/testdata/" + GetParam();
  testing::ProcessResult result = Validate({SourcePath(base + ".yaml")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.out, IsEmpty());
  std::ifstream golden(SourcePath(base + ".errors"));
  std::ostringstream expected;
  expected << golden.rdbuf();
  const std::vector<std::string> expected_lines = Lines(expected.str());
  ASSERT_THAT(expected_lines, Not(IsEmpty()));
  std::vector<std::string> printed = Lines(result.err);
  ASSERT_EQ(printed.size(), expected_lines.size() + 1) << result.err;
  for (size_t i = 0; i < expected_lines.size(); ++i) {
    EXPECT_EQ(printed[i], expected_lines[i]);
  }
  EXPECT_THAT(printed.back(), HasSubstr(GetParam() + ".yaml: "));
}

INSTANTIATE_TEST_SUITE_P(Files, BrokenConfigCliTest,
                         ::testing::Values("broken_types", "broken_rules",
                                           "broken_machines", "broken_syntax"));

TEST(ValidateCliTest, InvalidJobIdIsAConfigError) {
  testing::ProcessResult result = Validate(
      {SourcePath("examples/configs/basic_grid.json"), "--job-id=my-job"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err,
              HasSubstr("jobId: must contain only letters, digits and "
                        "underscores, got \"my-job\"\n"));
}

// A "billion laughs" config (nine levels of ten aliases: 10^9 strings in
// 800 bytes) is refused at once; the binary does not expand it.
TEST(ValidateCliTest, AYamlAliasBombIsRefusedNotExpanded) {
  const std::string path = testing::MakeTempDir() + "/bomb.yaml";
  {
    std::ofstream bomb(path);
    bomb << "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int level = 1; level <= 9; ++level) {
      const std::string prev = "*a" + std::to_string(level - 1);
      bomb << "a" << level << ": &a" << level << " [" << prev;
      for (int i = 1; i < 10; ++i) bomb << ", " << prev;
      bomb << "]\n";
    }
    bomb << "trainingInput: {hyperparameters: {goal: MAXIMIZE, "
            "hyperparameterMetricTag: acc, maxTrials: 1, params: "
            "[{parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}]}}\n";
  }
  testing::ProcessResult result = Validate({path});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("more than 250000 values (YAML aliases "
                                    "count once for each place that refers "
                                    "to them)"));
}

TEST(ValidateCliTest, UnreadableFileIsAConfigError) {
  testing::ProcessResult result = Validate({"/nonexistent/config.yaml"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot read /nonexistent/config.yaml: No "
                                    "such file or directory"));
}

TEST(ValidateCliTest, BadUsageExits64WithUsage) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {}, {"--bogus", "x.yaml"}, {"a.yaml", "b.yaml"}, {"--job-id"}}) {
    testing::ProcessResult result = Validate(args);
    EXPECT_EQ(result.exit_code, 64);
    EXPECT_THAT(result.err,
                HasSubstr("usage: hptune validate CONFIG [--job-id ID]"));
  }
}

TEST(ValidateCliTest, HelpPrintsUsageAndExits0) {
  testing::ProcessResult result = Validate({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out,
              HasSubstr("usage: hptune validate CONFIG [--job-id ID]"));
}

}  // namespace
}  // namespace hptune
