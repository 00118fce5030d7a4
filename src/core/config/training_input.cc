// Reading `trainingInput` (all but the hyperparameters block) into a JobSpec.
#include "src/core/config/training_input.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job_validation.h"
#include "src/core/config/containers.h"
#include "src/core/config/job_extras.h"
#include "src/core/config/job_rules.h"
#include "src/core/config/scheduling.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

constexpr char kOwnMachines[] = "hptune runs trials on its own machines";

const FieldSet& TrainingInputFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"scaleTier", "masterType", "masterConfig", "workerCount",
                   "workerType", "workerConfig", "parameterServerCount",
                   "parameterServerType", "parameterServerConfig",
                   "evaluatorCount", "evaluatorType", "evaluatorConfig",
                   "useChiefInTfConfig", "pythonModule", "packagePath",
                   "packageUris", "pythonInterpreter", "command", "args",
                   "jobDir", "region", "runtimeVersion", "pythonVersion",
                   "hyperparameters", "scheduling", "enableWebAccess",
                   // hptune's, for a job read from a Vertex spec.
                   "displayName", "baseOutputDirectory", "dialect"},
      .unsupported = {{"network", kOwnMachines},
                      {"serviceAccount", kOwnMachines},
                      {"encryptionConfig", kOwnMachines}},
      // Study fields written one level too high.
      .hints = {{"moduleName", "pythonModule"},
                {"module", "pythonModule"},
                {"package", "packagePath"},
                {"goal", "hyperparameters.goal"},
                {"hyperparameterMetricTag",
                 "hyperparameters.hyperparameterMetricTag"},
                {"maxTrials", "hyperparameters.maxTrials"},
                {"maxParallelTrials", "hyperparameters.maxParallelTrials"},
                {"algorithm", "hyperparameters.algorithm"},
                {"params", "hyperparameters.params"}},
  };
  return *kFields;
}

const FieldSet& ReplicaConfigFields() {
  static const FieldSet* const kFields = new FieldSet{
      // AI Platform's ReplicaConfig; env, pythonModule and packageUris are
      // hptune's, for what Vertex's containerSpec and pythonPackageSpec say.
      .accepted = {"acceleratorConfig", "imageUri", "containerCommand",
                   "containerArgs", "env", "pythonModule", "packageUris"},
      .unsupported = {{"tpuTfVersion", kNoTpus}},
      .hints = {},
  };
  return *kFields;
}

const FieldSet& AcceleratorFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"count", "type"}, .unsupported = {}, .hints = {}};
  return *kFields;
}

std::vector<std::string> ScaleTierNames() {
  std::vector<std::string> names;
  for (ScaleTier tier :
       {ScaleTier::kBasic, ScaleTier::kStandard1, ScaleTier::kPremium1,
        ScaleTier::kBasicGpu, ScaleTier::kBasicTpu, ScaleTier::kCustom}) {
    names.emplace_back(ToString(tier));
  }
  return names;
}

// acceleratorConfig {count, type}; `ok` is false when an error was reported.
void ReadAcceleratorConfig(MapReader& config_reader,
                           AcceleratorConfig* accelerator, bool* ok) {
  const ConfigNode* node = config_reader.Find("acceleratorConfig");
  if (node == nullptr) return;
  const std::string path = config_reader.PathOf("acceleratorConfig");
  if (!ExpectMap(*node, path, config_reader.sink())) {
    *ok = false;
    return;
  }
  MapReader reader(*node, path, AcceleratorFields(), config_reader.sink());
  // AcceleratorConfig.count is an int64 in AI Platform's API.
  std::optional<int64_t> count = reader.Integer("count", 1, kMaxIntCount,
                                                /*allow_decimal_string=*/true);
  std::optional<std::string> type = reader.String("type");
  if (!reader.Has("count")) reader.Error("count", "required");
  if (!reader.Has("type")) reader.Error("type", "required");
  if (!count || !type) {
    *ok = false;
    return;
  }
  accelerator->count = static_cast<int>(*count);
  accelerator->type = *type;
}

// The container fields of a ReplicaConfig; their rules are checked once the
// master's image has been passed on (CheckContainers).
void ReadReplicaContainer(MapReader& config_reader, TaskPool* pool) {
  ContainerSpec& container = pool->container;
  if (auto image = config_reader.String("imageUri")) {
    container.image_uri = *image;
    if (image->empty()) config_reader.Error("imageUri", "must not be empty");
  }
  if (auto command = config_reader.StringList("containerCommand")) {
    container.command = *command;
  }
  if (auto args = config_reader.StringList("containerArgs")) {
    container.args = *args;
  }
  if (auto module = config_reader.String("pythonModule")) {
    container.python_module = *module;
    if (module->empty())
      config_reader.Error("pythonModule", "must not be empty");
  }
  if (auto uris = config_reader.StringList("packageUris")) {
    container.package_uris = *uris;
  }
  if (const ConfigNode* env = config_reader.Find("env")) {
    if (auto vars =
            ReadEnv(*env, config_reader.PathOf("env"), config_reader.sink())) {
      pool->env = *std::move(vars);
    }
  }
}

