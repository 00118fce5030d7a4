// Which addresses `hptune serve` may listen on.
//
// The server runs programs on this machine for whoever submits a job, so
// every call carries a token (src/cli/token_file.h), it listens on loopback
// (127.0.0.1:7460) by default, and on any other address only with TLS, so
// that the token never crosses a network in the clear (docs/operations.md,
// "Who may submit jobs"). Used by the serve command before it starts
// anything. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_SERVER_LISTEN_POLICY_H_
#define HPTUNE_SRC_SERVER_LISTEN_POLICY_H_

#include <string_view>

#include "absl/status/status.h"

namespace hptune::server {

inline constexpr char kDefaultListenAddress[] = "127.0.0.1:7460";

// True for 127.0.0.0/8, ::1, "localhost" and unix: sockets.
bool IsLoopbackAddress(std::string_view address);

// OK for a loopback address, or any address with TLS. InvalidArgument
// otherwise, naming the address and the remedies; also for an address
// without a port.
[[nodiscard]] absl::Status CheckListenAddress(std::string_view address,
                                              bool tls);

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_LISTEN_POLICY_H_
