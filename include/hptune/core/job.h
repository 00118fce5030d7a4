// A training job: what runs for each trial, and the job state machine.
//
// JobSpec is AI Platform's `trainingInput` (scale tier, machine types, replica
// counts, accelerators, trainer command, args, jobDir) plus the study, the
// job's labels and its own Slurm options; it is produced by config parsing
// and the gRPC edge and consumed by launchers.
// JobRecord is a job as the Store keeps it. Value types; thread-compatible.
//
//   QUEUED ──► PREPARING ──► RUNNING ──► SUCCEEDED | FAILED
//      │           │            └──► CANCELLING ──► CANCELLED | FAILED
//      └───────────┴──► FAILED | CANCELLING | CANCELLED
#ifndef HPTUNE_CORE_JOB_H_
#define HPTUNE_CORE_JOB_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"

namespace hptune {

enum class ScaleTier {
  kBasic,      // one master
  kBasicGpu,   // one master with one GPU
  kBasicTpu,   // not supported
  kStandard1,  // one master, 4 workers, 3 parameter servers
  kPremium1,   // one master, 19 workers, 11 parameter servers
  kCustom,     // the machine types and counts given
};
// "BASIC", "BASIC_GPU", "BASIC_TPU", "STANDARD_1", "PREMIUM_1", "CUSTOM".
std::string_view ToString(ScaleTier tier);
std::optional<ScaleTier> ParseScaleTier(std::string_view text);

enum class TaskType { kMaster, kWorker, kParameterServer, kEvaluator };
// The names TF_CONFIG uses: "master", "worker", "ps", "evaluator".
std::string_view ToString(TaskType type);
// Every task type, the chief's first: the order of TF_CONFIG's cluster and
// of Vertex's workerPoolSpecs.
inline constexpr TaskType kTaskTypes[] = {TaskType::kMaster, TaskType::kWorker,
                                          TaskType::kParameterServer,
                                          TaskType::kEvaluator};

struct AcceleratorConfig {
  int count = 0;
  std::string type;  // e.g. "NVIDIA_TESLA_T4"; empty when count is 0.
  bool operator==(const AcceleratorConfig&) const = default;
};

// sbatch options of one job (a config's `slurm:` block, an hptune
// extension). A Slurm launcher applies them over its own: a field set here
// replaces the launcher's, and `options` come after the launcher's, so that
// sbatch, which takes the last of a repeated option, lets the job's win.
// Other launchers ignore them. ValidateSlurmJobOptions (config.h) checks them.
struct SlurmJobOptions {
  std::string partition;             // --partition; "": the launcher's.
  std::string account;               // --account.
  std::string time;                  // --time, e.g. "2:00:00".
  std::vector<std::string> options;  // More sbatch options, e.g. --qos=high.
  bool empty() const {
    return partition.empty() && account.empty() && time.empty() &&
           options.empty();
  }
  bool operator==(const SlurmJobOptions&) const = default;
};

// AI Platform's Job.labels: key -> value, for finding and grouping jobs
// (`hptune jobs list --filter labels.team=vision`). ValidateJobLabels
// (config.h) checks them.
using JobLabels = std::map<std::string, std::string>;

// AI Platform's trainingInput.scheduling: limits after which the job runner
// cancels the job, its running trials with it (their measurements are kept).
// Unset means no limit: AI Platform's maxRunningTime defaults to seven days,
// but on the user's own machines a silent limit would only lose work.
struct SchedulingSpec {
  // Measured from when the job entered RUNNING: its first trial's replicas
  // started (a trial waiting in Slurm's queue has not).
  std::optional<std::chrono::microseconds> max_running_time;
  // Measured from submission, while no trial has started running.
  std::optional<std::chrono::microseconds> max_wait_time;
  bool operator==(const SchedulingSpec&) const = default;
};

// One variable of a replica's environment (Vertex's containerSpec.env).
struct EnvVar {
  std::string name;
  std::string value;
  bool operator==(const EnvVar&) const = default;
};

// The OCI image a pool's replicas run in: AI Platform's <pool>Config
// {imageUri, containerCommand, containerArgs}; Vertex's workerPoolSpecs[]
// containerSpec {imageUri, command, args}, or pythonPackageSpec
// {executorImageUri, packageUris, pythonModule, args}. An empty image_uri
// means the pool's replicas are host processes running the job's trainer.
struct ContainerSpec {
  std::string image_uri;
  std::vector<std::string> command;  // The entrypoint; empty: the image's.
  std::vector<std::string> args;     // Before the hyperparameter flags.
  // pythonPackageSpec: `python3 -m python_module` after installing
  // package_uris (local paths, or gs:// under the bucket root) in the
  // container.
  std::string python_module;
  std::vector<std::string> package_uris;
  bool empty() const { return image_uri.empty(); }
  bool operator==(const ContainerSpec&) const = default;
};

// The replicas of one task type.
struct TaskPool {
  int count = 0;
  std::string machine_type;
  AcceleratorConfig accelerator;
  ContainerSpec container;
  std::vector<EnvVar> env;  // Added to each replica's environment.
  bool operator==(const TaskPool&) const = default;
};

// The dialect a job was written in: its default output shape
// (`--format json` of a Vertex job is a HyperparameterTuningJob).
enum class SpecDialect { kAiPlatform, kVertex };
// "AI_PLATFORM", "VERTEX": the canonical JSON's `dialect`.
std::string_view ToString(SpecDialect dialect);
std::optional<SpecDialect> ParseSpecDialect(std::string_view text);

struct JobSpec {
  std::string job_id;
  ScaleTier scale_tier = ScaleTier::kBasic;
  // After scale-tier resolution: master.count is 1; the others as configured.
  TaskPool master{.count = 1};
  TaskPool worker;
  TaskPool parameter_server;
  TaskPool evaluator;
  bool use_chief_in_tf_config = false;

