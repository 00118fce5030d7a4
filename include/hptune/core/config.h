// Job and study configuration: AI Platform's `trainingInput` in YAML or JSON.
//
// Used by the CLI (`hptune validate`, `hptune run`, `jobs submit`) and the
// server. Parsing checks every rule of docs/config.md and reports all
// errors of a file at once, each naming the field path and the bad value:
//   trainingInput.hyperparameters.params[2].scaleType: UNIT_LOG_SCALE needs
//   minValue > 0, got -1
// Unknown fields are errors (typo protection). The rules on the values read
// are ValidateJob's (hptune/core/job_validation.h), which a job built in
// code is checked with. Pure functions; thread-safe.
#ifndef HPTUNE_CORE_CONFIG_H_
#define HPTUNE_CORE_CONFIG_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune {

class MachineCatalogue;  // hptune/core/machine_types.h

// One problem in a config or request: a field path and what is wrong with it.
struct FieldError {
  std::string field;    // e.g. "trainingInput.hyperparameters.maxTrials"
  std::string message;  // e.g. "must be at least 1, got 0"
  std::string ToString() const { return field + ": " + message; }
  bool operator==(const FieldError&) const = default;
};

// InvalidArgument listing every error, one per line; OK when `errors` is empty.
[[nodiscard]] absl::Status FieldErrorsToStatus(
    const std::vector<FieldError>& errors);

// Semantic rules on a study, whatever it was written in. `prefix` is put
// before each field path ("trainingInput.hyperparameters" for a config file).
std::vector<FieldError> ValidateStudySpec(const StudySpec& spec,
                                          std::string_view prefix);

// A root parameter that joins `study`'s space (define-by-run), at request
// path `path` ("spec"): a config's parameter rules (first_trial set), no
// condition, and room under the parameter limit. Its name must be new to
// the space (the caller's check).
std::vector<FieldError> ValidateJoiningParameter(const StudySpec& study,
                                                 const ParameterSpec& p,
                                                 std::string_view path);

// The trainer's argv as exec(2) must take it: `command` and `args` (the
// config's, and those a command line adds) each shorter than 128 KiB
// (Linux's MAX_ARG_STRLEN), at most 10,000 of them and 1 MiB in all (half
// of the usual 2 MiB ARG_MAX: the environment and the per-trial flags need
// the rest). Checked when a job is submitted, so a job that could never
// start is refused then, not after every trial's attempts failed.
std::vector<FieldError> ValidateTrainerCommandLine(const JobSpec& job,
                                                   std::string_view prefix);

// Letters, digits and underscores, starting with a letter, at most 128.
std::vector<FieldError> ValidateJobId(std::string_view job_id,
                                      std::string_view field = "jobId");

// Google Cloud's rules for labels (AI Platform's Job.labels), with ASCII
// letters only: at most 64 labels; each key 1 to 63 characters, a lowercase
// letter first, then lowercase letters, digits, '_' and '-'; each value at
// most 63 of those characters. `field` names where they came from
// ("labels" in a config or request, "--labels" on the command line).
std::vector<FieldError> ValidateJobLabels(const JobLabels& labels,
                                          std::string_view field);
// The key rule alone, for keys given without values (labels to remove).
std::vector<FieldError> ValidateJobLabelKeys(
    const std::vector<std::string>& keys, std::string_view field);

enum class ConfigFormat { kAuto, kYaml, kJson };

// Where trials run: the config's top-level `backend:` and `slurm:` blocks
// beside trainingInput (an hptune extension), e.g.
//   backend: slurm
//   slurm: {partition: gpu, account: ml, time: "2:00:00",
//           options: [--qos=high]}
// Command-line flags (--backend, --slurm-*) override them.
struct BackendConfig {
  std::string backend = "local";  // "local" or "slurm".
  SlurmJobOptions slurm;          // The `slurm:` block.
  // The cluster's gres type of each AI Platform GPU type (run's and
  // serve's --slurm-gpu-type): a launcher's setting, never a job's.
  std::map<std::string, std::string> slurm_gpu_types;
  // Whether the config says `backend:`: a job submitted to a server asks
  // for a backend only when its config names one.
  bool backend_named = false;
  bool operator==(const BackendConfig&) const = default;
};

// Rules on sbatch options from a config, a flag or a request; `prefix` goes
// before each field ("slurm" for a config file): partition and account are
// one word of printable characters; time is one of Slurm's forms (minutes,
// minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds, or UNLIMITED); each option starts with '-' and
// is not one hptune sets itself (--job-name, --output, --ntasks, ...).
std::vector<FieldError> ValidateSlurmJobOptions(const SlurmJobOptions& slurm,
                                                std::string_view prefix);

struct ConfigParseResult {
  std::optional<JobSpec> job;      // Set exactly when `errors` is empty.
  std::vector<FieldError> errors;  // Every problem found, in file order.
  BackendConfig backend;           // As read; defaults when absent.
  // A Vertex spec's fields that hptune accepts and ignores (Google Cloud's
  // own, such as serviceAccount and network, and the few docs/config.md
  // lists), by path, for a note to the user.
  std::vector<std::string> ignored_fields;
};

