// Vertex AI's projects.locations.hyperparameterTuningJobs and customJobs
// methods (create, get, list, cancel, delete) as calls to hptune's gRPC
// services, so `gcloud ai hp-tuning-jobs` and `gcloud ai custom-jobs`
// pointed here (api_endpoint_overrides/aiplatform) reach the service, rules
// and limits `hptune jobs` does. Every hptune job with a study is a
// HyperparameterTuningJob here, whichever dialect it was written in, and
// every job without one a CustomJob; replies are core's VertexJobJson or
// VertexCustomJobJson (docs/config.md, "Results in Vertex's shape") named
// by their resource name, a tuning job's trials with their measurements. A
// create body is read by the Vertex reader (api::JobSpecFromVertexJob), its
// errors naming Vertex's fields; the location is kept as the job's
// trainingInput.region. HTTP-free, so a test can call them on any channel.
// Used by RestGateway. Thread-safe.
#ifndef HPTUNE_SRC_REST_VERTEX_ROUTES_H_
#define HPTUNE_SRC_REST_VERTEX_ROUTES_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "hptune/core/time.h"
#include "src/api/conversion.h"
#include "src/rest/rest_call.h"

namespace hptune::rest {

// The path's projects/P/locations/L. The project is not checked (one
// server, one project); the location is any region.
struct VertexPlace {
  std::string project;
  std::string location;
};

// IDs for created jobs: Vertex's are numbers; hptune's must start with a
// letter, so "hpt_" and the milliseconds since 1970 of the clock given,
// each larger than the one before (unique in the process, and after a
// restart while the clock moves forward; a clash is retried).
class VertexJobIds {
 public:
  explicit VertexJobIds(std::function<Timestamp()> now);
  std::string Next();

 private:
  std::function<Timestamp()> now_;
  std::atomic<int64_t> last_{0};
};

// `collection` is which of Vertex's job collections a method serves, named
// by the resource it holds (api::VertexResource): hyperparameterTuningJobs
// or customJobs. A job of one is not found (404) in the other.
// A create body is the collection's resource: a HyperparameterTuningJob,
// or a CustomJob (displayName, jobSpec, labels), whose jobSpec the reader
// of a tuning job's trialJobSpec reads.
RestReply CreateVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view body, VertexJobIds& ids,
                          api::VertexResource collection =
                              api::VertexResource::kHyperparameterTuningJob);
RestReply GetVertexJob(const RestCall& call, const VertexPlace& place,
                       std::string_view job_id,
                       api::VertexResource collection =
                           api::VertexResource::kHyperparameterTuningJob);
// `page_size` and `page_token` as the query gives them (empty: absent).
// A page may hold fewer jobs than asked: those of the other collection or
// another location are left out of it.
RestReply ListVertexJobs(const RestCall& call, const VertexPlace& place,
                         std::string_view filter, std::string_view page_size,
                         std::string_view page_token,
                         api::VertexResource collection =
                             api::VertexResource::kHyperparameterTuningJob);
// Answers `{}`, as Vertex does.
RestReply CancelVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view job_id,
                          api::VertexResource collection =
                              api::VertexResource::kHyperparameterTuningJob);
// Deletes an ended job and its study (JobService.DeleteJob), answering
// the done Operation (vertex_operations.h); 400 FAILED_PRECONDITION naming
// the state for a job that has not ended, 404 for another place's.
RestReply DeleteVertexJob(const RestCall& call, const VertexPlace& place,
                          std::string_view job_id,
                          api::VertexResource collection =
                              api::VertexResource::kHyperparameterTuningJob);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_VERTEX_ROUTES_H_
