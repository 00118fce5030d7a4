// Reading `trainingInput` (all but the hyperparameters block) into a JobSpec:
// scale tier, task pools with machine types and accelerators, the trainer.
//
// Private to config parsing.
#ifndef HPTUNE_SRC_CORE_CONFIG_TRAINING_INPUT_H_
#define HPTUNE_SRC_CORE_CONFIG_TRAINING_INPUT_H_

#include <string>

#include "hptune/core/job.h"
#include "hptune/core/machine_types.h"
#include "src/core/config/reader.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {

// `node` must be a mapping, at path "trainingInput". Fills `job` and returns
// the hyperparameters node (nullptr when absent), which the caller reads.
// With a `catalogue`, ValidateJob's rules on the values are checked too;
// without, the shape alone (text hptune wrote).
const ConfigNode* ReadTrainingInput(const ConfigNode& node,
                                    const MachineCatalogue* catalogue,
                                    ErrorSink& sink, JobSpec* job);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_TRAINING_INPUT_H_
