#include "src/rest/vertex_routes.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "hptune/v1/study_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"
#include "src/rest/list_filter.h"
#include "src/rest/vertex_operations.h"

namespace hptune::rest {
namespace {

// Tries of a create whose new ID another job took meanwhile.
constexpr int kIdAttempts = 5;

bool IsCustom(api::VertexResource collection) {
  return collection == api::VertexResource::kCustomJob;
}

// The collection's name in paths and messages.
const char* CollectionName(api::VertexResource collection) {
  return IsCustom(collection) ? "customJobs" : "hyperparameterTuningJobs";
}

// The resource's name in messages.
const char* ResourceKind(api::VertexResource collection) {
  return IsCustom(collection) ? "customJob" : "hyperparameterTuningJob";
}

std::string ResourceName(const VertexPlace& place, std::string_view job_id,
                         api::VertexResource collection) {
  return absl::StrCat("projects/", place.project, "/locations/", place.location,
                      "/", CollectionName(collection), "/",
                      std::string(job_id));
}

// The spec of a job this place has in the collection: a job with a study
// is a HyperparameterTuningJob, one without a CustomJob, made here or with
// no location of its own. NotFound otherwise, as Vertex answers for a job
// of another location.
absl::StatusOr<JobSpec> SpecIn(const v1::Job& job, const VertexPlace& place,
                               api::VertexResource collection) {
  absl::StatusOr<JobSpec> spec =
      api::JobSpecFromProto(job.training_input(), job.job_id());
  if (!spec.ok()) return spec.status();
  if (spec->study.has_value() == IsCustom(collection)) {
    return absl::NotFoundError(absl::StrCat(
        "job \"", job.job_id(), "\" is ",
        spec->study ? "a hyperparameterTuningJob, not a customJob"
                    : "a training job without hyperparameters, not a "
                      "hyperparameterTuningJob"));
  }
  if (!spec->region.empty() && spec->region != place.location) {
    return absl::NotFoundError(absl::StrCat(
        ResourceKind(collection), " \"", job.job_id(), "\" is in location \"",
        spec->region, "\", not \"", place.location, "\""));
  }
  return spec;
}

VertexJobJsonOptions OptionsFor(const VertexPlace& place,
                                std::string_view job_id, bool with_trials,
                                api::VertexResource collection) {
  return {.name = ResourceName(place, job_id, collection),
          .with_trials = with_trials,
          .with_measurements = true};
}

// The job in the collection's shape: a CustomJob has no trials.
std::string ResourceJson(const JobSpec& spec, const v1::Job& job,
                         const std::vector<Trial>& trials,
                         const VertexPlace& place, bool with_trials,
                         api::VertexResource collection) {
  const VertexJobJsonOptions options =
      OptionsFor(place, job.job_id(), with_trials, collection);
  if (IsCustom(collection)) {
    return VertexCustomJobJson(spec, api::JobRecordFromProto(job), options);
  }
  return VertexJobJson(spec, api::JobRecordFromProto(job), trials, options);
}

// The job as the service has it (without its trials), for the caller.
grpc::Status FetchJob(const RestCall& call, std::string_view job_id,
                      v1::Job& job) {
  v1::GetJobRequest request;
  request.set_job_id(std::string(job_id));
  request.set_omit_trials(true);
  return CallService<v1::JobService>(call, &v1::JobService::Stub::GetJob,
                                     request, &job);
}

// The trials of the job's study, typed, with their measurements; none
// before the job has made its study.
grpc::Status FetchTrials(const RestCall& call, std::string_view job_id,
                         std::vector<Trial>& trials) {
  v1::ListTrialsRequest request;
  request.set_study(std::string(job_id));
  v1::ListTrialsResponse reply;
  grpc::Status status = CallService<v1::StudyService>(
      call, &v1::StudyService::Stub::ListTrials, request, &reply);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND)
    return grpc::Status::OK;
  if (!status.ok()) return status;
  for (const v1::Trial& trial : reply.trials()) {
    trials.push_back(api::TrialFromProto(trial));
  }
  return grpc::Status::OK;
}

RestReply JsonReply(std::string json) {
  return {.http_status = 200, .json = std::move(json)};
}

// The job for a method that changes it: NotFound unless this place has it
// in the collection.
RestReply CheckJobIn(const RestCall& call, const VertexPlace& place,
                     std::string_view job_id, api::VertexResource collection) {
  v1::Job job;
  if (grpc::Status s = FetchJob(call, job_id, job); !s.ok()) {
    return ReplyOfError(s);
  }
  if (absl::StatusOr<JobSpec> spec = SpecIn(job, place, collection);
      !spec.ok()) {
    return ErrorReply(spec.status());
  }
  return JsonReply("{}");
}

}  // namespace

VertexJobIds::VertexJobIds(std::function<Timestamp()> now)
    : now_(std::move(now)) {}

