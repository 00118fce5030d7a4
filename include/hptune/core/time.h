// Timestamps in hptune's domain model.
//
// Every time the engine records (trial start/end, measurement time, events) is
// a Timestamp: microseconds since the Unix epoch, UTC. Microseconds survive a
// round trip through SQLite's 64-bit integers and JSON exactly. Durations in
// configs (trainingInput.scheduling) are written as protobuf's JSON form of
// google.protobuf.Duration, e.g. "7200s". Value types, thread-safe.
#ifndef HPTUNE_CORE_TIME_H_
#define HPTUNE_CORE_TIME_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hptune {

using Timestamp = std::chrono::sys_time<std::chrono::microseconds>;

inline int64_t ToUnixMicros(Timestamp t) {
  return t.time_since_epoch().count();
}
inline Timestamp FromUnixMicros(int64_t micros) {
  return Timestamp(std::chrono::microseconds(micros));
}

// RFC 3339 in UTC with microseconds, e.g. "2026-11-21T09:30:00.123456Z".
std::string FormatRfc3339(Timestamp t);

// A duration as protobuf's JSON mapping writes google.protobuf.Duration:
// whole seconds, then up to nine fractional digits, then "s" ("7200s",
// "1.5s"). Digits past the microsecond are dropped. nullopt for anything
// else, a negative duration included.
std::optional<std::chrono::microseconds> ParseDurationSeconds(
    std::string_view text);
// The same form, fraction trimmed: "7200s", "0.25s", "1.000001s".
std::string FormatDurationSeconds(std::chrono::microseconds duration);

}  // namespace hptune

#endif  // HPTUNE_CORE_TIME_H_
