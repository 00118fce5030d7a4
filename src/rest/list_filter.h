// projects.jobs.list's `filter`, the part of AI Platform's filter language
// the job list can answer: terms joined by AND, each `state=S` (or
// `state:S`), `labels.KEY=VALUE` (or `:`; `labels.KEY:*` for any value)
// or `jobId:PREFIX*`. Used by the REST gateway's list route. Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_REST_LIST_FILTER_H_
#define HPTUNE_SRC_REST_LIST_FILTER_H_

#include <string_view>

#include "absl/status/status.h"
#include "hptune/v1/job_service.pb.h"

namespace hptune::rest {

// Adds what `filter` asks to `request`; InvalidArgument naming the term it
// cannot answer.
absl::Status ApplyListFilter(std::string_view filter,
                             v1::ListJobsRequest& request);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_LIST_FILTER_H_
