// What each replica of a trial sees: its argv and environment
// (docs/trainer.md), built from the job, the trial and the placement.
//
// The job runner calls ReplicaRequests() to ask a Launcher for a placement,
// then BuildTrialLaunch() to get the TrialLaunch to start. Pure functions of
// their inputs (the one exception is documented at TrialContext::
// base_pythonpath), shared by every backend; thread-safe.
//
// PyTorch rendezvous: MASTER_ADDR/MASTER_PORT are the master's address and
// WORLD_SIZE is 1 + the worker count, because torch.distributed's process
// group is the master (RANK 0) and the workers (RANK i + 1). Parameter
// servers and evaluators are TensorFlow roles with no place in that group:
// they see MASTER_ADDR, MASTER_PORT and WORLD_SIZE but no RANK, so a trainer
// that calls init_process_group() on one fails loudly instead of joining with
// a rank that collides with a worker's.
#ifndef HPTUNE_LAUNCH_REPLICA_ENV_H_
#define HPTUNE_LAUNCH_REPLICA_ENV_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/search_space.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

// The replicas of one trial, in the order master, workers, parameter servers,
// evaluators, with the GPUs each task type's acceleratorConfig asks for (or,
// for the legacy machine types with GPUs built in such as standard_gpu, the
// GPUs of the builtin machine catalogue).
std::vector<ReplicaRequest> ReplicaRequests(const JobSpec& job);

// "master 0", then where its pool is written when the request says:
// "worker 1 (trialJobSpec.workerPoolSpecs[1])", for errors.
std::string DescribeReplica(const ReplicaRequest& request);

// The task type as TF_CONFIG names it: "master" ("chief" when the job sets
// useChiefInTfConfig), "worker", "ps", "evaluator".
std::string_view TfConfigTaskType(TaskType type, bool use_chief = false);

struct TrialContext {
  const JobSpec* job = nullptr;
  // The job's trainingInput as JSON: TF_CONFIG's "job". Empty: written
  // from *job with TrainingInputToJson.
  std::string training_input_json;
  int64_t trial = 0;
  ParameterAssignment parameters;
  std::string metric_tag;  // CLOUD_ML_HP_METRIC_TAG.
  // The job's jobDir: each replica gets --job-dir=<job_dir>/<trial>, and
  // none when it is empty (as gcloud).
  std::filesystem::path job_dir;
  // hptune's own files for this trial: <type>-<index>.log and
  // <type>-<index>.metrics (CLOUD_ML_HP_METRIC_FILE).
  std::filesystem::path trial_dir;
  // Freeze-thaw (hptune/core/trial_resume.h): the first trial of the line
  // this one continues, whose checkpoints/ it loads and writes, and that
  // trial's own directory (as trial_dir); 0 for a trial of its own.
  int64_t checkpoint_trial = 0;
  std::filesystem::path checkpoint_trial_dir;
  // Where the job's relative paths (packagePath, jobDir,
  // baseOutputDirectory) are taken from: the runner's working directory
  // (Env::WorkingDirectory). Replicas run in their trial's directory, so
  // each path they are given is made absolute against this one; empty
  // leaves a relative path as it is.
  std::filesystem::path working_dir;
  // The local root of gs:// paths (JobRunnerOptions::gcs_root), bound at
  // /gcs in a container replica (ReplicaContainer::gcs_root); empty: none.
  std::filesystem::path gcs_root;
  // The PYTHONPATH a `python3 -m module` trainer would inherit; the
  // package's parent directory goes in front of it. nullopt reads this
  // process's PYTHONPATH (what a local replica inherits); tests pin it.
  std::optional<std::string> base_pythonpath;
};

// A trial's output directories in Vertex AI's names (AIP_MODEL_DIR,
// AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR): model/, checkpoints/ and
// logs/ under <baseOutputDirectory>/<trial> for a Vertex job that names
// one, else under <job_dir>/<trial> when the job has a jobDir, else under
// the trial's own directory; absolute, each ending in '/', as Vertex AI's
// do. A continuation's checkpoints/ is its checkpoint_trial's.
// `local` is false for a URL (gs://...), which hptune cannot create.
struct AipDirs {
  std::string model;
  std::string checkpoint;
  std::string tensorboard;
  bool local = true;
};
AipDirs TrialOutputDirs(const TrialContext& context);

// The replica's name, e.g. "worker-1", and its files under trial_dir
// (hptune/core/runs_layout.h). The type is TF_CONFIG's (TfConfigTaskType),
// so a chief's log is "chief-0.log".
std::string ReplicaName(TaskType type, int index, bool use_chief = false);
std::filesystem::path ReplicaLogPath(const std::filesystem::path& trial_dir,
                                     TaskType type, int index,
                                     bool use_chief = false);
std::filesystem::path ReplicaMetricsPath(const std::filesystem::path& trial_dir,
                                         TaskType type, int index,
                                         bool use_chief = false);

// argv and environment of every replica. A replica whose pool has a
// container image gets ReplicaLaunch::container (the image, the host
// directories to mount, its GPUs) and, as argv, what follows the image: the
// pool's container args, then job.args, --job-dir and the parameters. Each
// pool's `env` is added under hptune's own variables. `placement` holds one
// entry per request of ReplicaRequests(*context.job), in the same order. The
// trainer is job.command, else `python3 -m module_name`; then job.args,
// --job-dir=<job_dir>/<trial> (left out when job_dir is empty) and one
// --<name>=<value> per parameter in search-space order.
// InvalidArgument when the job has no command and no module, when the
// parameters are not exactly the search space's, when training_input_json is
// not a JSON object, or when `placement` does not match `requests`.
absl::StatusOr<TrialLaunch> BuildTrialLaunch(
    const TrialContext& context, const std::vector<ReplicaRequest>& requests,
    const std::vector<ReplicaPlacement>& placement);

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_REPLICA_ENV_H_
