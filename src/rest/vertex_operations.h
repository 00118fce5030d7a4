// Vertex AI's long-running Operations for hptune's one slow-in-Vertex
// method, hyperparameterTuningJobs.delete: hptune deletes at once, so the
// DELETE answers an Operation already done (`done: true`, `response` a
// google.protobuf.Empty, `metadata` Vertex's DeleteOperationMetadata), and
// GET /v1/projects/P/locations/L/operations/ID answers it again, so a
// client that polls the operation, as Google's client libraries and
// `gcloud ai operations describe` do, sees it done. No operation is
// stored: an ID is `delete-JOB`, done while job JOB does not exist.
// HTTP-free. Used by vertex_routes.cc and RestGateway. Thread-safe.
#ifndef HPTUNE_SRC_REST_VERTEX_OPERATIONS_H_
#define HPTUNE_SRC_REST_VERTEX_OPERATIONS_H_

#include <optional>
#include <string>
#include <string_view>

#include "hptune/core/time.h"
#include "src/rest/rest_call.h"
#include "src/rest/vertex_routes.h"

namespace hptune::rest {

// "projects/P/locations/L/operations/delete-JOB".
std::string DeleteOperationName(const VertexPlace& place,
                                std::string_view job_id);

// The done Operation of a delete named `name`; its metadata's
// genericMetadata gives `time` as createTime and updateTime when known.
std::string DeleteOperationJson(std::string_view name,
                                std::optional<Timestamp> time);

// GET of operation `operation_id` of `place`: the done delete while its job
// does not exist for the caller; 404 for any other ID, or while the job
// exists (it was not deleted, or was made again since); the service's
// error otherwise (a job the caller may not see).
RestReply GetVertexOperation(const RestCall& call, const VertexPlace& place,
                             std::string_view operation_id);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_VERTEX_OPERATIONS_H_
