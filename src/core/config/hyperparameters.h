// Reading `trainingInput.hyperparameters` into a StudySpec.
//
// Private to config parsing. This pass checks the shape of the block (known
// fields, value types, which fields each parameter type takes); the rules on
// the values themselves are ValidateStudySpec's, run afterwards on the
// result, so that config files and API requests obey one set of rules.
#ifndef HPTUNE_SRC_CORE_CONFIG_HYPERPARAMETERS_H_
#define HPTUNE_SRC_CORE_CONFIG_HYPERPARAMETERS_H_

#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "src/core/config/reader.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {

struct HyperparametersRead {
  StudySpec spec;
  // Paths under which an error was already reported (a parameter with a bad
  // field, a value of the wrong type). What the spec holds there is a
  // default, not what the user wrote, so ValidateStudySpec's errors under
  // these paths would be noise and are dropped.
  std::vector<std::string> reported;
};

// `node` must be a mapping; `path` is its field path.
HyperparametersRead ReadHyperparameters(const ConfigNode& node,
                                        const std::string& path,
                                        ErrorSink& sink);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_HYPERPARAMETERS_H_
