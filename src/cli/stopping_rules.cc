#include "src/cli/stopping_rules.h"

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/stopping_settings.h"
#include "hptune/core/study.h"

namespace hptune::cli {
namespace {

// Where the config gave the study's settings block.
std::string SettingsPath(const JobSpec& job) {
  const StoppingSettings& settings = job.study->stopping_settings;
  if (job.dialect != SpecDialect::kVertex) {
    return absl::StrCat("trainingInput.hyperparameters.",
                        std::string(settings.Field()));
  }
  return settings.rule == kConvexStoppingRule
             ? "studySpec.convexAutomatedStoppingSpec"
             : absl::StrCat("studySpec.", std::string(settings.Field()));
}

}  // namespace

std::string_view EarlyStoppingHelp() {
  static const std::string* const kHelp = [] {
    const algorithms::StoppingRuleRegistry rules =
        algorithms::StoppingRuleRegistry::WithBuiltins();
    auto* help = new std::string("stop trials early by RULE: ");
    std::string separator;
    for (const std::string& name : rules.Names()) {
      absl::StrAppend(help, separator, name, " (", rules.Description(name),
                      ")");
      separator = ", ";
    }
    absl::StrAppend(help, "; a server may know more");
    return help;
  }();
  return *kHelp;
}

std::vector<FieldError> StoppingSettingsErrors(const JobSpec& job) {
  if (!job.study || !job.study->enable_early_stopping) return {};
  const StudySpec& study = *job.study;
  const absl::Status status =
      algorithms::StoppingRuleRegistry::WithBuiltins().CheckSettings(
          study.EffectiveStoppingRule(), study.stopping_settings);
  if (status.ok() || absl::IsNotFound(status)) return {};
  // The factory's "NAME: PROBLEM" names the setting.
  const std::string message(status.message());
  const size_t colon = message.find(": ");
  if (colon == std::string::npos)
    return {FieldError{SettingsPath(job), message}};
  return {
      FieldError{absl::StrCat(SettingsPath(job), ".", message.substr(0, colon)),
                 message.substr(colon + 2)}};
}

}  // namespace hptune::cli