std::string VertexJobIds::Next() {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             now_().time_since_epoch())
                             .count();
  int64_t last = last_.load();
  int64_t next = 0;
  do {
    next = std::max(now_ms, last + 1);
  } while (!last_.compare_exchange_weak(last, next));
  return absl::StrCat("hpt_", next);
}

RestReply CreateVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view body, VertexJobIds& ids,
                          api::VertexResource collection) {
  std::string job_id = ids.Next();
  absl::StatusOr<JobSpec> spec =
      api::JobSpecFromVertexJob(body, job_id, /*field=*/"", collection);
  if (!spec.ok()) return ErrorReply(spec.status());
  spec->region = place.location;
  v1::SubmitJobRequest request;
  *request.mutable_training_input() = api::JobSpecToProto(*spec);
  for (const auto& [key, value] : spec->labels) {
    (*request.mutable_labels())[key] = value;
  }
  v1::Job job;
  grpc::Status status;
  for (int attempt = 0; attempt < kIdAttempts; ++attempt) {
    request.set_job_id(job_id);
    status = CallService<v1::JobService>(call, &v1::JobService::Stub::SubmitJob,
                                         request, &job);
    if (status.error_code() != grpc::StatusCode::ALREADY_EXISTS) break;
    job_id = ids.Next();
  }
  if (!status.ok()) return ReplyOfError(status);
  return JsonReply(ResourceJson(*spec, job, {}, place, true, collection));
}

RestReply GetVertexJob(const RestCall& call, const VertexPlace& place,
                       std::string_view job_id,
                       api::VertexResource collection) {
  v1::Job job;
  if (grpc::Status s = FetchJob(call, job_id, job); !s.ok()) {
    return ReplyOfError(s);
  }
  absl::StatusOr<JobSpec> spec = SpecIn(job, place, collection);
  if (!spec.ok()) return ErrorReply(spec.status());
  std::vector<Trial> trials;
  if (!IsCustom(collection)) {
    if (grpc::Status s = FetchTrials(call, job_id, trials); !s.ok()) {
      return ReplyOfError(s);
    }
  }
  return JsonReply(ResourceJson(*spec, job, trials, place, true, collection));
}

RestReply ListVertexJobs(const RestCall& call, const VertexPlace& place,
                         std::string_view filter, std::string_view page_size,
                         std::string_view page_token,
                         api::VertexResource collection) {
  v1::ListJobsRequest request;
  if (absl::Status s = ApplyVertexListFilter(filter, request); !s.ok()) {
    return ErrorReply(s);
  }
  absl::StatusOr<int32_t> size = ReadPageSize(page_size);
  if (!size.ok()) return ErrorReply(size.status());
  request.set_page_size(*size);
  request.set_page_token(std::string(page_token));
  v1::ListJobsResponse listed;
  if (grpc::Status s = CallService<v1::JobService>(
          call, &v1::JobService::Stub::ListJobs, request, &listed);
      !s.ok()) {
    return ReplyOfError(s);
  }
  // Each job's JSON as VertexJobJson writes it, in the list's array.
  std::string jobs;
  for (const v1::Job& job : listed.jobs()) {
    absl::StatusOr<JobSpec> spec = SpecIn(job, place, collection);
    if (!spec.ok()) continue;  // Another location's, or another collection's.
    absl::StrAppend(&jobs, jobs.empty() ? "" : ",",
                    ResourceJson(*spec, job, {}, place, false, collection));
  }
  std::string json =
      absl::StrCat("{\"", CollectionName(collection), "\":[", jobs, "]");
  if (!listed.next_page_token().empty()) {
    absl::StrAppend(&json, ",\"nextPageToken\":",
                    nlohmann::json(listed.next_page_token()).dump());
  }
  return JsonReply(json + "}");
}

RestReply CancelVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view job_id,
                          api::VertexResource collection) {
  if (RestReply found = CheckJobIn(call, place, job_id, collection);
      found.http_status != 200) {
    return found;
  }
  v1::CancelJobRequest request;
  request.set_job_id(std::string(job_id));
  v1::Job job;
  if (grpc::Status s = CallService<v1::JobService>(
          call, &v1::JobService::Stub::CancelJob, request, &job);
      !s.ok()) {
    return ReplyOfError(s);
  }
  return JsonReply("{}");  // Vertex answers cancel with Empty.
}

RestReply DeleteVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view job_id,
                          api::VertexResource collection) {
  if (RestReply found = CheckJobIn(call, place, job_id, collection);
      found.http_status != 200) {
    return found;
  }
  v1::DeleteJobRequest request;
  request.set_job_id(std::string(job_id));
  google::protobuf::Empty deleted;
  if (grpc::Status s = CallService<v1::JobService>(
          call, &v1::JobService::Stub::DeleteJob, request, &deleted);
      !s.ok()) {
    return ReplyOfError(s);
  }
  return JsonReply(DeleteOperationJson(
      DeleteOperationName(place, job_id),
      std::chrono::time_point_cast<std::chrono::microseconds>(call.received)));
}

}  // namespace hptune::rest
