// Whether a host names this machine's loopback interface.
//
// Used where hptune decides if a listening address may go without TLS: the
// gRPC server (src/server/listen_policy.cc) and the dashboard
// (src/dashboard/http_address.cc). Pure function; thread-safe.
#ifndef HPTUNE_SRC_ENV_LOOPBACK_H_
#define HPTUNE_SRC_ENV_LOOPBACK_H_

#include <string>

namespace hptune {

// True for "localhost", 127.0.0.0/8 and ::1; false for anything else,
// including names that are not IP addresses.
bool IsLoopbackHost(const std::string& host);

}  // namespace hptune

#endif  // HPTUNE_SRC_ENV_LOOPBACK_H_
