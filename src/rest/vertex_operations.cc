#include "src/rest/vertex_operations.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "nlohmann/json.hpp"

namespace hptune::rest {
namespace {

constexpr std::string_view kDeletePrefix = "delete-";

}  // namespace

std::string DeleteOperationName(const VertexPlace& place,
                                std::string_view job_id) {
  return absl::StrCat("projects/", place.project, "/locations/", place.location,
                      "/operations/", std::string(kDeletePrefix),
                      std::string(job_id));
}

std::string DeleteOperationJson(std::string_view name,
                                std::optional<Timestamp> time) {
  nlohmann::json generic = nlohmann::json::object();
  if (time) {
    generic["createTime"] = FormatRfc3339(*time);
    generic["updateTime"] = FormatRfc3339(*time);
  }
  const nlohmann::json operation = {
      {"name", std::string(name)},
      {"metadata",
       {{"@type",
         "type.googleapis.com/google.cloud.aiplatform.v1."
         "DeleteOperationMetadata"},
        {"genericMetadata", std::move(generic)}}},
      {"done", true},
      {"response", {{"@type", "type.googleapis.com/google.protobuf.Empty"}}}};
  return operation.dump();
}

RestReply GetVertexOperation(const RestCall& call, const VertexPlace& place,
                             std::string_view operation_id) {
  const std::string name =
      absl::StrCat("projects/", place.project, "/locations/", place.location,
                   "/operations/", std::string(operation_id));
  if (!operation_id.starts_with(kDeletePrefix) ||
      operation_id.size() == kDeletePrefix.size()) {
    return ErrorReply(absl::NotFoundError(absl::StrCat(
        "operation \"", name,
        "\" not found: hptune's operations are its deletes, delete-JOB")));
  }
  v1::GetJobRequest request;
  request.set_job_id(std::string(operation_id.substr(kDeletePrefix.size())));
  request.set_omit_trials(true);
  v1::Job job;
  const grpc::Status status = CallService<v1::JobService>(
      call, &v1::JobService::Stub::GetJob, request, &job);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    return {.http_status = 200, .json = DeleteOperationJson(name, {})};
  }
  if (!status.ok()) return ReplyOfError(status);
  return ErrorReply(absl::NotFoundError(
      absl::StrCat("operation \"", name, "\" not found: job \"",
                   request.job_id(), "\" exists (it was not deleted)")));
}

}  // namespace hptune::rest
