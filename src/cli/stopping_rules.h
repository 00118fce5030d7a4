// hptune's early-stopping rules as the CLI shows and checks them: the help
// of --early-stopping, and a config's rule settings checked by the rule's
// own factory (StoppingRuleRegistry::WithBuiltins()), which the config
// parser cannot call (core knows no rule).
//
// Used by `hptune run`, `hptune validate` and the flag table. Thread-safe.
#ifndef HPTUNE_SRC_CLI_STOPPING_RULES_H_
#define HPTUNE_SRC_CLI_STOPPING_RULES_H_

#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune::cli {

// "stop trials early by RULE: NAME (DESCRIPTION), ...; a server may know
// more", from the registry.
std::string_view EarlyStoppingHelp();

// The errors of `job`'s stopping settings, each at the config field of the
// setting ("trainingInput.hyperparameters.convexStopping.minMeasurementCount",
// or Vertex's "studySpec.convexAutomatedStoppingSpec..."); none when early
// stopping is off or the rule is not one of hptune's (a server may know it).
std::vector<FieldError> StoppingSettingsErrors(const JobSpec& job);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_STOPPING_RULES_H_
