// The part of Cloud Logging's `entries:list` filter that `gcloud
// ai-platform jobs stream-logs` writes (docs/rest.md, "Logs"): the job,
// maybe a task, and the time window it polls, e.g.
//   (resource.type="ml_job" OR resource.type="cloudml_job") AND
//   resource.labels.job_id="j1" AND timestamp>="T0" AND timestamp<"T1"
// with, after entries of one timestamp, ((timestamp="T" AND insertId>"I")
// OR timestamp>"T") as the lower bound. Other terms are not read. Used by
// log_routes.h. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_REST_LOG_FILTER_H_
#define HPTUNE_SRC_REST_LOG_FILTER_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace hptune::rest {

struct LogFilter {
  std::string job_id;
  std::string task_name;  // "master-replica-0", ...; empty: every task.
  // Entries at or after `from` (strictly after when `after_insert_id` is
  // set and the timestamp equals `from`: then only a greater insertId).
  absl::Time from = absl::InfinitePast();
  std::optional<std::string> after_insert_id;
  absl::Time before = absl::InfiniteFuture();  // Entries strictly before.

  // Whether an entry at `time` with `insert_id` passes the time bounds.
  bool Admits(absl::Time time, std::string_view insert_id) const;
};

// InvalidArgument when the filter names no job or a timestamp does not
// parse as RFC 3339.
absl::StatusOr<LogFilter> ParseLogFilter(std::string_view filter);

// A timestamp as entries carry it: UTC, nine fractional digits, "Z", so
// gcloud's comparisons of the strings order them as the times.
std::string LogTimestamp(absl::Time time);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_LOG_FILTER_H_
