// Timestamps in hptune's domain model.
//
// Every time the engine records (trial start/end, measurement time, events) is
// a Timestamp: microseconds since the Unix epoch, UTC. Microseconds survive a
// round trip through SQLite's 64-bit integers and JSON exactly. Value type,
// thread-safe.
#ifndef HPTUNE_CORE_TIME_H_
#define HPTUNE_CORE_TIME_H_

#include <chrono>
#include <cstdint>
#include <string>

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

}  // namespace hptune

#endif  // HPTUNE_CORE_TIME_H_
