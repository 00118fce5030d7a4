#include "src/rest/job_routes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/rest/job_body_reading.h"
#include "src/rest/list_filter.h"

namespace hptune::rest {
namespace {

// The v1 messages' JSON names are AI Platform's (jobId, trainingInput,
// trainingOutput.trials[].finalMetric, ...); int64 values are strings and
// times RFC 3339, as in Google's APIs.
RestReply ToJsonReply(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    return ReplyOfError(grpc::Status(grpc::StatusCode::INTERNAL,
                                     "the reply could not be written"));
  }
  return {.http_status = 200, .json = std::move(json)};
}

// AI Platform sets a job's trials, completedTrialCount, bestTrial and
// hyperparameterMetricTag only for a hyperparameter tuning job (its REST
// reference, TrainingOutput). The one trial of a job without
// hyperparameters stays behind the gateway, where the logs routes find it.
void AsAiPlatformJob(v1::Job& job) {
  v1::TrainingOutput& output = *job.mutable_training_output();
  if (output.is_hyperparameter_tuning_job()) return;
  output.clear_trials();
  output.clear_completed_trial_count();
  output.clear_best_trial();
  output.clear_optimal_trial_ids();
  output.clear_hyperparameter_metric_tag();
}
void AsAiPlatformJobs(v1::ListJobsResponse& list) {
  for (v1::Job& job : *list.mutable_jobs()) AsAiPlatformJob(job);
}

// Calls `method` of the JobService for the caller; its reply, given AI
// Platform's shape by `shape`, as JSON.
template <typename Request, typename Reply, typename Method>
RestReply Call(const RestCall& call, Method method, const Request& request,
               void (*shape)(Reply&)) {
  Reply reply;
  grpc::Status status =
      CallService<v1::JobService>(call, method, request, &reply);
  if (!status.ok()) return ReplyOfError(status);
  shape(reply);
  return ToJsonReply(reply);
}

}  // namespace

RestReply CreateJob(const RestCall& call, std::string_view body) {
  absl::StatusOr<v1::SubmitJobRequest> request = ReadCreateJobBody(body);
  if (!request.ok()) return ErrorReply(request.status());
  return Call<v1::SubmitJobRequest, v1::Job>(
      call, &v1::JobService::Stub::SubmitJob, *request, AsAiPlatformJob);
}

RestReply GetJob(const RestCall& call, std::string_view job_id) {
  v1::GetJobRequest request;
  request.set_job_id(std::string(job_id));
  return Call<v1::GetJobRequest, v1::Job>(call, &v1::JobService::Stub::GetJob,
                                          request, AsAiPlatformJob);
}

RestReply ListJobs(const RestCall& call, std::string_view filter,
                   std::string_view page_size, std::string_view page_token) {
  v1::ListJobsRequest request;
  if (absl::Status s = ApplyListFilter(filter, request); !s.ok()) {
    return ErrorReply(s);
  }
  absl::StatusOr<int32_t> size = ReadPageSize(page_size);
  if (!size.ok()) return ErrorReply(size.status());
  request.set_page_size(*size);
  request.set_page_token(std::string(page_token));
  return Call<v1::ListJobsRequest, v1::ListJobsResponse>(
      call, &v1::JobService::Stub::ListJobs, request, AsAiPlatformJobs);
}

RestReply CancelJob(const RestCall& call, std::string_view job_id) {
  v1::CancelJobRequest request;
  request.set_job_id(std::string(job_id));
  // AI Platform answers cancel with google.protobuf.Empty.
  RestReply reply = Call<v1::CancelJobRequest, v1::Job>(
      call, &v1::JobService::Stub::CancelJob, request, AsAiPlatformJob);
  if (reply.http_status == 200) reply.json = "{}";
  return reply;
}

RestReply PatchJob(const RestCall& call, std::string_view job_id,
                   std::string_view body, std::string_view update_mask) {
  absl::StatusOr<v1::UpdateJobRequest> request =
      ReadPatchJobBody(job_id, body, update_mask);
  if (!request.ok()) return ErrorReply(request.status());
  return Call<v1::UpdateJobRequest, v1::Job>(
      call, &v1::JobService::Stub::UpdateJob, *request, AsAiPlatformJob);
}

}  // namespace hptune::rest
