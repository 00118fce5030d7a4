// A Vertex CustomJobSpec (a tuning job's trialJobSpec, a CustomJob's
// jobSpec) as AI Platform's trainingInput (vertex.h): the worker pools
// with their machines and containers, and the scheduling.
#include <string>
#include <utility>
#include <vector>

#include "src/core/config/vertex_translator.h"

namespace hptune::config_internal::vertex {
namespace {

const std::vector<std::string>& JobSpecIgnored() {
  static const auto* const kKeys =
      new std::vector<std::string>{"serviceAccount",
                                   "network",
                                   "reservedIpRanges",
                                   "enableWebAccess",
                                   "enableDashboardAccess",
                                   "tensorboard",
                                   "experiment",
                                   "experimentRun",
                                   "models",
                                   "persistentResourceId",
                                   "protectedArtifactLocationId",
                                   "pscInterfaceConfig"};
  return *kKeys;
}

}  // namespace

void Translator::TranslateJobSpec(const ConfigNode& node,
                                  const std::string& key,
                                  ConfigNode& training_input) {
  static const FieldSet kJob =
      Fields({"workerPoolSpecs", "scheduling", "baseOutputDirectory"},
             JobSpecIgnored());
  static const FieldSet kOutput = Fields({"outputUriPrefix"});
  if (!ExpectMap(node, key, sink_)) return;
  MapReader job(node, key, kJob, sink_);
  Ignore(job, JobSpecIgnored());
  const ConfigNode* pools = job.Find("workerPoolSpecs");
  if (pools == nullptr) {
    job.Error("workerPoolSpecs", "required");
  } else if (ExpectList(*pools, job.PathOf("workerPoolSpecs"), sink_)) {
    if (pools->items.empty() || pools->items.size() > kWorkerPools.size()) {
      job.Error("workerPoolSpecs",
                "must have 1 to 4 pools (chief, workers, parameter servers, "
                "evaluators), got " +
                    std::to_string(pools->items.size()));
    }
    for (size_t i = 0; i < pools->items.size() && i < kWorkerPools.size();
         ++i) {
      TranslatePool(pools->items[i], i,
                    IndexPath(job.PathOf("workerPoolSpecs"), i),
                    training_input);
    }
  }
  TranslateScheduling(job, training_input);
  if (const ConfigNode* output = job.Find("baseOutputDirectory");
      output && ExpectMap(*output, job.PathOf("baseOutputDirectory"), sink_)) {
    MapReader prefix(*output, job.PathOf("baseOutputDirectory"), kOutput,
                     sink_);
    Copy(prefix, "outputUriPrefix", training_input, kTrainingInput,
         "baseOutputDirectory");
    if (!prefix.Has("outputUriPrefix")) {
      prefix.Error("outputUriPrefix", "required");
    }
  }
}

void Translator::TranslatePool(const ConfigNode& node, size_t index,
                               const std::string& vertex,
                               ConfigNode& training_input) {
  static const FieldSet kPool = Fields(
      {"machineSpec", "replicaCount", "containerSpec", "pythonPackageSpec"},
      {"diskSpec"},
      {{"nfsMounts", "mount the share on the machines and pass its path"}});
  const PoolNames& names = kWorkerPools[index];
  Map(JoinPath(kTrainingInput, names.type),
      vertex + ".machineSpec.machineType");
  if (!ExpectMap(node, vertex, sink_)) return;
  MapReader pool(node, vertex, kPool, sink_);
  Ignore(pool, {"diskSpec"});
  if (node.fields.empty()) {  // `{}` keeps its place.
    if (index == 0) {
      sink_.Add(node, vertex,
                "the chief's pool (workerpool 0) must not be "
                "empty");
    }
    return;
  }
  const std::string ti = kTrainingInput;
  if (names.count.empty()) {
    if (auto count = pool.Integer("replicaCount", 0, INT32_MAX, true);
        count && *count != 1) {
      pool.Error("replicaCount", "must be 1: workerpool 0 is the chief, got " +
                                     Describe(*pool.Find("replicaCount")));
    }
  } else if (const ConfigNode* count = pool.Find("replicaCount")) {
    Put(training_input, std::string(names.count), *count);
    Map(JoinPath(ti, names.count), pool.PathOf("replicaCount"));
  } else {  // gcloud's default replica count.
    Put(training_input, std::string(names.count),
        ScalarAt(Kind::kNumber, "1", node.order));
    training_input.fields.back().value.number = 1;
    Map(JoinPath(ti, names.count), vertex);
  }
  const std::string config_path = JoinPath(ti, names.config);
  ConfigNode config = MapAt(node.order);
  Map(config_path, vertex);
  TranslateMachine(pool, names, training_input, config);
  TranslateContainer(pool, config_path, config);
  Put(training_input, std::string(names.config), std::move(config));
}

void Translator::TranslateMachine(MapReader& pool, const PoolNames& names,
                                  ConfigNode& training_input,
                                  ConfigNode& config) {
  static const FieldSet kMachine =
      Fields({"machineType", "acceleratorType", "acceleratorCount"},
             {"reservationAffinity"}, {{"tpuTopology", kNoTpus}});
  const ConfigNode* node = pool.Find("machineSpec");
  const std::string path = pool.PathOf("machineSpec");
  const std::string config_path = JoinPath(kTrainingInput, names.config);
  if (node == nullptr) {
    pool.Error("machineSpec", "required");
    return;
  }
  if (!ExpectMap(*node, path, sink_)) return;
  MapReader machine(*node, path, kMachine, sink_);
  Ignore(machine, {"reservationAffinity"});
  Copy(machine, "machineType", training_input, kTrainingInput,
       std::string(names.type));
  if (!machine.Has("machineType")) machine.Error("machineType", "required");
  const ConfigNode* type = machine.Find("acceleratorType");
  const bool has_type = type && !(type->kind == Kind::kString &&
                                  type->text == "ACCELERATOR_TYPE_UNSPECIFIED");
  if (!has_type && !machine.Has("acceleratorCount")) return;
  ConfigNode accelerator = MapAt(node->order);
  const std::string ai = config_path + ".acceleratorConfig";
  Map(ai, path);
  if (has_type) Copy(machine, "acceleratorType", accelerator, ai, "type");
  Map(ai + ".type", machine.PathOf("acceleratorType"));
  Copy(machine, "acceleratorCount", accelerator, ai, "count");
  Map(ai + ".count", machine.PathOf("acceleratorCount"));
  Put(config, "acceleratorConfig", std::move(accelerator));
}

void Translator::TranslateContainer(MapReader& pool,
                                    const std::string& config_path,
                                    ConfigNode& config) {
  static const FieldSet kContainer =
      Fields({"imageUri", "command", "args", "env"});
  static const FieldSet kPackage = Fields(
      {"executorImageUri", "packageUris", "pythonModule", "args", "env"});
  const bool container = pool.Has("containerSpec");
  const char* key = container ? "containerSpec" : "pythonPackageSpec";
  if (container && pool.Has("pythonPackageSpec")) {
    pool.Error("pythonPackageSpec",
               "cannot be used with containerSpec: give "
               "one");
  }
  const ConfigNode* node = pool.Find(key);
  if (node == nullptr) {
    pool.Error("containerSpec",
               "required: give containerSpec or pythonPackageSpec");
    return;
  }
  const std::string path = pool.PathOf(key);
  if (!ExpectMap(*node, path, sink_)) return;
  MapReader spec(*node, path, container ? kContainer : kPackage, sink_);
  const char* image = container ? "imageUri" : "executorImageUri";
  Copy(spec, image, config, config_path, "imageUri");
  Map(config_path + ".imageUri", spec.PathOf(image));
  if (!spec.Has(image)) spec.Error(image, "required");
  for (const FieldName& field : kContainerFields) {
    Copy(spec, field.vertex, config, config_path, std::string(field.ai));
  }
  if (!container && !spec.Has("pythonModule")) {
    spec.Error("pythonModule", "required");
  }
}

void Translator::TranslateScheduling(MapReader& job,
                                     ConfigNode& training_input) {
  static const FieldSet kScheduling =
      Fields({"timeout", "maxWaitDuration"},
             {"restartJobOnWorkerRestart", "strategy", "disableRetries"});
  const ConfigNode* node = job.Find("scheduling");
  if (node == nullptr) return;
  const std::string path = job.PathOf("scheduling");
  if (!ExpectMap(*node, path, sink_)) return;
  MapReader scheduling(*node, path, kScheduling, sink_);
  Ignore(scheduling,
         {"restartJobOnWorkerRestart", "strategy", "disableRetries"});
  scheduling.Bool("restartJobOnWorkerRestart");
  const std::string ai = JoinPath(kTrainingInput, "scheduling");
  ConfigNode out = MapAt(node->order);
  Map(ai, path);
  for (const FieldName& field : kSchedulingFields) {
    Copy(scheduling, field.vertex, out, ai, std::string(field.ai));
  }
  if (!out.fields.empty()) Put(training_input, "scheduling", std::move(out));
}

}  // namespace hptune::config_internal::vertex
