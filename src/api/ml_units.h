// A job's trainingOutput.consumedMLUnits (docs/rest.md, "ML units"): AI
// Platform reports the ML units a job consumed; hptune's are replica-hours,
// the hours each ended trial ran (start to end, as stored) times the
// replicas one trial of the job starts (master, workers, parameter servers
// and evaluators). Trials still running count once they end. Used by
// JobToProto. Pure function; thread-safe.
#ifndef HPTUNE_SRC_API_ML_UNITS_H_
#define HPTUNE_SRC_API_ML_UNITS_H_

#include <vector>

#include "hptune/core/job.h"
#include "hptune/core/trial.h"

namespace hptune::api {

// The replicas one trial of `job` starts.
int ReplicasPerTrial(const JobSpec& job);

// Replica-hours of the trials that started and ended.
double ConsumedMlUnits(const JobSpec& job, const std::vector<Trial>& trials);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_ML_UNITS_H_
