// Every rule of docs/config.md that a job's typed values can be judged on,
// whatever the job was written in: a config file (ParseJobConfig calls
// ValidateJob's rules and places each error at its field in the file), a
// config with command-line flags applied (`hptune run`, `jobs submit`), or
// an API request. Errors name the config's field paths
// (trainingInput.masterConfig.imageUri, trainingInput.hyperparameters.
// maxTrials, ...), so that every entry point reports a rule the same way.
//
// What only text can tell (a field of the wrong kind, an unknown field, an
// empty string where a value is required) stays with the text reader.
// Pure functions; thread-safe.
#ifndef HPTUNE_CORE_JOB_VALIDATION_H_
#define HPTUNE_CORE_JOB_VALIDATION_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {

class MachineCatalogue;  // hptune/core/machine_types.h

// ValidateJob's bounds on counts (a reader refuses only what an int cannot
// hold, kMaxIntCount, as AI Platform's int64 fields can hold anything). A
// replica count: far above any real job, low enough to catch a typo before
// a launcher is asked for a million processes.
inline constexpr int kMaxReplicaCount = 1000;
// GPUs per replica: the most any machine type takes is 16 (a2-megagpu-16g);
// a bound well above that keeps counts in int range without limiting
// user-added types.
inline constexpr int kMaxAcceleratorCount = 64;
// The largest count a JobSpec holds, the readers' bound on an int64.
inline constexpr int64_t kMaxIntCount = std::numeric_limits<int>::max();

// Every error of `job`, in the order of its canonical JSON's fields: the job
// ID (when set), the task pools (machine types and accelerators from
// `catalogue` for a CUSTOM tier, containers, a pool a tier has not), the
// trainer (one of command and pythonModule, packagePath with something to
// run, an absolute pythonInterpreter, jobDir's length, exec's limits on the
// command line), displayName, baseOutputDirectory, the study
// (ValidateStudySpec, a job that resumes itself) and the labels.
std::vector<FieldError> ValidateJob(const JobSpec& job,
                                    const MachineCatalogue& catalogue);
// The same with MachineCatalogue::Builtin().
std::vector<FieldError> ValidateJob(const JobSpec& job);

// What a job's fields imply, as a config's reader fills it in: a tier other
// than CUSTOM stands for its pools' machines (each pool keeps its container
// and environment), and a pool with replicas and no image of its own runs
// the master's (AI Platform's rule).
void CompleteJob(JobSpec& job);

}  // namespace hptune

#endif  // HPTUNE_CORE_JOB_VALIDATION_H_
