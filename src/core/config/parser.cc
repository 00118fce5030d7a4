// ParseJobConfig and LoadJobConfigFile: text -> tree -> JobSpec, with every
// error of the file in file order.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"
#include "src/core/config/backend.h"
#include "src/core/config/hyperparameters.h"
#include "src/core/config/labels.h"
#include "src/core/config/reader.h"
#include "src/core/config/text.h"
#include "src/core/config/training_input.h"
#include "src/core/config/tree.h"
#include "src/core/config/vertex.h"

namespace hptune {
namespace {

using config_internal::CollectPathOrders;
using config_internal::ConfigNode;
using config_internal::ErrorSink;
using config_internal::FieldSet;
using config_internal::IsUnderAny;
using config_internal::MapReader;
using config_internal::OrderOfPath;

constexpr char kHyperparametersPath[] = "trainingInput.hyperparameters";
// Errors that are not about a place in the file (the job ID, an empty file)
// come first.
constexpr int kBeforeFile = -1;

const FieldSet& RootFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"trainingInput", "labels", "backend", "slurm"},
      .unsupported = {{"jobId",
                       "give the job ID on the command line, not in the file"}},
      .hints = {},
  };
  return *kFields;
}

// The Job resource of AI Platform's REST API (ParseJobResource).
const FieldSet& JobResourceFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"jobId", "trainingInput", "labels", "createTime",
                   "startTime", "endTime", "state", "errorMessage",
                   "trainingOutput", "etag"},
      .unsupported =
          {{"predictionInput", "hptune runs training jobs (trainingInput)"},
           {"predictionOutput", "hptune runs training jobs (trainingInput)"},
           {"backend", "the server chooses where trials run; not in a request"},
           {"slurm", "the server chooses where trials run; not in a request"}},
      .hints = {},
  };
  return *kFields;
}

bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isspace(c) != 0; });
}

// The hyperparameters block: its shape, then (with `rules`)
// ValidateStudySpec's rules on what was read, each error placed where its
// field is in the file.
void ParseStudy(const ConfigNode& node, std::string_view job_id, bool rules,
                ErrorSink& sink, JobSpec* job) {
  config_internal::HyperparametersRead read =
      config_internal::ReadHyperparameters(node, kHyperparametersPath, sink);
  if (!rules) {
    job->study = std::move(read.spec);
    return;
  }
  std::map<std::string, int> orders;
  CollectPathOrders(node, kHyperparametersPath, &orders);
  for (FieldError& error : ValidateStudySpec(read.spec, kHyperparametersPath)) {
    if (IsUnderAny(error.field, read.reported)) continue;
    const int order = OrderOfPath(orders, error.field, node.order);
    sink.Add(order, std::move(error.field), std::move(error.message));
  }
  const std::string& resume = read.spec.resume_previous_job_id;
  if (!job_id.empty() && resume == job_id) {
    const std::string field =
        std::string(kHyperparametersPath) + ".resumePreviousJobId";
    sink.Add(
        OrderOfPath(orders, field, node.order), field,
        "a job cannot resume itself, got " + config_internal::Quote(resume));
  }
  job->study = std::move(read.spec);
}

// The fields of a job's root (labels, backend, trainingInput) from `reader`.
void ReadJobFields(MapReader& reader, const MachineCatalogue* catalogue,
                   std::string_view job_id, ErrorSink& sink, JobSpec* job,
                   BackendConfig* backend);

// `catalogue` null: the shape alone, for text hptune wrote (DecodeStoredJob).
void ParseTree(const ConfigNode& root, const MachineCatalogue* catalogue,
               std::string_view job_id, ErrorSink& sink, JobSpec* job,
               BackendConfig* backend);

// A Vertex HyperparameterTuningJob: its own shape, then the usual reading
// of the AI Platform config it stands for, with each error's field mapped
// back to the Vertex field. An error under a field whose shape was already
// reported says nothing new and is left out.
void ParseVertexTree(const ConfigNode& root, const MachineCatalogue& catalogue,
                     std::string_view job_id, ErrorSink& sink,
                     ConfigParseResult* result, JobSpec* job) {
  ErrorSink shape;
  config_internal::VertexTranslation translation =
      config_internal::TranslateVertexSpec(root, shape);
  ErrorSink rules;
  ParseTree(translation.config, &catalogue, job_id, rules, job,
            &result->backend);
  const std::vector<std::string> reported = shape.Fields();
  sink.Absorb(std::move(shape), [](const std::string& field) { return field; });
  sink.Absorb(std::move(rules),
              [&](const std::string& field) -> std::optional<std::string> {
                std::string mapped =
                    config_internal::ToVertexPath(translation.paths, field);
                if (IsUnderAny(mapped, reported)) return std::nullopt;
                return mapped;
              });
  result->ignored_fields = std::move(translation.ignored);
}

