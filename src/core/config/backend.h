// The config's backend block: which launcher runs the trials and the Slurm
// options, beside trainingInput (an hptune extension; AI Platform has none):
//
//   backend: slurm          # local (the default) or slurm
//   slurm:
//     partition: gpu
//     account: ml
//     time: "2:00:00"       # sbatch --time
//     options: [--qos=high] # more sbatch options, one per element
//   trainingInput: ...
//
// Private to config parsing (ParseJobConfig reads it into
// ConfigParseResult::backend). Pure functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_BACKEND_H_
#define HPTUNE_SRC_CORE_CONFIG_BACKEND_H_

#include "hptune/core/config.h"
#include "src/core/config/reader.h"

namespace hptune::config_internal {

// Reads `backend` and `slurm` of the root mapping into *backend, reporting
// a backend other than local or slurm, and a slurm block's unknown fields
// and what ValidateSlurmJobOptions refuses.
void ReadBackend(MapReader& root, BackendConfig* backend);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_BACKEND_H_
