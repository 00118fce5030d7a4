#include "src/rest/job_routes.h"

#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/api/grpc_status.h"
#include "src/rest/google_error.h"
#include "src/rest/job_body_reading.h"
#include "src/rest/list_filter.h"

namespace hptune::rest {
namespace {

// Long enough for a submission that waits on the store; a stuck call ends.
constexpr std::chrono::seconds kCallDeadline{60};

RestReply FromGrpcError(const grpc::Status& status) {
  return {.http_status = HttpCodeOf(status.error_code()),
          .json = GoogleErrorJson(status.error_code(), status.error_message())};
}

// A header value gRPC could not carry as metadata is no token at all.
bool IsPrintableAscii(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// The v1 messages' JSON names are AI Platform's (jobId, trainingInput,
// trainingOutput.trials[].finalMetric, ...); int64 values are strings and
// times RFC 3339, as in Google's APIs.
RestReply ToJsonReply(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    return FromGrpcError(grpc::Status(grpc::StatusCode::INTERNAL,
                                      "the reply could not be written"));
  }
  return {.http_status = 200, .json = std::move(json)};
}

// Calls `method` of the service with the caller's credentials.
template <typename Request, typename Reply, typename Method>
RestReply Call(const RestCall& call, Method method, const Request& request) {
  if (!IsPrintableAscii(call.authorization)) {
    return FromGrpcError(
        grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                     "the Authorization header must be \"Bearer <token>\""));
  }
  auto stub = v1::JobService::NewStub(call.channel);
  grpc::ClientContext context;
  context.set_deadline(call.received + kCallDeadline);
  if (!call.authorization.empty()) {
    context.AddMetadata("authorization", call.authorization);
  }
  Reply reply;
  grpc::Status status = ((*stub).*method)(&context, request, &reply);
  if (!status.ok()) return FromGrpcError(status);
  return ToJsonReply(reply);
}

}  // namespace

RestReply ErrorReply(const absl::Status& status) {
  return FromGrpcError(api::ToGrpcStatus(status));
}

RestReply CreateJob(const RestCall& call, std::string_view body) {
  absl::StatusOr<v1::SubmitJobRequest> request = ReadCreateJobBody(body);
  if (!request.ok()) return ErrorReply(request.status());
  return Call<v1::SubmitJobRequest, v1::Job>(
      call, &v1::JobService::Stub::SubmitJob, *request);
}

RestReply GetJob(const RestCall& call, std::string_view job_id) {
  v1::GetJobRequest request;
  request.set_job_id(std::string(job_id));
  return Call<v1::GetJobRequest, v1::Job>(call, &v1::JobService::Stub::GetJob,
                                          request);
}

RestReply ListJobs(const RestCall& call, std::string_view filter,
                   std::string_view page_size, std::string_view page_token) {
  v1::ListJobsRequest request;
  if (absl::Status s = ApplyListFilter(filter, request); !s.ok()) {
    return ErrorReply(s);
  }
  if (!page_size.empty()) {
    int32_t size = 0;
    if (!absl::SimpleAtoi(std::string(page_size), &size) || size < 0) {
      return ErrorReply(absl::InvalidArgumentError(
          absl::StrCat("pageSize: must be a number of jobs, got \"",
                       std::string(page_size), "\"")));
    }
    request.set_page_size(size);
  }
  request.set_page_token(std::string(page_token));
  return Call<v1::ListJobsRequest, v1::ListJobsResponse>(
      call, &v1::JobService::Stub::ListJobs, request);
}

RestReply CancelJob(const RestCall& call, std::string_view job_id) {
  v1::CancelJobRequest request;
  request.set_job_id(std::string(job_id));
  // AI Platform answers cancel with google.protobuf.Empty.
  RestReply reply = Call<v1::CancelJobRequest, v1::Job>(
      call, &v1::JobService::Stub::CancelJob, request);
  if (reply.http_status == 200) reply.json = "{}";
  return reply;
}

RestReply PatchJob(const RestCall& call, std::string_view job_id,
                   std::string_view body, std::string_view update_mask) {
  absl::StatusOr<v1::UpdateJobRequest> request =
      ReadPatchJobBody(job_id, body, update_mask);
  if (!request.ok()) return ErrorReply(request.status());
  return Call<v1::UpdateJobRequest, v1::Job>(
      call, &v1::JobService::Stub::UpdateJob, *request);
}

}  // namespace hptune::rest