void ParseTree(const ConfigNode& root, const MachineCatalogue* catalogue,
               std::string_view job_id, ErrorSink& sink, JobSpec* job,
               BackendConfig* backend) {
  if (root.kind != ConfigNode::Kind::kMap) {
    sink.Add(root, "(root)",
             "must be a mapping with a trainingInput field, got " +
                 config_internal::Describe(root));
    return;
  }
  MapReader reader(root, "", RootFields(), sink);
  ReadJobFields(reader, catalogue, job_id, sink, job, backend);
}

void ReadJobFields(MapReader& reader, const MachineCatalogue* catalogue,
                   std::string_view job_id, ErrorSink& sink, JobSpec* job,
                   BackendConfig* backend) {
  config_internal::ReadLabels(reader, &job->labels);
  config_internal::ReadBackend(reader, backend);
  const ConfigNode* training_input = reader.Find("trainingInput");
  if (training_input == nullptr) {
    reader.Error("trainingInput", "required");
    return;
  }
  if (!ExpectMap(*training_input, "trainingInput", sink)) return;
  const ConfigNode* hyperparameters =
      config_internal::ReadTrainingInput(*training_input, catalogue, sink, job);
  if (hyperparameters != nullptr &&
      ExpectMap(*hyperparameters, kHyperparametersPath, sink)) {
    ParseStudy(*hyperparameters, job_id, catalogue != nullptr, sink, job);
  }
}

// The text's tree; nullopt with the reason in `sink` for a text too large,
// empty, or not JSON/YAML.
std::optional<ConfigNode> ReadTextTree(std::string_view text,
                                       ConfigFormat format, ErrorSink& sink) {
  if (text.size() > config_internal::kMaxConfigBytes) {
    sink.Add(
        kBeforeFile, "(config)",
        "must be at most 4 MiB, got " + std::to_string(text.size()) + " bytes");
    return std::nullopt;
  }
  if (IsBlank(text)) {
    sink.Add(kBeforeFile, "trainingInput", "required (the config is empty)");
    return std::nullopt;
  }
  if (format == ConfigFormat::kAuto) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    format = text[first] == '{' ? ConfigFormat::kJson : ConfigFormat::kYaml;
  }
  config_internal::TreeParseResult tree =
      format == ConfigFormat::kJson ? config_internal::ParseJsonTree(text)
                                    : config_internal::ParseYamlTree(text);
  for (FieldError& error : tree.errors) {
    sink.Add(kBeforeFile, std::move(error.field), std::move(error.message));
  }
  if (!tree.errors.empty()) return std::nullopt;
  if (!tree.root || tree.root->kind == ConfigNode::Kind::kNull) {
    sink.Add(kBeforeFile, "trainingInput", "required (the config is empty)");
    return std::nullopt;
  }
  return std::move(tree.root);
}

// A Job resource's jobId, checked, into `job`.
void ReadJobId(MapReader& reader, ErrorSink& sink, JobSpec* job) {
  const ConfigNode* node = reader.Find("jobId");
  if (node == nullptr) {
    reader.Error("jobId", "required");
    return;
  }
  std::optional<std::string> id = reader.String("jobId");
  if (!id) return;
  job->job_id = *id;
  for (FieldError& error : ValidateJobId(*id, "jobId")) {
    sink.Add(*node, std::move(error.field), std::move(error.message));
  }
}

}  // namespace

ConfigParseResult ParseJobResource(std::string_view json) {
  ConfigParseResult result;
  ErrorSink sink;
  JobSpec job;
  if (std::optional<ConfigNode> root =
          ReadTextTree(json, ConfigFormat::kJson, sink)) {
    if (root->kind != ConfigNode::Kind::kMap) {
      sink.Add(*root, "(root)",
               "must be a JSON object (a Job), got " +
                   config_internal::Describe(*root));
    } else {
      MapReader reader(*root, "", JobResourceFields(), sink);
      ReadJobId(reader, sink, &job);
      ReadJobFields(reader, &MachineCatalogue::Builtin(), job.job_id, sink,
                    &job, &result.backend);
    }
  }
  result.errors = sink.Sorted();
  if (result.errors.empty()) result.job = std::move(job);
  return result;
}

ConfigParseResult ParseJobConfig(std::string_view text, ConfigFormat format,
                                 std::string_view job_id) {
  return ParseJobConfig(MachineCatalogue::Builtin(), text, format, job_id);
}

ConfigParseResult ParseJobConfig(const MachineCatalogue& catalogue,
                                 std::string_view text, ConfigFormat format,
                                 std::string_view job_id) {
  ConfigParseResult result;
  ErrorSink sink;
  JobSpec job;
  job.job_id = std::string(job_id);
  if (!job_id.empty()) {
    for (FieldError& error : ValidateJobId(job_id, "jobId")) {
      sink.Add(kBeforeFile, std::move(error.field), std::move(error.message));
    }
  }
  if (std::optional<ConfigNode> root = ReadTextTree(text, format, sink)) {
    if (config_internal::IsVertexSpec(*root)) {
      ParseVertexTree(*root, catalogue, job_id, sink, &result, &job);
    } else {
      ParseTree(*root, &catalogue, job_id, sink, &job, &result.backend);
    }
  }
  result.errors = sink.Sorted();
  if (result.errors.empty()) result.job = std::move(job);
  return result;
}

