// A Vertex AI HyperparameterTuningJob as the config tree of the same job in
// AI Platform's form (vertex.h). Field names and shapes: the Vertex REST
// reference (cloud.google.com/vertex-ai/docs/reference/rest/v1/
// projects.locations.hyperparameterTuningJobs, StudySpec, CustomJobSpec,
// WorkerPoolSpec) and google/cloud/aiplatform/v1/{hyperparameter_tuning_job,
// study,custom_job,machine_resources,env_var}.proto.
#include "src/core/config/vertex.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/config/text.h"
#include "src/core/config/vertex_names.h"

namespace hptune::config_internal {
namespace {

using Kind = ConfigNode::Kind;

constexpr char kTrainingInput[] = "trainingInput";
constexpr char kStudy[] = "trainingInput.hyperparameters";

// Google Cloud's own fields: accepted so a spec runs unchanged, ignored.
const std::vector<std::string>& RootIgnored() {
  static const auto* const kKeys = new std::vector<std::string>{
      "encryptionSpec", "name",         "state",       "trials",
      "createTime",     "startTime",    "endTime",     "updateTime",
      "error",          "satisfiesPzs", "satisfiesPzi"};
  return *kKeys;
}
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

FieldSet Fields(std::vector<std::string> accepted,
                const std::vector<std::string>& ignored = {},
                std::map<std::string, std::string> unsupported = {}) {
  accepted.insert(accepted.end(), ignored.begin(), ignored.end());
  return FieldSet{.accepted = std::move(accepted),
                  .unsupported = std::move(unsupported),
                  .hints = {}};
}

ConfigNode MapAt(int order) {
  ConfigNode node;
  node.kind = Kind::kMap;
  node.order = order;
  return node;
}

ConfigNode ScalarAt(Kind kind, std::string text, int order) {
  ConfigNode node;
  node.kind = kind;
  node.text = std::move(text);
  node.order = order;
  if (kind == Kind::kBool) node.boolean = node.text == "true";
  return node;
}

void Put(ConfigNode& map, std::string key, ConfigNode value) {
  map.fields.push_back({std::move(key), std::move(value)});
}

// An int64 of Vertex's JSON, which protobuf writes as a decimal string, as
// the number AI Platform's field takes; anything else as written.
ConfigNode Int64Node(const ConfigNode& node) {
  if (node.kind != Kind::kString || node.text.empty() ||
      node.text.size() > 18) {
    return node;
  }
  int64_t value = 0;
  const char* end = node.text.data() + node.text.size();
  auto [ptr, ec] = std::from_chars(node.text.data(), end, value);
  if (ec != std::errc() || ptr != end) return node;
  ConfigNode number = node;
  number.kind = Kind::kNumber;
  number.number = static_cast<double>(value);
  return number;
}

ConfigNode Int64List(const ConfigNode& node) {
  if (node.kind != Kind::kList) return node;
  ConfigNode list = node;
  for (ConfigNode& item : list.items) item = Int64Node(item);
  return list;
}

class Translator {
 public:
  explicit Translator(ErrorSink& sink) : sink_(sink) {}

  VertexTranslation Translate(const ConfigNode& root);

 private:
  void Map(const std::string& ai, const std::string& vertex) {
    out_.paths[ai] = vertex;
  }
  void Ignore(const MapReader& reader, const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      if (reader.Has(key)) out_.ignored.push_back(reader.PathOf(key));
    }
  }
  // Copies `key` of `reader` into `to` as `as`, mapping the paths.
  void Copy(const MapReader& reader, std::string_view key, ConfigNode& to,
            const std::string& to_path, const std::string& as) {
    const ConfigNode* node = reader.Find(key);
    if (node == nullptr) return;
    Put(to, as, *node);
    Map(JoinPath(to_path, as), reader.PathOf(key));
  }