// Parses and validates a config. kAuto reads JSON when the text starts with
// '{' and YAML otherwise. `job_id` may be empty (not yet chosen); when set it
// is validated and stored in the JobSpec. The text is AI Platform's config
// (a mapping with `trainingInput`) or a Vertex AI HyperparameterTuningJob
// (a mapping with `studySpec` or `trialJobSpec` and no `trainingInput`, in
// the REST API's camelCase names), which gives the same JobSpec with
// dialect kVertex; docs/config.md says how each Vertex field maps.
ConfigParseResult ParseJobConfig(std::string_view text,
                                 ConfigFormat format = ConfigFormat::kAuto,
                                 std::string_view job_id = "");
// The same with machine types from `catalogue` instead of the builtin one
// (MachineCatalogue::Builtin(), hptune/core/machine_types.h).
ConfigParseResult ParseJobConfig(const MachineCatalogue& catalogue,
                                 std::string_view text,
                                 ConfigFormat format = ConfigFormat::kAuto,
                                 std::string_view job_id = "");

// AI Platform's Job resource, as projects.jobs.create's body carries it
// (JSON): `jobId` (required), `labels` and `trainingInput`, read once by the
// reader and rules of a config file, so errors are the same and placed the
// same. Output-only fields a client may echo (state, createTime,
// trainingOutput, ...) are ignored; hptune's `backend` and `slurm` blocks
// are refused (the server chooses where trials run).
ConfigParseResult ParseJobResource(std::string_view json);

// A config file whole, parsed once: the job and the backend block (defaults
// when it has none). runner::LoadConfigFile (hptune/runner/config_file.h)
// reads one from a file.
struct LoadedConfig {
  JobSpec job;
  BackendConfig backend;
  std::vector<std::string> ignored_fields;  // As ConfigParseResult's.
};

// The most a config's text may hold; a longer one is refused.
inline constexpr size_t kMaxConfigTextBytes = 4 << 20;

// "note: accepted and ignored here: a, b" for a config's
// ignored_fields; empty when there are none.
std::string IgnoredFieldsNote(const std::vector<std::string>& fields);

// A config's paths are relative to the config, so that a job runs the same
// from any directory: a relative packagePath, a local jobDir, a command[0]
// with a '/', and a later command element that names a file in `config_dir`
// (the script of [python3, train.py]; `is_file` tells) become
// `config_dir`/path (lexically normal). Flags given on the command line stay
// relative to where the user is.
void ResolveConfigPaths(
    const std::filesystem::path& config_dir,
    const std::function<bool(const std::filesystem::path&)>& is_file,
    JobSpec& job);

// The canonical `trainingInput` JSON of a job (camelCase, defaults filled in),
// as stored in JobRecord and put in TF_CONFIG's "job". Parsing it back with
// ParseJobConfig gives an equal JobSpec, but for the labels and Slurm
// options, which are not part of trainingInput (JobRecord keeps them).
std::string TrainingInputToJson(const JobSpec& job);

// A study spec's canonical JSON: the `hyperparameters` block of
// TrainingInputToJson, the one form a spec is written in (the store keeps
// it). custom_algorithm, which no config carries, is not in it.
std::string StudySpecToJson(const StudySpec& spec);

// The job as Vertex AI's REST API reports a HyperparameterTuningJob (name,
// displayName, studySpec, the trial counts, trialJobSpec, trials, state as
// JOB_STATE_*, createTime, startTime, endTime, updateTime, error when
// FAILED), for a job written in either dialect; indented by 2. A FAILED or
// CANCELLED trial is INFEASIBLE with its reason. docs/config.md, "Results in
// Vertex's shape".
// What VertexJobJson's readers differ in: the CLI names a job by its ID;
// the REST API (docs/rest.md) by its resource name, with each trial's
// measurements as Vertex's API gives them, and lists jobs without trials.
struct VertexJobJsonOptions {
  std::string name;                // Empty: the job ID.
  bool with_trials = true;         // `trials`.
  bool with_measurements = false;  // Each trial's `measurements`.
};
std::string VertexJobJson(const JobSpec& job, const JobRecord& record,
                          const std::vector<Trial>& trials,
                          const VertexJobJsonOptions& options = {});
// A job without a study (one written as a Vertex CustomJob) as Vertex's
// REST API reports a CustomJob: name (`options.name`, else the job ID),
// displayName, jobSpec (VertexJobJson's trialJobSpec), state, createTime,
// startTime, endTime, updateTime, error when FAILED, labels; indented by 2.
std::string VertexCustomJobJson(const JobSpec& job, const JobRecord& record,
                                const VertexJobJsonOptions& options = {});

// Vertex's ListTrialsResponse: {"trials": [...]}, the `trials` array of
// VertexJobJson (every trial, so no nextPageToken); each trial's parameters
// in the order of `space` (the study's) when given, as VertexJobJson writes
// them, else by name.
std::string VertexTrialsJson(const std::vector<Trial>& trials,
                             const SearchSpace* space = nullptr);
// Reads that block back (any JSON a config's hyperparameters block may hold)
// and validates it; InvalidArgument listing every error with its field path
// under `hyperparameters`.
absl::StatusOr<StudySpec> ParseStudySpecJson(std::string_view json);

namespace config_internal {
// How many texts the config readers have parsed in this process, YAML and
// JSON alike (ParseJobConfig, ParseStudySpecJson, the Decode* functions of
// hptune/core/stored_spec.h): for tests that count the text a request
// crosses on its way.
int64_t TextParseCount();
}  // namespace config_internal

}  // namespace hptune

#endif  // HPTUNE_CORE_CONFIG_H_