  // The trainer: `python3 -m module_name` from package_path, or `command`.
  std::string package_path;
  std::string module_name;
  // trainingInput.packageUris: built packages (sdists, wheels) that host
  // replicas pip-install before `python3 -m module_name` (docs/trainer.md);
  // local paths, or gs:// URIs under the runner's bucket root.
  std::vector<std::string> package_uris;
  std::vector<std::string> command;
  // trainingInput.pythonInterpreter: the Python, an absolute path, that
  // runs a pythonModule job and a command whose program is `python3` or
  // `python` (TrainerProgram). Empty: `python3` on PATH (`hptune run`
  // fills in an activated venv's, docs/trainer.md).
  std::string python_interpreter;
  std::vector<std::string> args;  // User args, before --job-dir and params.
  std::string job_dir;
  // trainingInput.region: kept and shown, never acted on (one machine is
  // one region); the location of a job made by Vertex's REST API.
  std::string region;
  SchedulingSpec scheduling;

  // Vertex's displayName, and baseOutputDirectory.outputUriPrefix (a local
  // path): each trial's AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and
  // AIP_TENSORBOARD_LOG_DIR lie under <base_output_directory>/<trial>/.
  std::string display_name;
  std::string base_output_directory;
  SpecDialect dialect = SpecDialect::kAiPlatform;

  // Absent for a plain training job: a Vertex CustomJob, or a trainingInput
  // without hyperparameters, which runs once (RunStudyOf).
  std::optional<StudySpec> study;

  // Not part of trainingInput: TF_CONFIG's "job" and training_input_json
  // leave them out.
  JobLabels labels;
  SlurmJobOptions slurm;

