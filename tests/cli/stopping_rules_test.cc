#include "src/cli/stopping_rules.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/config.h"

namespace hptune::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The errors of a config's stopping settings, read by the real parser.
std::vector<std::string> Errors(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kYaml);
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors) {
    lines.push_back("parser: " + error.ToString());
  }
  if (result.job) {
    for (const FieldError& error : StoppingSettingsErrors(*result.job)) {
      lines.push_back(error.ToString());
    }
  }
  return lines;
}

// An AI Platform config with `fields` in its hyperparameters block.
std::string Config(std::string_view fields) {
  return "trainingInput:\n"
         "  masterConfig: {imageUri: 'python:3.11'}\n"
         "  hyperparameters:\n" +
         std::string(fields) +
         "    params:\n"
         "    - {parameterName: lr, type: DOUBLE, minValue: 0.1, "
         "maxValue: 1}\n";
}

// The same as Vertex AI's, with `study` in its studySpec.
std::string VertexConfig(std::string_view study) {
  return "maxTrialCount: 4\n"
         "studySpec:\n"
         "  metrics:\n"
         "  - {metricId: accuracy, goal: MAXIMIZE}\n"
         "  parameters:\n"
         "  - parameterId: lr\n"
         "    doubleValueSpec: {minValue: 0.01, maxValue: 1.0}\n" +
         std::string(study) +
         "trialJobSpec:\n"
         "  workerPoolSpecs:\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    containerSpec: {imageUri: 'python:3.11'}\n";
}

// The rule's factory checks its settings, and the error names the field the
// config gave them in.
TEST(StoppingSettingsErrorsTest, NameTheConfigsField) {
  EXPECT_THAT(Errors(Config("    earlyStoppingRule: convex\n"
                            "    convexStopping: {maxStepCount: '900', "
                            "minStepCount: 100}\n")),
              IsEmpty());
  EXPECT_THAT(Errors(Config("    earlyStoppingRule: convex\n"
                            "    convexStopping: {minMeasurementCount: 1}\n")),
              ElementsAre("trainingInput.hyperparameters.convexStopping."
                          "minMeasurementCount: must be 2 to 1000, got 1"));
  EXPECT_THAT(Errors(Config("    earlyStoppingRule: convex\n"
                            "    convexStopping: {maxSteps: 9}\n")),
              ElementsAre(HasSubstr("trainingInput.hyperparameters."
                                    "convexStopping.maxSteps: not a setting "
                                    "of this rule; its settings: maxStepCount, "
                                    "minMeasurementCount, minStepCount")));
  EXPECT_THAT(Errors(Config("    earlyStoppingRule: asha\n"
                            "    earlyStoppingSettings: {rungs: 3}\n")),
              ElementsAre("trainingInput.hyperparameters.earlyStoppingSettings"
                          ".rungs: not a setting of this rule; its settings: "
                          "none"));
  EXPECT_THAT(
      Errors(VertexConfig("  convexAutomatedStoppingSpec: "
                          "{minMeasurementCount: 1}\n")),
      ElementsAre("studySpec.convexAutomatedStoppingSpec.minMeasurementCount: "
                  "must be 2 to 1000, got 1"));
  EXPECT_THAT(
      Errors(VertexConfig("  medianAutomatedStoppingSpec: {}\n"
                          "  earlyStoppingSettings: {warmupSteps: 8}\n")),
      IsEmpty());
  EXPECT_THAT(
      Errors(VertexConfig("  medianAutomatedStoppingSpec: {}\n"
                          "  earlyStoppingSettings: {warmupSteps: -1}\n")),
      ElementsAre("studySpec.earlyStoppingSettings.warmupSteps: must be 0 to "
                  "1000000000000, got -1"));
  // A rule hptune lacks may be a server's: its settings are the server's to
  // check.
  EXPECT_THAT(Errors(Config("    earlyStoppingRule: theirs\n"
                            "    earlyStoppingSettings: {rungs: 3}\n")),
              IsEmpty());
}

// The help lists every rule the registry holds, with its description.
TEST(EarlyStoppingHelpTest, ReadsTheRegistry) {
  const algorithms::StoppingRuleRegistry rules =
      algorithms::StoppingRuleRegistry::WithBuiltins();
  for (const std::string& name : rules.Names()) {
    EXPECT_THAT(std::string(EarlyStoppingHelp()),
                HasSubstr(name + " (" + rules.Description(name) + ")"));
  }
}

}  // namespace
}  // namespace hptune::cli
