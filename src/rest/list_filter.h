// The list methods' query: projects.jobs.list's `filter`, the part of AI
// Platform's filter language the job list can answer: terms joined by AND,
// each `state=S` (or `state:S`), `labels.KEY=VALUE` (or `:`;
// `labels.KEY:*` for any value) or `jobId:PREFIX*`; Vertex's
// hyperparameterTuningJobs.list's, the same with Vertex's states
// (`state="JOB_STATE_RUNNING"`); and `pageSize`. Used by the REST
// gateway's list routes. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_REST_LIST_FILTER_H_
#define HPTUNE_SRC_REST_LIST_FILTER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/v1/job_service.pb.h"

namespace hptune::rest {

// Adds what `filter` asks to `request`; InvalidArgument naming the term it
// cannot answer.
absl::Status ApplyListFilter(std::string_view filter,
                             v1::ListJobsRequest& request);
// The same for a Vertex filter, whose states are JOB_STATE_* (PENDING is
// hptune's PREPARING).
absl::Status ApplyVertexListFilter(std::string_view filter,
                                   v1::ListJobsRequest& request);

// `pageSize` as the query gives it: 0 when empty; InvalidArgument unless a
// number of at least 0.
absl::StatusOr<int32_t> ReadPageSize(std::string_view page_size);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_LIST_FILTER_H_