  void TranslateStudy(const MapReader& root, ConfigNode& training_input);
  void TranslateConvex(const MapReader& spec, int order, ConfigNode& out);
  void TranslateMetrics(MapReader& study, ConfigNode& out);
  void TranslateStopping(MapReader& study, ConfigNode& out);
  ConfigNode TranslateParameter(const ConfigNode& node,
                                const std::string& vertex,
                                const std::string& ai);
  void TranslateValueSpec(MapReader& reader, const std::string& ai,
                          ConfigNode& out);
  ConfigNode TranslateConditional(const ConfigNode& node,
                                  const std::string& vertex,
                                  const std::string& ai);
  void TranslateJobSpec(const ConfigNode& node, ConfigNode& training_input);
  void TranslatePool(const ConfigNode& node, size_t index,
                     const std::string& vertex, ConfigNode& training_input);
  void TranslateMachine(MapReader& pool, const PoolNames& names,
                        ConfigNode& training_input, ConfigNode& config);
  void TranslateContainer(MapReader& pool, const std::string& config_path,
                          ConfigNode& config);
  void TranslateScheduling(MapReader& job, ConfigNode& training_input);

  ErrorSink& sink_;
  VertexTranslation out_;
};

VertexTranslation Translator::Translate(const ConfigNode& root) {
  static const FieldSet kRoot = Fields(
      {"displayName", "studySpec", "maxTrialCount", "parallelTrialCount",
       "maxFailedTrialCount", "trialJobSpec", "labels", "backend", "slurm"},
      RootIgnored());
  MapReader reader(root, "", kRoot, sink_);
  Ignore(reader, RootIgnored());
  out_.config = MapAt(root.order);
  ConfigNode training_input = MapAt(root.order);
  Put(training_input, "scaleTier",
      ScalarAt(Kind::kString, "CUSTOM", root.order));
  Map(kTrainingInput, "(root)");
  Map("trainingInput.masterType",
      "trialJobSpec.workerPoolSpecs[0].machineSpec.machineType");
  if (const ConfigNode* job = reader.Find("trialJobSpec")) {
    TranslateJobSpec(*job, training_input);
  } else {
    reader.Error("trialJobSpec", "required");
  }
  Copy(reader, "displayName", training_input, kTrainingInput, "displayName");
  Put(training_input, "dialect", ScalarAt(Kind::kString, "VERTEX", root.order));
  TranslateStudy(reader, training_input);
  Put(out_.config, kTrainingInput, std::move(training_input));
  for (std::string_view key : {"labels", "backend", "slurm"}) {
    if (const ConfigNode* node = reader.Find(key)) {
      Put(out_.config, std::string(key), *node);
    }
  }
  return std::move(out_);
}

void Translator::TranslateStudy(const MapReader& root,
                                ConfigNode& training_input) {
  static const FieldSet kStudyFields =
      Fields({"metrics", "parameters", "algorithm", "observationNoise",
              "measurementSelectionType", "decayCurveStoppingSpec",
              "medianAutomatedStoppingSpec", "convexAutomatedStoppingSpec",
              "earlyStoppingRule", "seed"},
             {},
             {{"studyStoppingConfig",
               "hptune ends a study at maxTrialCount; leave it out"}});
  const ConfigNode* node = root.Find("studySpec");
  if (node == nullptr) {
    sink_.AddAfter(root.node(), "studySpec", "required");
    return;
  }
  if (!ExpectMap(*node, "studySpec", sink_)) return;
  MapReader study(*node, "studySpec", kStudyFields, sink_);
  ConfigNode out = MapAt(node->order);
  Map(kStudy, "studySpec");
  TranslateMetrics(study, out);
  for (const FieldName& count : kStudyCounts) {
    Copy(root, count.vertex, out, kStudy, std::string(count.ai));
  }
  TranslateStopping(study, out);
  Copy(study, "algorithm", out, kStudy, "algorithm");
  Copy(study, "seed", out, kStudy, "seed");
  if (auto noise = study.String("observationNoise")) {
    if (*noise != "OBSERVATION_NOISE_UNSPECIFIED" && *noise != "LOW" &&
        *noise != "HIGH") {
      study.Error("observationNoise",
                  MustBeOneOf({"OBSERVATION_NOISE_UNSPECIFIED", "LOW", "HIGH"},
                              *noise));
    }
    out_.ignored.push_back(study.PathOf("observationNoise"));
  }
  if (auto selection = study.String("measurementSelectionType")) {
    if (*selection == "BEST_MEASUREMENT") {
      study.Error("measurementSelectionType",
                  "BEST_MEASUREMENT is not supported: a trial's result is its "
                  "last measurement (LAST_MEASUREMENT)");
    } else if (*selection != "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED" &&
               *selection != "LAST_MEASUREMENT") {
      study.Error("measurementSelectionType",
                  MustBeOneOf({"MEASUREMENT_SELECTION_TYPE_UNSPECIFIED",
                               "LAST_MEASUREMENT", "BEST_MEASUREMENT"},
                              *selection));
    }
  }
  const ConfigNode* parameters = study.Find("parameters");
  if (parameters == nullptr) {
    study.Error("parameters", "required");
  } else if (ExpectList(*parameters, "studySpec.parameters", sink_)) {
    ConfigNode params = *parameters;
    params.items.clear();
    for (size_t i = 0; i < parameters->items.size(); ++i) {
      params.items.push_back(TranslateParameter(
          parameters->items[i], IndexPath("studySpec.parameters", i),
          IndexPath(std::string(kStudy) + ".params", i)));
    }
    Put(out, "params", std::move(params));
    Map(std::string(kStudy) + ".params", "studySpec.parameters");
  }
  Put(training_input, "hyperparameters", std::move(out));
}

// One metric without a safety threshold is AI Platform's goal and tag, so
// the study equals the one an AI Platform config of it gives.
void Translator::TranslateMetrics(MapReader& study, ConfigNode& out) {
  static const FieldSet kMetric = Fields({"metricId", "goal", "safetyConfig"});
  static const FieldSet kSafety =
      Fields({"safetyThreshold", "desiredMinSafeTrialsFraction"});
  const ConfigNode* metrics = study.Find("metrics");
  if (metrics == nullptr) {
    study.Error("metrics", "required");
    return;
  }
  const std::string path = study.PathOf("metrics");
  if (!ExpectList(*metrics, path, sink_)) return;
  const std::string ai = std::string(kStudy) + ".metrics";
  ConfigNode list = *metrics;
  list.items.clear();
  for (size_t i = 0; i < metrics->items.size(); ++i) {
    const std::string item = IndexPath(path, i);
    if (!ExpectMap(metrics->items[i], item, sink_)) continue;
    MapReader metric(metrics->items[i], item, kMetric, sink_);
    ConfigNode entry = MapAt(metrics->items[i].order);
    const std::string ai_item = IndexPath(ai, i);
    Map(ai_item, item);
    Copy(metric, "metricId", entry, ai_item, "metricId");
    Copy(metric, "goal", entry, ai_item, "goal");
    if (!metric.Has("metricId")) metric.Error("metricId", "required");
    if (!metric.Has("goal")) metric.Error("goal", "required");
    if (const ConfigNode* safety = metric.Find("safetyConfig");
        safety && ExpectMap(*safety, metric.PathOf("safetyConfig"), sink_)) {
      MapReader config(*safety, metric.PathOf("safetyConfig"), kSafety, sink_);
      Copy(config, "safetyThreshold", entry, ai_item, "safetyThreshold");
      Copy(config, "desiredMinSafeTrialsFraction", entry, ai_item,
           "desiredMinSafeTrialsFraction");
    }
    list.items.push_back(std::move(entry));
  }
  Map(ai, path);
  if (list.items.size() == 1 && list.items[0].fields.size() == 2 &&
      metrics->items.size() == 1) {
    for (ConfigField& field : list.items[0].fields) {
      const bool goal = field.key == "goal";
      const std::string key = goal ? "goal" : "hyperparameterMetricTag";
      Map(JoinPath(kStudy, key),
          IndexPath(path, 0) + (goal ? ".goal" : ".metricId"));
      Put(out, key, std::move(field.value));
    }
    return;
  }
  Put(out, "metrics", std::move(list));
}

// Each of Vertex's three automated stopping specs turns on the study's
// early stopping with the rule of that name (docs/config.md); hptune's
// earlyStoppingRule names any registered rule instead.
void Translator::TranslateStopping(MapReader& study, ConfigNode& out) {
  static const FieldSet kDecay = Fields({"useElapsedDuration"});
  static const FieldSet kConvex =
      Fields({"maxStepCount", "minStepCount", "minMeasurementCount",
              "learningRateParameterName", "useElapsedDuration",
              "updateAllStoppedTrials"});
  const ConfigNode* chosen = nullptr;
  std::string_view rule;
  for (const auto& [key, name] : kVertexStoppingRules) {
    const ConfigNode* node = study.Find(key);
    if (node == nullptr) continue;
    if (chosen != nullptr) {
      study.Error(key, "give one automated stopping spec, got a second");
      continue;
    }
    chosen = node;
    rule = name;
    if (!ExpectMap(*node, study.PathOf(key), sink_)) continue;
    MapReader spec(*node, study.PathOf(key),
                   key == "convexAutomatedStoppingSpec" ? kConvex : kDecay,
                   sink_);
    if (auto elapsed = spec.Bool("useElapsedDuration"); elapsed && *elapsed) {
      spec.Error("useElapsedDuration",
                 "true is not supported: hptune compares trials at the same "
                 "step, got true");
    }
    if (key == "convexAutomatedStoppingSpec") {
      TranslateConvex(spec, node->order, out);
    }
  }
  if (chosen != nullptr && study.Has("earlyStoppingRule")) {
    study.Error("earlyStoppingRule",
                "give an automated stopping spec or hptune's "
                "earlyStoppingRule, not both");
  } else if (chosen != nullptr) {
    Put(out, "earlyStoppingRule",
        ScalarAt(Kind::kString, std::string(rule), chosen->order));
  } else {
    Copy(study, "earlyStoppingRule", out, kStudy, "earlyStoppingRule");
  }
}

// The convex rule's settings become hptune's convexStopping; Vertex's
// learning-rate model and rewriting of stopped trials are not hptune's.
void Translator::TranslateConvex(const MapReader& spec, int order,
                                 ConfigNode& out) {
  const std::string path = JoinPath(kStudy, "convexStopping");
  ConfigNode settings = MapAt(order);
  for (const char* field :
       {"maxStepCount", "minStepCount", "minMeasurementCount"}) {
    Copy(spec, field, settings, path, field);
  }
  if (!settings.fields.empty()) Put(out, "convexStopping", std::move(settings));
  Ignore(spec, {"learningRateParameterName", "updateAllStoppedTrials"});
}

ConfigNode Translator::TranslateParameter(const ConfigNode& node,
                                          const std::string& vertex,
                                          const std::string& ai) {
  static const FieldSet kParameter =
      Fields({"parameterId", "doubleValueSpec", "integerValueSpec",
              "discreteValueSpec", "categoricalValueSpec", "scaleType",
              "conditionalParameterSpecs"});
  ConfigNode out = MapAt(node.order);
  if (!ExpectMap(node, vertex, sink_)) return node;
  MapReader reader(node, vertex, kParameter, sink_);
  Map(ai, vertex);
  Copy(reader, "parameterId", out, ai, "parameterName");
  if (!reader.Has("parameterId")) reader.Error("parameterId", "required");
  TranslateValueSpec(reader, ai, out);
  if (auto scale = reader.String("scaleType");
      scale && *scale != "SCALE_TYPE_UNSPECIFIED") {
    Copy(reader, "scaleType", out, ai, "scaleType");
  }
  if (const ConfigNode* children = reader.Find("conditionalParameterSpecs")) {
    const std::string path = reader.PathOf("conditionalParameterSpecs");
    if (ExpectList(*children, path, sink_)) {
      ConfigNode list = *children;
      list.items.clear();
      for (size_t i = 0; i < children->items.size(); ++i) {
        list.items.push_back(TranslateConditional(
            children->items[i], IndexPath(path, i),
            IndexPath(ai + ".conditionalParameterSpecs", i)));
      }
      Put(out, "conditionalParameterSpecs", std::move(list));
    }
  }
  return out;
}

void Translator::TranslateValueSpec(MapReader& reader, const std::string& ai,
                                    ConfigNode& out) {
  static const FieldSet kRange =
      Fields({"minValue", "maxValue"}, {"defaultValue"});
  static const FieldSet kValues = Fields({"values"}, {"defaultValue"});
  const ValueSpecName* chosen = nullptr;
  for (const ValueSpecName& spec : kValueSpecs) {
    const ConfigNode* node = reader.Find(spec.key);
    if (node == nullptr) continue;
    if (chosen != nullptr) {
      reader.Error(spec.key, "give one value spec, got " +
                                 std::string(chosen->key) + " too");
      continue;
    }
    chosen = &spec;
    const std::string path = reader.PathOf(spec.key);
    Put(out, "type",
        ScalarAt(Kind::kString, std::string(spec.type), node->order));
    Map(ai + ".type", path);
    if (!ExpectMap(*node, path, sink_)) continue;
    MapReader values(*node, path, spec.range ? kRange : kValues, sink_);
    Ignore(values, {"defaultValue"});
    if (spec.range) {
      for (const char* bound : {"minValue", "maxValue"}) {
        Map(ai + "." + bound, values.PathOf(bound));
        const ConfigNode* value = values.Find(bound);
        if (value == nullptr) continue;
        Put(out, bound, spec.integer ? Int64Node(*value) : *value);
      }
    } else {
      const std::string key = spec.key == "discreteValueSpec"
                                  ? "discreteValues"
                                  : "categoricalValues";
      Map(ai + "." + key, values.PathOf("values"));
      Copy(values, "values", out, ai, key);
    }
  }
  if (chosen == nullptr) {
    sink_.AddAfter(reader.node(), reader.path(),
                   "needs one of doubleValueSpec, integerValueSpec, "
                   "discreteValueSpec or categoricalValueSpec");
  }
}

ConfigNode Translator::TranslateConditional(const ConfigNode& node,
                                            const std::string& vertex,
                                            const std::string& ai) {
  static const FieldSet kConditional =
      Fields({"parentDiscreteValues", "parentIntValues",
              "parentCategoricalValues", "parameterSpec"});
  if (!ExpectMap(node, vertex, sink_)) return node;
  MapReader reader(node, vertex, kConditional, sink_);
  ConfigNode out = MapAt(node.order);
  Map(ai, vertex);
  for (std::string_view key :
       {"parentDiscreteValues", "parentIntValues", "parentCategoricalValues"}) {
    const ConfigNode* parent = reader.Find(key);
    if (parent == nullptr) continue;
    ConfigNode copy = *parent;
    if (key == "parentIntValues" && copy.kind == Kind::kMap) {
      for (ConfigField& field : copy.fields) {
        if (field.key == "values") field.value = Int64List(field.value);
      }
    }
    Put(out, std::string(key), std::move(copy));
  }
  if (const ConfigNode* spec = reader.Find("parameterSpec")) {
    Put(out, "parameterSpec",
        TranslateParameter(*spec, reader.PathOf("parameterSpec"),
                           ai + ".parameterSpec"));
  }
  return out;
}

void Translator::TranslateJobSpec(const ConfigNode& node,
                                  ConfigNode& training_input) {
  static const FieldSet kJob =
      Fields({"workerPoolSpecs", "scheduling", "baseOutputDirectory"},
             JobSpecIgnored());
  static const FieldSet kOutput = Fields({"outputUriPrefix"});
  if (!ExpectMap(node, "trialJobSpec", sink_)) return;
  MapReader job(node, "trialJobSpec", kJob, sink_);
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

}  // namespace

bool IsVertexSpec(const ConfigNode& root) {
  if (root.kind != Kind::kMap) return false;
  bool vertex = false;
  for (const ConfigField& field : root.fields) {
    if (field.key == kTrainingInput) return false;
    vertex = vertex || field.key == "studySpec" || field.key == "trialJobSpec";
  }
  return vertex;
}

VertexTranslation TranslateVertexSpec(const ConfigNode& root, ErrorSink& sink) {
  return Translator(sink).Translate(root);
}

std::string ToVertexPath(const std::map<std::string, std::string>& paths,
                         const std::string& field) {
  for (size_t end = field.size(); end > 0;) {
    auto it = paths.find(field.substr(0, end));
    if (it != paths.end()) {
      std::string rest = field.substr(end);
      if (it->second == "(root)")
        return rest.empty() ? it->second : rest.substr(1);
      return it->second + rest;
    }
    const size_t cut = field.find_last_of(".[", end - 1);
    if (cut == std::string::npos || cut == 0) break;
    end = cut;
  }
  return field;
}

}  // namespace hptune::config_internal
