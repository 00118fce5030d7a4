// Size limits on request fields, so a huge string is an InvalidArgument that
// names the field instead of a memory or database burden.
//
// gRPC already refuses messages over the server's maximum size (4 MiB);
// these limits are per field and much smaller. Used by the service handlers.
// Pure functions; thread-safe.
#ifndef HPTUNE_SRC_SERVER_REQUEST_LIMITS_H_
#define HPTUNE_SRC_SERVER_REQUEST_LIMITS_H_

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hptune::server {

inline constexpr size_t kMaxNameLength = 128;      // Study and job names.
inline constexpr size_t kMaxClientIdLength = 256;  // SuggestTrials client_id.
inline constexpr size_t kMaxReasonLength = 4096;   // Infeasible/stop reasons.
inline constexpr size_t kMaxMetricNameLength = 256;
inline constexpr int kMaxMetricsPerMeasurement = 1000;
inline constexpr int kMaxSuggestionCount = 1000;
// CompleteTrial's unused_parameters: a study has at most 100 parameters,
// each name at most 128 characters.
inline constexpr int kMaxUnusedParameters = 100;
inline constexpr size_t kMaxParameterNameLength = 128;
inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;

// InvalidArgument `<field>: at most <max> characters, got <n>` when too long.
[[nodiscard]] absl::Status CheckLength(std::string_view field,
                                       std::string_view value, size_t max);

// A study or job name: non-empty, letters, digits and underscores, starting
// with a letter, at most 128 characters (the rule for job IDs, since a job's
// study is named by its ID).
[[nodiscard]] absl::Status CheckName(std::string_view field,
                                     std::string_view value);

// The offset a page token stands for: "" is 0, else the decimal offset that
// a previous page returned. InvalidArgument for anything else.
absl::StatusOr<size_t> ParsePageToken(std::string_view token);
// page_size 0 -> the default; negative or over the maximum -> error.
absl::StatusOr<size_t> CheckPageSize(int page_size);

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_REQUEST_LIMITS_H_
