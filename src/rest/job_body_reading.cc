#include "src/rest/job_body_reading.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"

namespace hptune::rest {
namespace {

using Json = nlohmann::json;

absl::StatusOr<Json> ParseObject(std::string_view body) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError("the request body is not valid JSON");
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError("the request body must be a JSON object");
  }
  return json;
}

// Job.labels: an object of strings; ValidateJobLabels judges them later.
absl::Status ReadLabels(const Json& job,
                        google::protobuf::Map<std::string, std::string>& out) {
  auto labels = job.find("labels");
  if (labels == job.end()) return absl::OkStatus();
  if (!labels->is_object()) {
    return absl::InvalidArgumentError("labels: must be an object of strings");
  }
  for (const auto& [key, value] : labels->items()) {
    if (!value.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("labels.", key, ": must be a string"));
    }
    out[key] = value.get<std::string>();
  }
  return absl::OkStatus();
}

// Output-only fields of Job a client may echo back (gcloud does not).
bool IsOutputOnly(const std::string& key) {
  static const auto* const kFields = new std::vector<std::string>{
      "createTime",   "startTime",      "endTime", "state",
      "errorMessage", "trainingOutput", "etag"};
  return std::find(kFields->begin(), kFields->end(), key) != kFields->end();
}

}  // namespace

absl::StatusOr<v1::SubmitJobRequest> ReadCreateJobBody(std::string_view body) {
  absl::StatusOr<Json> job = ParseObject(body);
  if (!job.ok()) return job.status();
  for (const auto& [key, value] : job->items()) {
    if (key == "jobId" || key == "trainingInput" || key == "labels" ||
        IsOutputOnly(key)) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        key, ": not supported: hptune runs training jobs (trainingInput)"));
  }
  auto id = job->find("jobId");
  if (id == job->end() || !id->is_string() || id->get<std::string>().empty()) {
    return absl::InvalidArgumentError("jobId: required, a string");
  }
  auto input = job->find("trainingInput");
  if (input == job->end()) {
    return absl::InvalidArgumentError("trainingInput: required");
  }
  v1::SubmitJobRequest request;
  request.set_job_id(id->get<std::string>());
  if (absl::Status s = ReadLabels(*job, *request.mutable_labels()); !s.ok()) {
    return s;
  }
  // The config parser reads what a config file's `trainingInput` would say:
  // the same fields, rules and messages as `hptune jobs submit --config`.
  const std::string config = Json{{"trainingInput", *input}}.dump();
  ConfigParseResult parsed =
      ParseJobConfig(config, ConfigFormat::kJson, request.job_id());
  if (!parsed.errors.empty()) return FieldErrorsToStatus(parsed.errors);
  *request.mutable_training_input() = api::JobSpecToProto(*parsed.job);
  return request;
}

absl::StatusOr<v1::UpdateJobRequest> ReadPatchJobBody(
    std::string_view job_id, std::string_view body,
    std::string_view update_mask) {
  std::vector<std::string> paths =
      absl::StrSplit(std::string(update_mask), ',');
  if (std::find(paths.begin(), paths.end(), "labels") == paths.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updateMask: must name labels, the one field hptune updates; got \"",
        std::string(update_mask), "\""));
  }
  for (const std::string& path : paths) {
    if (path != "labels" && path != "etag") {
      return absl::InvalidArgumentError(
          absl::StrCat("updateMask: hptune updates labels only, not ", path));
    }
  }
  absl::StatusOr<Json> job = ParseObject(body);
  if (!job.ok()) return job.status();
  v1::UpdateJobRequest request;
  request.set_job_id(std::string(job_id));
  request.set_clear_labels(true);
  if (absl::Status s = ReadLabels(*job, *request.mutable_update_labels());
      !s.ok()) {
    return s;
  }
  return request;
}

}  // namespace hptune::rest
