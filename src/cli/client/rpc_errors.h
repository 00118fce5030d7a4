// What a failed call to the hptune server means for the person at the
// terminal: one clear message and an exit code a script can act on.
//
// Exit codes (src/cli/flags.h has the shared ones):
//   2  INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE  (fix the input)
//   3  NOT_FOUND
//   69 UNAVAILABLE: no server reachable (sysexits EX_UNAVAILABLE)
//   75 DEADLINE_EXCEEDED: try again, or raise --timeout (EX_TEMPFAIL)
//   77 UNAUTHENTICATED, PERMISSION_DENIED (EX_NOPERM)
//   1  everything else (FAILED_PRECONDITION, INTERNAL, ...)
// Used only by src/cli. Pure functions; thread-safe.
#ifndef HPTUNE_CLI_CLIENT_RPC_ERRORS_H_
#define HPTUNE_CLI_CLIENT_RPC_ERRORS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace hptune::cli::client {

inline constexpr int kExitUnavailable = 69;   // sysexits EX_UNAVAILABLE
inline constexpr int kExitTimeout = 75;       // sysexits EX_TEMPFAIL
inline constexpr int kExitNoPermission = 77;  // sysexits EX_NOPERM

int ExitCodeForRpc(const grpc::Status& status);
// The same for an absl::Status (its codes are gRPC's).
int ExitCodeForStatus(const absl::Status& status);

// Where a failed call went.
struct RpcTarget {
  std::string address;
  // Where the call's token came from (ConnectionOptions::token_source).
  std::string token_source;
  // Made over TLS: a plaintext/TLS mismatch looks like an unreachable
  // server, so the message says which was tried.
  bool tls = false;
  // The channel was connected when the call failed: an UNAVAILABLE is then
  // the server saying it is busy, not a missing server.
  bool connected = false;
};

// The message (without the "hptune: " prefix).
std::string DescribeRpcError(const grpc::Status& status,
                             const RpcTarget& target);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_RPC_ERRORS_H_