// The pool's machines; their rules on values are ValidateJob's, left out
// (`unread`) for a pool whose type or accelerator could not be read.
void ReadPool(MapReader& reader, const PoolKeys& keys, bool custom,
              JobSpec* job, std::vector<std::string>* unread) {
  ErrorSink& sink = reader.sink();
  TaskPool& pool = PoolOf(keys.task, *job);
  pool.count = keys.count.empty() ? 1 : 0;
  if (!keys.count.empty()) {
    // Replica counts are int64 in AI Platform's API, hence quoted numbers.
    if (auto count = reader.Integer(keys.count, 0, kMaxIntCount,
                                    /*allow_decimal_string=*/true)) {
      pool.count = static_cast<int>(*count);
    }
  }
  bool type_ok = true;
  if (reader.Has(keys.type)) {
    std::optional<std::string> type = reader.String(keys.type);
    type_ok = type.has_value();
    if (type) pool.machine_type = *type;
  }

  bool accelerator_ok = true;
  if (const ConfigNode* config = reader.Find(keys.config)) {
    const std::string config_path = reader.PathOf(keys.config);
    if (ExpectMap(*config, config_path, sink)) {
      MapReader config_reader(*config, config_path, ReplicaConfigFields(),
                              sink);
      ReadAcceleratorConfig(config_reader, &pool.accelerator, &accelerator_ok);
      ReadReplicaContainer(config_reader, &pool);
    } else {
      accelerator_ok = false;
    }
    if (type_ok && !reader.Has(keys.type) && pool.count == 0) {
      reader.Error(keys.config, "set without " + std::string(keys.type));
    }
  }

  // A missing field has no place in the file: report it where the rule that
  // requires it was set.
  if (custom && !reader.Has(keys.type)) {
    if (keys.count.empty()) {
      reader.ErrorAt("scaleTier", keys.type, "required with scaleTier CUSTOM");
    } else if (pool.count > 0) {
      reader.ErrorAt(keys.count, keys.type,
                     "required when " + std::string(keys.count) + " is " +
                         std::to_string(pool.count));
    }
  }
  if (!type_ok || !accelerator_ok) {
    unread->push_back(reader.PathOf(keys.type));
    unread->push_back(
        JoinPath(reader.PathOf(keys.config), "acceleratorConfig"));
  }
}

// A tier other than CUSTOM fixes each pool's machines; a pool the tier has
// may still name its container (AI Platform's `--scale-tier BASIC
// --master-image-uri`).
void ReadTierPool(MapReader& reader, const PoolKeys& keys, ScaleTier tier,
                  JobSpec* job) {
  const std::string refusal =
      "only allowed with scaleTier CUSTOM, got scaleTier " +
      std::string(ToString(tier)) +
      (reader.Has("scaleTier") ? "" : " (the default)");
  for (std::string_view key : {keys.type, keys.count}) {
    if (!key.empty() && reader.Has(key)) reader.Error(key, refusal);
  }
  const ConfigNode* config = reader.Find(keys.config);
  if (config == nullptr) return;
  TaskPool& pool = PoolOf(keys.task, *job);
  if (pool.count == 0) {
    std::string_view pool_name = keys.type.substr(0, keys.type.size() - 4);
    reader.Error(keys.config,
                 refusal + ", which has no " + std::string(pool_name) + "s");
    return;
  }
  const std::string path = reader.PathOf(keys.config);
  if (!ExpectMap(*config, path, reader.sink())) return;
  MapReader config_reader(*config, path, ReplicaConfigFields(), reader.sink());
  if (config_reader.Has("acceleratorConfig")) {
    config_reader.Error("acceleratorConfig", refusal);
  }
  ReadReplicaContainer(config_reader, &pool);
}

