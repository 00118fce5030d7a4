// Parsing of RFC 3339 timestamps, as trainers print them before metric lines
// on stdout (Katib's format): "2026-11-21T10:00:00Z",
// "2026-11-21T10:00:00.123456+01:00".
//
// Used by ParseMetricLine. Pure function; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_METRICS_RFC3339_H_
#define HPTUNE_SRC_LAUNCH_METRICS_RFC3339_H_

#include <optional>
#include <string_view>

#include "hptune/core/time.h"

namespace hptune::launch {

// The instant `text` names, when all of it is an RFC 3339 date-time:
// YYYY-MM-DD, 'T' (or 't'), hh:mm:ss, optional '.' and one or more digits
// (kept to the microsecond, further digits truncated), then 'Z' (or 'z') or
// an offset +hh:mm / -hh:mm. Fields are range-checked (a real calendar date,
// hour <= 23, minute <= 59, second <= 60: a leap second counts as the next
// second). nullopt otherwise.
std::optional<Timestamp> ParseRfc3339(std::string_view text);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_METRICS_RFC3339_H_
