// The client's side of a root server's identity socket
// (src/server/identity_socket.h): how a local user gets a token of their
// own without being given one. Used by connection.cc; thread-safe.
#ifndef HPTUNE_CLI_CLIENT_IDENTITY_H_
#define HPTUNE_CLI_CLIENT_IDENTITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "src/cli/client/peer_check.h"

namespace hptune::cli::client {

// Where a server shared by this machine's users listens; clients use it when
// given no --server or $HPTUNE_SERVER and it exists.
inline constexpr char kSharedSocket[] = "/run/hptune/hptune.sock";

// This user's token from the identity socket beside the gRPC socket at
// `grpc_socket`: NotFound when `os` shows no socket there; Unavailable when it
// does not answer within 10 seconds; PermissionDenied with the server's reason;
// FailedPrecondition, having read nothing, when the process listening there
// is not `trusted` (its answer would choose whom this user's calls act as).
absl::StatusOr<std::string> AskIdentitySocket(Env& os,
                                              const std::string& grpc_socket,
                                              const TrustedPeers& trusted);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_IDENTITY_H_
