// How `hptune jobs|studies|trials` reach an hptune server: the address, the
// bearer token and the TLS root certificates, from flags or the environment,
// and the gRPC channel and per-call context built from them.
//
// Flags win over the environment, which wins over the defaults:
//   --server ADDR     $HPTUNE_SERVER   unix:/run/hptune/hptune.sock when it
//                                      exists, else 127.0.0.1:7460
//   --token-file F    $HPTUNE_TOKEN (the token itself)   on a unix: address
//                     with an identity socket, this user's token from it
//                     (identity.h); else the user's default token file
//                     (src/cli/token_file.h)
//   --tls-ca F        $HPTUNE_TLS_CA (a PEM file)
//   --server-user U   $HPTUNE_SERVER_USER: a user trusted with the token
//                     besides root and this one (peer_check.h)
//   --timeout S       deadline of each unary call, default 30 seconds
// Used only by src/cli. Value types and free functions; thread-compatible.
#ifndef HPTUNE_CLI_CLIENT_CONNECTION_H_
#define HPTUNE_CLI_CLIENT_CONNECTION_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "hptune/env/env.h"
#include "src/cli/flags.h"

namespace hptune::cli::client {

inline constexpr char kDefaultServer[] = "127.0.0.1:7460";

// The value flags every server command accepts, for ParseArgs.
const std::set<std::string>& ConnectionFlags();

// The part of a command's --help that describes ConnectionFlags().
extern const char kConnectionHelp[];

struct ConnectionOptions {
  std::string address = kDefaultServer;
  std::string token;  // Empty: no authorization metadata.
  // Where the token came from, for messages: "--token-file \"F\"",
  // "$HPTUNE_TOKEN", "the default token file \"F\""; or why there is none.
  std::string token_source;
  std::string tls_ca_pem;   // Empty: plaintext.
  std::string tls_ca_path;  // Where tls_ca_pem came from, for messages.
  // Besides root and this user, whom the client lets serve it.
  std::optional<uid_t> server_user;
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  // What the checks of the server, the waits between reconnections and the
  // calls' deadlines go through: the Env given to ResolveConnectionOptions.
  Env* env = nullptr;
};

// The options from `args` (ConnectionFlags) and `env`, the files they name
// read through `os`. InvalidArgument naming
// the flag (or variable) and the value: an unreadable or empty token file, an
// unreadable CA file, an empty address, a timeout that is not a positive
// number of seconds. A default token file that is missing or unreadable is
// not an error: the call goes without a token and the server's refusal
// says what is missing. FailedPrecondition when an identity socket's
// listener is not trusted (peer_check.h).
absl::StatusOr<ConnectionOptions> ResolveConnectionOptions(
    Env& os, const ParsedArgs& args, const EnvLookup& env);

// A channel to options.address: TLS with options.tls_ca_pem as the roots when
// set, plaintext otherwise. Connects lazily, on the first call.
std::shared_ptr<grpc::Channel> CreateChannel(const ConnectionOptions& options);

// Puts the bearer token into `context`'s metadata ("authorization: Bearer
// T") and, unless `streaming`, sets the deadline from options.timeout on
// options.env's wall clock (gRPC's deadlines are on the wall clock). A
// stream that follows a job has no deadline: it ends with the job.
void PrepareContext(const ConnectionOptions& options, bool streaming,
                    grpc::ClientContext& context);

// A channel and what it was made from: what every server command holds.
struct ServerConnection {
  ConnectionOptions options;
  std::shared_ptr<grpc::Channel> channel;

  // A context for one call (PrepareContext).
  std::unique_ptr<grpc::ClientContext> Context(bool streaming = false) const;
  // Prints "hptune: <what the failure means>" to `err` and returns the exit
  // code for it (src/cli/client/rpc_errors.h).
  int Fail(const grpc::Status& status, std::ostream& err) const;
  // The same status as an absl::Status with that message.
  [[nodiscard]] absl::Status ToStatus(const grpc::Status& status) const;
};

// Whether the server at options.address may be sent the token
// (CheckServerPeer): before the first call and before a call is made again
// after the server went away.
absl::Status CheckServer(const ConnectionOptions& options);

// ResolveConnectionOptions, CheckServer and CreateChannel.
absl::StatusOr<ServerConnection> Connect(Env& os, const ParsedArgs& args,
                                         const EnvLookup& env);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_CONNECTION_H_
