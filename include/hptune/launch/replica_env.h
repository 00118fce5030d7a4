// What each replica of a trial sees: its argv and environment
// (CONTRACTS.md section 2), built from the job, the trial and the placement.
//
// The job runner calls ReplicaRequests() to ask a Launcher for a placement,
// then BuildTrialLaunch() to get the TrialLaunch to start. Pure functions of
// their inputs, shared by every backend.
#ifndef HPTUNE_LAUNCH_REPLICA_ENV_H_
#define HPTUNE_LAUNCH_REPLICA_ENV_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/search_space.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

// The replicas of one trial, in the order master, workers, parameter servers,
// evaluators, with the GPUs each task type's acceleratorConfig asks for.
std::vector<ReplicaRequest> ReplicaRequests(const JobSpec& job);

struct TrialContext {
  const JobSpec* job = nullptr;
  // The job's trainingInput as JSON: TF_CONFIG's "job".
  std::string training_input_json;
  int64_t trial = 0;
  ParameterAssignment parameters;
  std::string metric_tag;  // CLOUD_ML_HP_METRIC_TAG.
  // Base of --job-dir: each replica gets --job-dir=<job_dir>/<trial>.
  std::filesystem::path job_dir;
  // hptune's own files for this trial: <type>-<index>.log and
  // <type>-<index>.metrics (CLOUD_ML_HP_METRIC_FILE).
  std::filesystem::path trial_dir;
};

// The per-replica file names under trial_dir, e.g. "worker-1.log".
std::string ReplicaName(TaskType type, int index);
std::filesystem::path ReplicaLogPath(const std::filesystem::path& trial_dir,
                                     TaskType type, int index);
std::filesystem::path ReplicaMetricsPath(const std::filesystem::path& trial_dir,
                                         TaskType type, int index);

// argv and environment of every replica. `placement` holds one entry per
// request of ReplicaRequests(*context.job), in the same order.
// InvalidArgument when the job has no command.
absl::StatusOr<TrialLaunch> BuildTrialLaunch(
    const TrialContext& context, const std::vector<ReplicaRequest>& requests,
    const std::vector<ReplicaPlacement>& placement);

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_REPLICA_ENV_H_
