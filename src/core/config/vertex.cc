// A Vertex AI HyperparameterTuningJob as the config tree of the same job in
// AI Platform's form (vertex.h). Field names and shapes: the Vertex REST
// reference (cloud.google.com/vertex-ai/docs/reference/rest/v1/
// projects.locations.hyperparameterTuningJobs, StudySpec, CustomJobSpec,
// WorkerPoolSpec) and google/cloud/aiplatform/v1/{hyperparameter_tuning_job,
// study,custom_job,machine_resources,env_var}.proto.
#include "src/core/config/vertex.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/core/config/vertex_translator.h"

namespace hptune::config_internal {
namespace {

using Kind = ConfigNode::Kind;

}  // namespace

namespace vertex {
namespace {

// Google Cloud's own fields: accepted so a spec runs unchanged, ignored.
const std::vector<std::string>& RootIgnored() {
  static const auto* const kKeys = new std::vector<std::string>{
      "encryptionSpec", "name",         "state",       "trials",
      "createTime",     "startTime",    "endTime",     "updateTime",
      "error",          "satisfiesPzs", "satisfiesPzi"};
  return *kKeys;
}

// A CustomJob's output-only and Google Cloud fields (CustomJob in
// cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.
// customJobs): accepted, ignored.
const std::vector<std::string>& CustomJobIgnored() {
  static const auto* const kKeys = new std::vector<std::string>{
      "encryptionSpec", "name",         "state",       "createTime",
      "startTime",      "endTime",      "updateTime",  "error",
      "webAccessUris",  "satisfiesPzs", "satisfiesPzi"};
  return *kKeys;
}

}  // namespace

FieldSet Fields(std::vector<std::string> accepted,
                const std::vector<std::string>& ignored,
                std::map<std::string, std::string> unsupported) {
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

VertexTranslation Translator::Translate(const ConfigNode& root) {
  static const FieldSet kRoot = Fields(
      {"displayName", "studySpec", "maxTrialCount", "parallelTrialCount",
       "maxFailedTrialCount", "trialJobSpec", "labels", "backend", "slurm"},
      RootIgnored());
  static const FieldSet kCustomJob =
      Fields({"displayName", "jobSpec", "labels", "backend", "slurm"},
             CustomJobIgnored());
  const bool custom = IsVertexCustomJob(root);
  const std::string job_key = custom ? "jobSpec" : "trialJobSpec";
  MapReader reader(root, "", custom ? kCustomJob : kRoot, sink_);
  Ignore(reader, custom ? CustomJobIgnored() : RootIgnored());
  out_.config = MapAt(root.order);
  ConfigNode training_input = MapAt(root.order);
  Put(training_input, "scaleTier",
      ScalarAt(Kind::kString, "CUSTOM", root.order));
  Map(kTrainingInput, "(root)");
  Map("trainingInput.masterType",
      job_key + ".workerPoolSpecs[0].machineSpec.machineType");
  if (const ConfigNode* job = reader.Find(job_key)) {
    TranslateJobSpec(*job, job_key, training_input);
  } else {
    reader.Error(job_key, "required");
  }
  Copy(reader, "displayName", training_input, kTrainingInput, "displayName");
  Put(training_input, "dialect", ScalarAt(Kind::kString, "VERTEX", root.order));
  // A CustomJob is one training run: no study.
  if (!custom) TranslateStudy(reader, training_input);
  Put(out_.config, kTrainingInput, std::move(training_input));
  for (std::string_view key : {"labels", "backend", "slurm"}) {
    if (const ConfigNode* node = reader.Find(key)) {
      Put(out_.config, std::string(key), *node);
    }
  }
  return std::move(out_);
}

}  // namespace vertex

bool IsVertexSpec(const ConfigNode& root) {
  if (root.kind != Kind::kMap) return false;
  bool vertex = false;
  for (const ConfigField& field : root.fields) {
    if (field.key == vertex::kTrainingInput) return false;
    vertex = vertex || field.key == "studySpec" ||
             field.key == "trialJobSpec" || field.key == "jobSpec";
  }
  return vertex;
}

bool IsVertexCustomJob(const ConfigNode& root) {
  if (!IsVertexSpec(root)) return false;
  bool job_spec = false;
  for (const ConfigField& field : root.fields) {
    if (field.key == "studySpec" || field.key == "trialJobSpec") return false;
    job_spec = job_spec || field.key == "jobSpec";
  }
  return job_spec;
}

VertexTranslation TranslateVertexSpec(const ConfigNode& root, ErrorSink& sink) {
  return vertex::Translator(sink).Translate(root);
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
