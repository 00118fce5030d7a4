// Reading a config's top-level `labels:` mapping (AI Platform's Job.labels,
// beside trainingInput) into a JobSpec's labels:
//
//   labels:
//     team: vision
//     owner: ana
//   trainingInput: ...
//
// Private to config parsing. ValidateJobLabels (hptune/core/config.h), which
// the API edge and the CLI use as well, is defined here.
#ifndef HPTUNE_SRC_CORE_CONFIG_LABELS_H_
#define HPTUNE_SRC_CORE_CONFIG_LABELS_H_

#include "hptune/core/job.h"
#include "src/core/config/reader.h"

namespace hptune::config_internal {

// Reads `labels` of the root mapping, when present, reporting a value that
// is not a string, a repeated key and what ValidateJobLabels refuses, each
// at the label it is about.
void ReadLabels(MapReader& root, JobLabels* labels);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_LABELS_H_
