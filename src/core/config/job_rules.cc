// ValidateJob, CompleteJob and the rules they share with the text reader
// (job_rules.h).
#include "src/core/config/job_rules.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/bucket_paths.h"
#include "hptune/core/field_text.h"
#include "hptune/core/job_validation.h"
#include "hptune/core/machine_types.h"
#include "src/core/config/containers.h"
#include "src/core/config/job_extras.h"
#include "src/core/config/text.h"

namespace hptune {
namespace config_internal {
namespace {

constexpr char kTrainingInput[] = "trainingInput";
constexpr char kHyperparametersPath[] = "trainingInput.hyperparameters";

std::string Path(std::string_view field) {
  return JoinPath(kTrainingInput, field);
}

// Whether the canonical JSON writes the pool's `<pool>Config`: its
// container or environment, and on a CUSTOM tier its accelerator.
bool HasConfig(const TaskPool& pool, bool custom) {
  const ContainerSpec& container = pool.container;
  const bool accelerator =
      pool.accelerator.count > 0 || !pool.accelerator.type.empty();
  return (custom && accelerator) || !container.image_uri.empty() ||
         !container.command.empty() || !container.args.empty() ||
         !container.python_module.empty() || !container.package_uris.empty() ||
         !pool.env.empty();
}

// `value` in [min, max], else an error at `field`.
void CheckBound(const std::string& field, int value, int min, int max,
                std::vector<FieldError>& errors) {
  if (value < min) {
    errors.push_back({field, "must be at least " + std::to_string(min) +
                                 ", got " + std::to_string(value)});
  } else if (value > max) {
    errors.push_back({field, "must be at most " + std::to_string(max) +
                                 ", got " + std::to_string(value)});
  }
}

// The catalogue's rules on a CUSTOM pool, but for its accelerator count's
// when that count is past the bound already told.
void CheckMachines(const TaskPool& pool, const PoolKeys& keys,
                   const MachineCatalogue& catalogue, bool accelerator_in_bound,
                   std::vector<FieldError>& errors) {
  const std::string accelerator =
      JoinPath(Path(keys.config), "acceleratorConfig");
  const std::string count = JoinPath(accelerator, "count");
  for (FieldError& error :
       catalogue.ValidatePool(Path(keys.type), accelerator, pool)) {
    if (accelerator_in_bound || error.field != count) {
      errors.push_back(std::move(error));
    }
  }
}

void CheckPools(const JobSpec& job, const MachineCatalogue& catalogue,
                std::vector<FieldError>& errors) {
  if (job.scale_tier == ScaleTier::kBasicTpu) {
    errors.push_back({Path("scaleTier"),
                      "BASIC_TPU is not supported: " + std::string(kNoTpus)});
  }
  for (const PoolKeys& keys : kPools) {
    const TaskPool& pool = job.pool(keys.task);
    const std::string config = Path(keys.config);
    if (!keys.count.empty()) {
      CheckBound(Path(keys.count), pool.count, 0, kMaxReplicaCount, errors);
    }
    // Below 1, the count is the catalogue's to tell, with the machine's.
    const bool accelerator_in_bound =
        pool.accelerator.count <= kMaxAcceleratorCount;
    if (!accelerator_in_bound) {
      CheckBound(JoinPath(config, "acceleratorConfig.count"),
                 pool.accelerator.count, 1, kMaxAcceleratorCount, errors);
    }
    if (job.scale_tier == ScaleTier::kCustom) {
      CheckMachines(pool, keys, catalogue, accelerator_in_bound, errors);
    }
    for (FieldError& error : ValidateContainer(
             pool, {.image_uri = JoinPath(config, "imageUri"),
                   .command = JoinPath(config, "containerCommand"),
                   .args = JoinPath(config, "containerArgs"),
                   .python_module = JoinPath(config, "pythonModule"),
                   .package_uris = JoinPath(config, "packageUris"),
                   .env = JoinPath(config, "env")})) {
      errors.push_back(std::move(error));
    }
  }
}

// A master in a container leaves the job's trainer nothing to run.
void CheckContainerTrainer(const JobSpec& job,
                           std::vector<FieldError>& errors) {
  if (job.master.container.empty()) return;
  const std::pair<std::string_view, std::string> trainers[] = {
      {"pythonModule", job.module_name.empty() ? "" : Quote(job.module_name)},
      {"packagePath", job.package_path.empty() ? "" : Quote(job.package_path)},
      {"packageUris", job.package_uris.empty()
                          ? ""
                          : field_text::DescribeStrings(job.package_uris)},
      {"command",
       job.command.empty() ? "" : field_text::DescribeStrings(job.command)},
  };
  for (const auto& [key, shown] : trainers) {
    if (shown.empty()) continue;
    errors.push_back(
        {Path(key),
         "cannot be used with masterConfig.imageUri: the container runs "
         "the trainer (give masterConfig.containerCommand or "
         "pythonModule), got " +
             shown});
  }
}

// trainingInput.packageUris: what gcloud's --package-path uploads, which
// host replicas install before running pythonModule from them.
void CheckTrainerPackages(const JobSpec& job, std::vector<FieldError>& errors) {
  if (job.package_uris.empty()) return;
  if (job.module_name.empty()) {
    errors.push_back({Path("packageUris"),
                      "needs pythonModule (what to run from the packages)"});
  }
  for (FieldError& error :
       ValidatePackageUris(Path("packageUris"), job.package_uris)) {
    errors.push_back(std::move(error));
  }
}

void CheckTrainer(const JobSpec& job, std::vector<FieldError>& errors) {
  if (!job.command.empty() && job.command.front().empty()) {
    errors.push_back(
        {Path("command"), "the program (command[0]) must not be empty"});
  }
  if (!job.command.empty() && !job.module_name.empty()) {
    errors.push_back({Path("command"),
                      "cannot be used with pythonModule " +
                          Quote(job.module_name) + ": give one trainer, got " +
                          field_text::DescribeStrings(job.command)});
  }
  if (!job.package_path.empty() && job.module_name.empty() &&
      job.command.empty()) {
    errors.push_back(
        {Path("packagePath"),
         "needs pythonModule or command (what to run from it), got " +
             Quote(job.package_path)});
  }
  const std::string& python = job.python_interpreter;
  if (!python.empty() && !std::filesystem::path(python).is_absolute()) {
    errors.push_back({Path("pythonInterpreter"),
                      "must be an absolute path to a Python interpreter, "
                      "such as /home/me/venv/bin/python3, got \"" +
                          python.substr(0, 200) + "\""});
  }
  if (job.job_dir.size() > kMaxPathBytes) {
    errors.push_back({Path("jobDir"), "must be at most " +
                                          std::to_string(kMaxPathBytes) +
                                          " bytes (a path's limit), got " +
                                          std::to_string(job.job_dir.size())});
  }
  for (FieldError& error : ValidateGcsUri(job.job_dir, Path("jobDir"))) {
    errors.push_back(std::move(error));
  }
  CheckTrainerPackages(job, errors);
  for (FieldError& error : ValidateTrainerCommandLine(job, kTrainingInput)) {
    errors.push_back(std::move(error));
  }
}

void CheckExtras(const JobSpec& job, std::vector<FieldError>& errors) {
  if (!job.display_name.empty()) {
    for (FieldError& error :
         ValidateDisplayName(job.display_name, Path("displayName"))) {
      errors.push_back(std::move(error));
    }
  }
  if (!job.base_output_directory.empty()) {
    for (FieldError& error : ValidateOutputDirectory(
             job.base_output_directory, Path("baseOutputDirectory"))) {
      errors.push_back(std::move(error));
    }
  }
}

void CheckStudy(const JobSpec& job, std::vector<FieldError>& errors) {
  if (!job.study) return;
  for (FieldError& error :
       ValidateStudySpec(*job.study, kHyperparametersPath)) {
    errors.push_back(std::move(error));
  }
  const std::string& resume = job.study->resume_previous_job_id;
  if (!job.job_id.empty() && resume == job.job_id) {
    errors.push_back({JoinPath(kHyperparametersPath, "resumePreviousJobId"),
                      "a job cannot resume itself, got " + Quote(resume)});
  }
}

}  // namespace

TaskPool& PoolOf(TaskType task, JobSpec& job) {
  switch (task) {
    case TaskType::kMaster:
      return job.master;
    case TaskType::kWorker:
      return job.worker;
    case TaskType::kParameterServer:
      return job.parameter_server;
    case TaskType::kEvaluator:
      return job.evaluator;
  }
  return job.master;
}

void ApplyScaleTier(ScaleTier tier, JobSpec& job) {
  auto set = [&job](TaskType task, int count, std::string machine_type,
                    AcceleratorConfig accelerator = {}) {
    TaskPool& pool = PoolOf(task, job);
    pool.count = count;
    pool.machine_type = std::move(machine_type);
    pool.accelerator = std::move(accelerator);
  };
  set(TaskType::kMaster, 1, "n1-standard-4");
  for (TaskType task :
       {TaskType::kWorker, TaskType::kParameterServer, TaskType::kEvaluator}) {
    set(task, 0, "");
  }
  switch (tier) {
    case ScaleTier::kBasic:
    case ScaleTier::kBasicTpu:
      break;
    case ScaleTier::kCustom:
      set(TaskType::kMaster, 1, "");
      break;
    case ScaleTier::kBasicGpu:
      set(TaskType::kMaster, 1, "n1-standard-8",
          {.count = 1, .type = "NVIDIA_TESLA_K80"});
      break;
    case ScaleTier::kStandard1:
      set(TaskType::kMaster, 1, "n1-highcpu-8");
      set(TaskType::kWorker, 4, "n1-highcpu-8");
      set(TaskType::kParameterServer, 3, "n1-standard-4");
      break;
    case ScaleTier::kPremium1:
      set(TaskType::kMaster, 1, "n1-highcpu-16");
      set(TaskType::kWorker, 19, "n1-highcpu-16");
      set(TaskType::kParameterServer, 11, "n1-highmem-8");
      break;
  }
}

std::vector<FieldError> ValidateTrainingInputValues(
    const JobSpec& job, const MachineCatalogue& catalogue) {
  std::vector<FieldError> errors;
  CheckPools(job, catalogue, errors);
  CheckContainerTrainer(job, errors);
  CheckTrainer(job, errors);
  CheckExtras(job, errors);
  return errors;
}

std::vector<FieldError> ValidateTrainingInputPresence(const JobSpec& job) {
  std::vector<FieldError> errors;
  const bool custom = job.scale_tier == ScaleTier::kCustom;
  JobSpec tier_pools;
  ApplyScaleTier(job.scale_tier, tier_pools);
  for (const PoolKeys& keys : kPools) {
    const TaskPool& pool = job.pool(keys.task);
    const std::string type(keys.type);
    if (!custom) {
      if (tier_pools.pool(keys.task).count > 0 || !HasConfig(pool, false)) {
        continue;
      }
      errors.push_back({Path(keys.config),
                        "only allowed with scaleTier CUSTOM, got scaleTier " +
                            std::string(ToString(job.scale_tier)) +
                            ", which has no " +
                            type.substr(0, type.size() - 4) + "s"});
    } else if (!pool.machine_type.empty()) {
      continue;
    } else if (keys.count.empty()) {
      errors.push_back({Path(type), "required with scaleTier CUSTOM"});
    } else if (pool.count > 0) {
      errors.push_back({Path(type), "required when " + std::string(keys.count) +
                                        " is " + std::to_string(pool.count)});
    } else if (HasConfig(pool, true)) {
      errors.push_back({Path(keys.config), "set without " + type});
    }
  }
  return errors;
}

}  // namespace config_internal

std::vector<FieldError> ValidateJob(const JobSpec& job,
                                    const MachineCatalogue& catalogue) {
  std::vector<FieldError> errors;
  if (!job.job_id.empty()) errors = ValidateJobId(job.job_id, "jobId");
  auto add = [&errors](std::vector<FieldError> more) {
    for (FieldError& error : more) errors.push_back(std::move(error));
  };
  add(config_internal::ValidateTrainingInputPresence(job));
  add(config_internal::ValidateTrainingInputValues(job, catalogue));
  config_internal::CheckStudy(job, errors);
  add(ValidateJobLabels(job.labels, "labels"));
  return errors;
}

std::vector<FieldError> ValidateJob(const JobSpec& job) {
  return ValidateJob(job, MachineCatalogue::Builtin());
}

void CompleteJob(JobSpec& job) {
  if (job.scale_tier != ScaleTier::kCustom) {
    config_internal::ApplyScaleTier(job.scale_tier, job);
  }
  for (TaskPool* pool : {&job.worker, &job.parameter_server, &job.evaluator}) {
    if (pool->count > 0 && pool->container.image_uri.empty()) {
      pool->container.image_uri = job.master.container.image_uri;
    }
  }
}

}  // namespace hptune