absl::StatusOr<StudySpec> ParseStudySpecJson(std::string_view json) {
  constexpr char kPath[] = "hyperparameters";
  config_internal::TreeParseResult tree = config_internal::ParseJsonTree(json);
  if (!tree.errors.empty()) return FieldErrorsToStatus(tree.errors);
  ErrorSink sink;
  if (!tree.root || !ExpectMap(*tree.root, kPath, sink)) {
    if (!tree.root)
      sink.Add(kBeforeFile, kPath, "required (the text is empty)");
    return FieldErrorsToStatus(sink.Sorted());
  }
  config_internal::HyperparametersRead read =
      config_internal::ReadHyperparameters(*tree.root, kPath, sink);
  for (FieldError& error : ValidateStudySpec(read.spec, kPath)) {
    if (IsUnderAny(error.field, read.reported)) continue;
    sink.Add(kBeforeFile, std::move(error.field), std::move(error.message));
  }
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(sink.Sorted()));
  return std::move(read.spec);
}

namespace {

// A JobSpec from a tree hptune wrote, its shape alone read.
absl::StatusOr<JobSpec> DecodeJobTree(const ConfigNode& root,
                                      std::string_view job_id) {
  ErrorSink sink;
  JobSpec job;
  job.job_id = std::string(job_id);
  BackendConfig backend;
  ParseTree(root, /*catalogue=*/nullptr, job_id, sink, &job, &backend);
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(sink.Sorted()));
  return job;
}

}  // namespace

absl::StatusOr<JobSpec> DecodeStoredJob(std::string_view json,
                                        std::string_view job_id) {
  config_internal::TreeParseResult tree = config_internal::ParseJsonTree(json);
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(tree.errors));
  if (!tree.root) {
    return absl::InvalidArgumentError(
        "trainingInput: required (the text is "
        "empty)");
  }
  return DecodeJobTree(*tree.root, job_id);
}

absl::StatusOr<JobSpec> DecodeTfConfigJob(std::string_view tf_config) {
  config_internal::TreeParseResult tree =
      config_internal::ParseJsonTree(tf_config);
  const ConfigNode* job = nullptr;
  if (tree.errors.empty() && tree.root &&
      tree.root->kind == ConfigNode::Kind::kMap) {
    for (const config_internal::ConfigField& field : tree.root->fields) {
      if (field.key == "job") job = &field.value;
    }
  }
  if (job == nullptr || job->kind != ConfigNode::Kind::kMap) {
    return absl::NotFoundError("TF_CONFIG has no \"job\" object");
  }
  for (const config_internal::ConfigField& field : job->fields) {
    if (field.key == "trainingInput") return DecodeJobTree(*job, "");
  }
  ConfigNode root{.kind = ConfigNode::Kind::kMap};
  root.fields.push_back({.key = "trainingInput", .value = *job});
  return DecodeJobTree(root, "");
}

absl::StatusOr<StudySpec> DecodeStoredStudySpec(std::string_view json) {
  constexpr char kPath[] = "hyperparameters";
  config_internal::TreeParseResult tree = config_internal::ParseJsonTree(json);
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(tree.errors));
  ErrorSink sink;
  if (!tree.root) {
    sink.Add(kBeforeFile, kPath, "required (the text is empty)");
  } else if (ExpectMap(*tree.root, kPath, sink)) {
    config_internal::HyperparametersRead read =
        config_internal::ReadHyperparameters(*tree.root, kPath, sink);
    if (sink.size() == 0) return std::move(read.spec);
  }
  return FieldErrorsToStatus(sink.Sorted());
}

void ResolveConfigPaths(
    const std::filesystem::path& config_dir,
    const std::function<bool(const std::filesystem::path&)>& is_file,
    JobSpec& job) {
  auto resolve = [&config_dir](std::string& path) {
    if (path.empty() || path.find("://") != std::string::npos ||
        std::filesystem::path(path).is_absolute()) {
      return;
    }
    path = (config_dir / path).lexically_normal().string();
  };
  resolve(job.package_path);
  resolve(job.job_dir);
  resolve(job.base_output_directory);
  for (std::string& uri : job.package_uris) resolve(uri);
  // Packages a container installs are read from this machine.
  for (TaskPool* pool :
       {&job.master, &job.worker, &job.parameter_server, &job.evaluator}) {
    for (std::string& uri : pool->container.package_uris) resolve(uri);
  }
  // "python3" is looked up on PATH; "./train.sh" and "bin/train" are files.
  if (!job.command.empty() &&
      job.command.front().find('/') != std::string::npos) {
    resolve(job.command.front());
  }
  // Replicas run in their trial's directory: the script of
  // [python3, train.py] is found beside the config.
  for (size_t i = 1; i < job.command.size(); ++i) {
    std::string& arg = job.command[i];
    if (arg.empty() || arg.front() == '-' || !is_file(config_dir / arg)) {
      continue;
    }
    resolve(arg);
  }
}

}  // namespace hptune
