// Cloud Logging's `entries:list` (POST /v2/entries:list) for `gcloud
// ai-platform jobs stream-logs` pointed here (api_endpoint_overrides/
// logging; docs/rest.md, "Logs"): the lines a job's trials printed, read
// through the JobService's GetTrialLogs with the caller's token, as
// LogEntry JSON (resource ml_job with job_id and task_name, labels.trial_id,
// textPayload). hptune stores no time per line, so an entry's timestamp is
// its trial's start plus its byte offset in the replica's log, in
// microseconds: an order, not when the line was printed. HTTP-free;
// thread-safe (a stub per call).
#ifndef HPTUNE_SRC_REST_LOG_ROUTES_H_
#define HPTUNE_SRC_REST_LOG_ROUTES_H_

#include <string_view>

#include "src/rest/rest_call.h"

namespace hptune::rest {

inline constexpr char kListLogEntriesPath[] = "/v2/entries:list";

// `body` is ListLogEntriesRequest's JSON: filter (log_filter.h), orderBy
// ("timestamp asc" or "timestamp desc"), pageSize (at most 1000).
RestReply ListLogEntries(const RestCall& call, std::string_view body);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_LOG_ROUTES_H_
