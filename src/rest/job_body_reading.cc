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

}  // namespace

absl::StatusOr<v1::SubmitJobRequest> ReadCreateJobBody(std::string_view body) {
  // Read once, as a config file is: the same fields, rules and messages as
  // `hptune jobs submit --config`.
  ConfigParseResult parsed = ParseJobResource(body);
  if (!parsed.errors.empty()) return FieldErrorsToStatus(parsed.errors);
  v1::SubmitJobRequest request;
  request.set_job_id(parsed.job->job_id);
  request.mutable_labels()->insert(parsed.job->labels.begin(),
                                   parsed.job->labels.end());
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
