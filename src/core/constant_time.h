// Comparing secrets (tokens, session keys) without leaking where they differ.
//
// Used by the gRPC token check (src/server/auth.cc) and the dashboard's
// HTTP guard (src/dashboard/http_guard.cc). Pure function; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONSTANT_TIME_H_
#define HPTUNE_SRC_CORE_CONSTANT_TIME_H_

#include <string_view>

namespace hptune {

// True when `given` equals `expected`. Runs over expected's length whatever
// `given` holds, and its time does not depend on the position of the first
// difference.
bool ConstantTimeEquals(std::string_view given, std::string_view expected);

}  // namespace hptune

#endif  // HPTUNE_SRC_CORE_CONSTANT_TIME_H_