  const TaskPool& pool(TaskType type) const;
  // Where pool `type` is written in the job's config, in its dialect, for
  // errors that name the field: "trainingInput.masterConfig" (workerConfig,
  // parameterServerConfig, evaluatorConfig), or Vertex's
  // "trialJobSpec.workerPoolSpecs[0]" (1, 2, 3); "jobSpec.workerPoolSpecs[0]"
  // for a Vertex job without a study (a CustomJob).
  std::string PoolConfigPath(TaskType type) const;
  // Whether a trial of the job starts replicas of the pool: the master's
  // always, another's when it has replicas.
  bool Runs(TaskType type) const;
  // Whether some pool it runs has no image, so runs the job's trainer
  // (command or pythonModule) on the host; a job whose pools all run
  // images has none.
  bool RunsHostTrainer() const;

  bool operator==(const JobSpec&) const = default;
};

// The study a job keeps its trials in: its own, or for a job without one
// (a CustomJob) the one-run study: no parameters, one trial, no metric
// required, so the trial succeeds when its master exits 0 and the job fails
// with it. No designer is asked about it; the runner adds its one trial.
StudySpec RunStudyOf(const JobSpec& job);
// True for the one-run study of RunStudyOf, the only study that may have no
// parameters: the store keeps it, the engine's checks refuse it.
bool IsOneRunStudy(const StudySpec& spec);

// Whether the job's trainer is Python from PATH: a pythonModule job, or a
// command whose program is `python3` or `python`; python_interpreter
// replaces that program.
bool RunsPathPython(const JobSpec& job);
// The program replicas run: python_interpreter for a job that RunsPathPython
// and has one, else `python3` for a pythonModule job, else command[0].
std::string TrainerProgram(const JobSpec& job);

enum class JobState {
  kQueued,
  kPreparing,
  kRunning,
  kSucceeded,
  kFailed,
  kCancelling,
  kCancelled,
};
// AI Platform's names: "QUEUED", "PREPARING", "RUNNING", ...
std::string_view ToString(JobState state);
std::optional<JobState> ParseJobState(std::string_view text);
bool IsTerminal(JobState state);
// OK when `from` -> `to` is legal; FailedPrecondition naming both otherwise.
[[nodiscard]] absl::Status CheckJobTransition(JobState from, JobState to);

// Who submitted a job, as the kernel or a server's users file named them:
// a root server runs the job's replicas with this uid and gid. uid -1: the
// user of the process that runs the job (`hptune run`, a server that is not
// root, or one that allowed its own user's trials).
struct JobOwner {
  int64_t uid = -1;
  int64_t gid = -1;

  bool known() const { return uid >= 0; }
  bool operator==(const JobOwner&) const = default;
};

struct JobRecord {
  std::string job_id;
  // The job's `trainingInput` as canonical JSON: what TF_CONFIG's "job" holds
  // and what config parsing turns back into a JobSpec.
  std::string training_input_json;
  std::string study_name;  // The study its trials belong to.
  JobLabels labels;        // JobSpec::labels.
  SlurmJobOptions slurm;   // JobSpec::slurm, kept for a resumed job.
  JobOwner owner;
  JobState state = JobState::kQueued;
  std::string error_message;  // Set when FAILED.
  Timestamp create_time{};
  std::optional<Timestamp> start_time;  // Set on entering RUNNING.
  std::optional<Timestamp> end_time;    // Set on entering a terminal state.

  // Moves to `to` if the state machine allows it, stamping the times.
  [[nodiscard]] absl::Status TransitionTo(JobState to, Timestamp now);

  bool operator==(const JobRecord&) const = default;
};

// The study a job runs, as users are shown it (CLI, gRPC API, dashboard):
// a study whose job ended FAILED or CANCELLED is FAILED or CANCELLED, with
// the reason "job FAILED: <its error>" or "job CANCELLED", even when all
// its trials were made (the store says COMPLETED): their results are not
// the job's. The store keeps its own state: the study may still take
// ask/tell trials.
// `job` is the study's (JobRecord::study_name).
StudyRecord WithJobOutcome(StudyRecord study, const JobRecord& job);

}  // namespace hptune

#endif  // HPTUNE_CORE_JOB_H_
