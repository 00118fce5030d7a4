// Every input has a size limit, refused with an error that names the field
// and says the limit, never a value echoed back whole (docs/config.md,
// "Limits"): the file itself, YAML alias bombs, names and value lists, and
// the trainer's command line as exec(2) must take it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Config(const std::string& params) {
  return "trainingInput:\n"
         "  command: [python3, train.py]\n"
         "  hyperparameters:\n"
         "    hyperparameterMetricTag: loss\n"
         "    params:\n" +
         params;
}

std::vector<std::string> Messages(const ConfigParseResult& result) {
  std::vector<std::string> out;
  for (const FieldError& e : result.errors) out.push_back(e.ToString());
  return out;
}

TEST(InputLimitsTest, AYamlAliasBombIsRefusedQuicklyNotExpanded) {
  // Nine levels of ten aliases stand for 10^9 strings in 800 bytes.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 9; ++level) {
    const std::string prev = "*a" + std::to_string(level - 1);
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) +
            " [" + prev;
    for (int i = 1; i < 10; ++i) text += ", " + prev;
    text += "]\n";
  }
  text += Config(
      "    - {parameterName: x, type: DOUBLE, minValue: 0, "
      "maxValue: 1}\n");
  ConfigParseResult result = ParseJobConfig(text);
  EXPECT_THAT(Messages(result),
              ElementsAre(HasSubstr("more than 250000 values (YAML aliases "
                                    "count once for each place that refers "
                                    "to them)")));
  EXPECT_FALSE(result.job.has_value());
}

TEST(InputLimitsTest, AConfigOverFourMebibytesIsRefusedBeforeParsing) {
  const std::string text =
      Config(
          "    - {parameterName: x, type: DOUBLE, minValue: 0, "
          "maxValue: 1}\n") +
      "# " + std::string(4 << 20, 'x') + "\n";
  EXPECT_THAT(Messages(ParseJobConfig(text)),
              ElementsAre("(config): must be at most 4 MiB, got " +
                          std::to_string(text.size()) + " bytes"));
  // From a file too: tests/runner/config_file_test.cc.
}

TEST(InputLimitsTest, NamesAndValueListsHaveLimitsAndAreNotEchoedWhole) {
  const std::string long_name(1 << 20, 'n');
  std::string categorical = "[";
  for (int i = 0; i < 1001; ++i) {
    categorical += (i ? ", v" : "v") + std::to_string(i);
  }
  categorical += "]";
  ConfigParseResult result = ParseJobConfig(Config(
      "    - {parameterName: " + long_name +
      ", type: DOUBLE, minValue: 0, maxValue: 1}\n"
      "    - {parameterName: c, type: CATEGORICAL, categoricalValues: " +
      categorical +
      "}\n"
      "    - {parameterName: d, type: CATEGORICAL, categoricalValues: [a, " +
      std::string(300, 'b') + "]}\n"));
  std::vector<std::string> messages = Messages(result);
  EXPECT_THAT(
      messages,
      ElementsAre("trainingInput.hyperparameters.params[0].parameterName: "
                  "must be at most 128 characters, got 1048576",
                  "trainingInput.hyperparameters.params[1].categoricalValues: "
                  "must have at most 1000 values, got 1001",
                  "trainingInput.hyperparameters.params[2]."
                  "categoricalValues[1]: must be at most 256 characters, got "
                  "300"));
}

// Each error names the field and shows the start of what it refuses, never
// megabytes of it: a server sends the message back whole.
TEST(InputLimitsTest, AHugeLabelIsNamedNotEchoed) {
  // JSON: YAML itself refuses a plain key over 1024 characters.
  const std::string huge(1 << 20, 'v');
  ConfigParseResult result = ParseJobConfig(
      R"({"labels": {"team": ")" + huge + R"(", ")" + huge +
      R"(": "x"}, "trainingInput": {"command": ["python3", "train.py"],)"
      R"( "hyperparameters": {"hyperparameterMetricTag": "loss", "params":)"
      R"( [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,)"
      R"( "maxValue": 1}]}}})");
  std::vector<std::string> messages = Messages(result);
  ASSERT_THAT(messages, SizeIs(2));
  for (const std::string& message : messages) {
    EXPECT_LT(message.size(), 1000u) << message.substr(0, 1000);
    EXPECT_THAT(message, HasSubstr("... (1048576 bytes)"));
  }
  EXPECT_THAT(messages[0], HasSubstr("labels.team: value \"vvv"));
  EXPECT_THAT(messages[1],
              HasSubstr("labels." + std::string(63, 'v') + "...: key \"vvv"));
}

TEST(InputLimitsTest, TheMetricTagHasALimit) {
  StudySpec spec;
  spec.SetSingleMetric(std::string(257, 'm'));
  spec.search_space = SearchSpace(
      {{.name = "x", .type = ParameterType::kDouble, .max_value = 1}});
  EXPECT_THAT(ValidateStudySpec(spec, "s"),
              ElementsAre(FieldError{"s.hyperparameterMetricTag",
                                     "must be at most 256 characters, got "
                                     "257"}));
}

TEST(InputLimitsTest, TheTrainerCommandLineMustFitExec) {
  JobSpec job;
  job.command = {"python3", "train.py"};
  EXPECT_THAT(ValidateTrainerCommandLine(job, "trainingInput"), IsEmpty());

  job.args = {"--ok", std::string(128 * 1024, 'a')};
  EXPECT_THAT(ValidateTrainerCommandLine(job, "trainingInput"),
              ElementsAre(FieldError{
                  "trainingInput.args[1]",
                  "must be shorter than 128 KiB (exec's limit on one "
                  "argument), got 131072 bytes"}));

  job.args.assign(10'001, "--x");
  EXPECT_THAT(ValidateTrainerCommandLine(job, "trainingInput"),
              ElementsAre(FieldError{
                  "trainingInput.args",
                  "the trainer's command line must have at most 10000 "
                  "arguments, got 10003"}));

  job.args.assign(20, std::string(100 * 1024, 'a'));
  std::vector<FieldError> errors =
      ValidateTrainerCommandLine(job, "trainingInput");
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_THAT(errors[0].message,
              HasSubstr("the trainer's command line must be at most 1 MiB"));
}

// `hptune validate` refuses what `hptune run` would: the parser applies
// exec's limits, and a path's.
TEST(InputLimitsTest, AConfigPastExecsOrAPathsLimitIsInvalid) {
  const std::string params =
      "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  std::string config = Config(params);
  config.insert(config.find("  hyperparameters"),
                "  args: [" + std::string(128 * 1024, 'a') + "]\n" +
                    "  jobDir: /" + std::string(4095, 'd') + "\n");
  EXPECT_THAT(Messages(ParseJobConfig(config)),
              ElementsAre(HasSubstr("trainingInput.args[0]: must be shorter "
                                    "than 128 KiB"),
                          "trainingInput.jobDir: must be at most 4095 bytes "
                          "(a path's limit), got 4096"));
}

}  // namespace
}  // namespace hptune