// The trainer's fields; ValidateJob judges their values. Here only what the
// text tells: a field given empty, which the typed job reads as absent.
void ReadTrainer(MapReader& reader, JobSpec* job) {
  if (auto module = reader.String("pythonModule")) {
    job->module_name = *module;
    if (module->empty()) reader.Error("pythonModule", "must not be empty");
  }
  if (auto package = reader.String("packagePath")) {
    job->package_path = *package;
    if (package->empty()) reader.Error("packagePath", "must not be empty");
  }
  if (auto uris = reader.StringList("packageUris")) job->package_uris = *uris;
  if (auto command = reader.StringList("command")) {
    job->command = *command;
    if (command->empty()) reader.Error("command", "must not be empty");
  }
  if (auto python = reader.String("pythonInterpreter")) {
    job->python_interpreter = *python;
    if (python->empty()) {
      reader.Error("pythonInterpreter",
                   "must be an absolute path to a Python interpreter, such "
                   "as /home/me/venv/bin/python3, got \"\"");
    }
  }
  if (auto args = reader.StringList("args")) job->args = *args;
  if (auto job_dir = reader.String("jobDir")) {
    job->job_dir = *job_dir;
    if (job_dir->empty()) reader.Error("jobDir", "must not be empty");
  }
}

// hptune's fields for what a Vertex spec says beside its pools: the job's
// display name, its base output directory, and the dialect it was written in.
// An empty name or directory is refused here: the typed job reads it as
// absent, which ValidateJob passes.
void ReadJobExtras(MapReader& reader, JobSpec* job) {
  if (auto name = reader.String("displayName")) {
    job->display_name = *name;
    if (name->empty()) {
      for (FieldError& error :
           ValidateDisplayName(*name, reader.PathOf("displayName"))) {
        reader.Error("displayName", std::move(error.message));
      }
    }
  }
  if (auto directory = reader.String("baseOutputDirectory")) {
    job->base_output_directory = *directory;
    if (directory->empty()) {
      for (FieldError& error : ValidateOutputDirectory(
               *directory, reader.PathOf("baseOutputDirectory"))) {
        reader.Error("baseOutputDirectory", std::move(error.message));
      }
    }
  }
  if (auto dialect = reader.String("dialect")) {
    std::optional<SpecDialect> parsed = ParseSpecDialect(*dialect);
    if (parsed) {
      job->dialect = *parsed;
    } else {
      reader.Error("dialect", MustBeOneOf({"AI_PLATFORM", "VERTEX"}, *dialect));
    }
  }
}

// ValidateJob's rules on the values read, each placed at its field, but for
// those about a pool whose machines could not be read.
void CheckValues(MapReader& reader, const MachineCatalogue& catalogue,
                 const std::vector<std::string>& unread, const JobSpec& job) {
  std::vector<FieldError> errors;
  for (FieldError& error : ValidateTrainingInputValues(job, catalogue)) {
    if (!IsUnderAny(error.field, unread)) errors.push_back(std::move(error));
  }
  AddAtFields(reader, std::move(errors));
}

}  // namespace

const ConfigNode* ReadTrainingInput(const ConfigNode& node,
                                    const MachineCatalogue* catalogue,
                                    ErrorSink& sink, JobSpec* job) {
  MapReader reader(node, "trainingInput", TrainingInputFields(), sink);

  // Unknown tiers read the pools as CUSTOM would, so their errors show too,
  // but without CUSTOM's "required" rules.
  std::optional<ScaleTier> tier = ScaleTier::kBasic;
  if (reader.Has("scaleTier")) {
    std::optional<std::string> text = reader.String("scaleTier");
    tier = text ? ParseScaleTier(*text) : std::nullopt;
    if (text && !tier)
      reader.Error("scaleTier", MustBeOneOf(ScaleTierNames(), *text));
  }
  job->scale_tier = tier.value_or(ScaleTier::kCustom);
  std::vector<std::string> unread;
  if (tier && *tier != ScaleTier::kCustom) {
    ApplyScaleTier(*tier, *job);
    for (const PoolKeys& keys : kPools) ReadTierPool(reader, keys, *tier, job);
  } else {
    for (const PoolKeys& keys : kPools) {
      ReadPool(reader, keys, tier.has_value(), job, &unread);
    }
  }
  CompleteJob(*job);

  if (auto chief = reader.Bool("useChiefInTfConfig")) {
    job->use_chief_in_tf_config = *chief;
  }
  ReadTrainer(reader, job);
  ReadScheduling(reader, &job->scheduling);
  ReadJobExtras(reader, job);
  if (catalogue != nullptr) CheckValues(reader, *catalogue, unread, *job);
  // Kept and shown, never acted on: one machine is one region.
  if (auto region = reader.String("region")) job->region = *region;
  // Accepted for AI Platform compatibility and ignored: a version names no
  // Python on this machine; pythonInterpreter (a path) does.
  for (std::string_view key : {"runtimeVersion", "pythonVersion"}) {
    reader.String(key);
  }
  // gcloud sends `false` with every job; hptune has no web shell to give.
  if (auto web = reader.Bool("enableWebAccess"); web && *web) {
    reader.Error("enableWebAccess",
                 "only false is supported: hptune gives trials no web shell");
  }
  return reader.Find("hyperparameters");
}

}  // namespace hptune::config_internal
