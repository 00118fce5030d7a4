#include "src/cli/client/connection.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpc/support/log.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "src/api/grpc_status.h"
#include "src/cli/client/identity.h"
#include "src/cli/client/peer_check.h"
#include "src/cli/client/rpc_errors.h"
#include "src/cli/token_file.h"

namespace hptune::cli::client {
namespace {

// Replies (a job's trials, a log chunk) can be large; requests are small.
constexpr int kMaxReceiveBytes = 64 << 20;
constexpr int kMaxReconnectBackoffMs = 5000;

absl::StatusOr<std::string> ReadWholeFile(Env& os, const std::string& path,
                                          const std::string& what) {
  absl::StatusOr<std::string> text = os.ReadFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot read \"", path, "\""));
  }
  return text;
}

// HOST:PORT with a port in 1..65535; gRPC target URIs ("unix:/path",
// "dns:///host:port") are passed on unchecked.
absl::Status CheckAddress(const std::string& source,
                          const std::string& address) {
  if (address.rfind("unix:", 0) == 0 ||
      address.find("://") != std::string::npos) {
    return absl::OkStatus();
  }
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 1 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected HOST:PORT, got \"", address, "\""));
  }
  return absl::OkStatus();
}

// gRPC logs connection failures to stderr on its own; the client reports
// them once, with what to do. GRPC_VERBOSITY set by the user still wins.
void QuietGrpcLogging() {
  if (std::getenv("GRPC_VERBOSITY") != nullptr) return;
  gpr_set_log_function([](gpr_log_func_args*) {});
}

// This user's token from the identity socket beside a unix: address;
// NotFound when the address has none.
absl::StatusOr<std::string> AskIdentity(Env& os, const std::string& address,
                                        std::optional<uid_t> server_user) {
  if (!address.starts_with("unix:")) {
    return absl::NotFoundError("not a Unix socket");
  }
  std::string path = address.substr(5);
  if (path.starts_with("//")) path = path.substr(2);  // unix:///abs
  return AskIdentitySocket(os, path, TrustedPeersOf(os, server_user));
}

// --server-user, else $HPTUNE_SERVER_USER, else none.
absl::StatusOr<std::optional<uid_t>> ResolveServerUser(const ParsedArgs& args,
                                                       const EnvLookup& env) {
  if (auto user = args.Get("server-user")) {
    return ParseServerUser(*user, "--server-user");
  }
  if (auto user = env("HPTUNE_SERVER_USER"); user && !user->empty()) {
    return ParseServerUser(*user, "HPTUNE_SERVER_USER");
  }
  return std::nullopt;
}

}  // namespace

const std::set<std::string>& ConnectionFlags() {
  static const auto* const kFlags = new std::set<std::string>{
      "server", "token-file", "tls-ca", "timeout", "server-user"};
  return *kFlags;
}

const char kConnectionHelp[] =
    "Server:\n"
    "  --server ADDR             host:port or unix:PATH of `hptune serve`;\n"
    "                            default $HPTUNE_SERVER, else\n"
    "                            unix:/run/hptune/hptune.sock when it exists,\n"
    "                            else 127.0.0.1:7460\n"
    "  --token-file FILE         the server's bearer token; default\n"
    "                            $HPTUNE_TOKEN (the token itself), else on a\n"
    "                            unix: socket this user's own token from the\n"
    "                            server's identity socket, else the\n"
    "                            file `hptune serve` made for this user\n"
    "                            ($HPTUNE_CONFIG_DIR/token, else\n"
    "                            $XDG_CONFIG_HOME/hptune/token, else\n"
    "                            ~/.config/hptune/token)\n"
    "  --tls-ca FILE             PEM roots: talk TLS to a server started\n"
    "                            with --tls-cert; default $HPTUNE_TLS_CA\n"
    "  --server-user USER        also trust USER's server with the token\n"
    "                            (default $HPTUNE_SERVER_USER); root's and\n"
    "                            this user's are trusted, others refused\n"
    "  --timeout SECONDS         deadline of each call (default 30); log\n"
    "                            streams and --wait have none\n";

absl::StatusOr<ConnectionOptions> ResolveConnectionOptions(
    Env& os, const ParsedArgs& args, const EnvLookup& env) {
  ConnectionOptions options;
  options.env = &os;
  if (auto server = args.Get("server")) {
    HPTUNE_RETURN_IF_ERROR(CheckAddress("--server", *server));
    options.address = *server;
  } else if (auto server = env("HPTUNE_SERVER"); server && !server->empty()) {
    HPTUNE_RETURN_IF_ERROR(CheckAddress("HPTUNE_SERVER", *server));
    options.address = *server;
  } else if (absl::StatusOr<FileInfo> shared =
                 os.InfoOf(kSharedSocket, Links::kFollow);
             shared.ok() && shared->type == FileType::kSocket) {
    options.address = absl::StrCat("unix:", kSharedSocket);
  }

  HPTUNE_ASSIGN_OR_RETURN(options.server_user, ResolveServerUser(args, env));

  if (auto path = args.Get("token-file")) {
    HPTUNE_ASSIGN_OR_RETURN(std::string token,
                            ReadWholeFile(os, *path, "--token-file"));
    options.token = std::string(absl::StripAsciiWhitespace(token));
    if (options.token.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--token-file: \"", *path, "\" holds no token"));
    }
    options.token_source = absl::StrCat("--token-file \"", *path, "\"");
  } else if (auto token = env("HPTUNE_TOKEN")) {
    options.token = std::string(absl::StripAsciiWhitespace(*token));
    options.token_source = "$HPTUNE_TOKEN";
  } else if (absl::StatusOr<std::string> own =
                 AskIdentity(os, options.address, options.server_user);
             !absl::IsNotFound(own.status())) {
    if (!own.ok()) return own.status();
    options.token = *own;
    options.token_source =
        absl::StrCat("the identity socket of ", options.address);
  } else if (auto path = DefaultTokenFile(env); path.ok()) {
    std::ostringstream ignored;  // Its mode is the server's to warn about.
    auto token = ReadTokenFile(os, *path, ignored);
    if (token.ok()) {
      options.token = *token;
      options.token_source =
          absl::StrCat("the default token file \"", *path, "\"");
    } else {
      options.token_source =
          absl::StrCat("no token: ", token.status().message());
    }
  }

  std::optional<std::string> ca = args.Get("tls-ca");
  std::string ca_source = "--tls-ca";
  if (!ca) {
    ca = env("HPTUNE_TLS_CA");
    if (ca && ca->empty()) ca.reset();
    ca_source = "HPTUNE_TLS_CA";
  }
  if (ca) {
    HPTUNE_ASSIGN_OR_RETURN(options.tls_ca_pem,
                            ReadWholeFile(os, *ca, ca_source));
    options.tls_ca_path = *ca;
    if (options.tls_ca_pem.find("-----BEGIN CERTIFICATE-----") ==
        std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(ca_source, ": \"", *ca, "\" holds no PEM certificate"));
    }
  }

  if (auto timeout = args.Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*timeout, &seconds) || !std::isfinite(seconds) ||
        seconds <= 0 || seconds > 24 * 3600) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--timeout: expected seconds in (0, 86400], got \"", *timeout, "\""));
    }
    options.timeout = std::chrono::milliseconds(
        static_cast<int64_t>(std::ceil(seconds * 1000)));
  }
  return options;
}

std::shared_ptr<grpc::Channel> CreateChannel(const ConnectionOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls_ca_pem.empty()) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_ca_pem;
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  // gRPC's default backoff between connection attempts grows to 120 s; a
  // watch waiting for a restarted server (job_watch.h) should see it within
  // seconds.
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  return grpc::CreateCustomChannel(options.address, credentials, arguments);
}

void PrepareContext(const ConnectionOptions& options, bool streaming,
                    grpc::ClientContext& context) {
  if (!options.token.empty()) {
    context.AddMetadata("authorization", "Bearer " + options.token);
  }
  if (!streaming) {
    // gRPC's deadlines are on the wall clock: the Env's.
    context.set_deadline(std::chrono::system_clock::time_point(
        options.env->Now() + options.timeout));
  }
}

std::unique_ptr<grpc::ClientContext> ServerConnection::Context(
    bool streaming) const {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(options, streaming, *context);
  return context;
}

int ServerConnection::Fail(const grpc::Status& status,
                           std::ostream& err) const {
  err << "hptune: " << ToStatus(status).message() << "\n";
  return ExitCodeForRpc(status);
}

absl::Status ServerConnection::ToStatus(const grpc::Status& status) const {
  if (status.ok()) return absl::OkStatus();
  RpcTarget target{.address = options.address,
                   .token_source = options.token_source,
                   .tls = !options.tls_ca_pem.empty(),
                   .connected = channel != nullptr &&
                                channel->GetState(false) == GRPC_CHANNEL_READY};
  return absl::Status(api::FromGrpcCode(status.error_code()),
                      DescribeRpcError(status, target));
}

absl::Status CheckServer(const ConnectionOptions& options) {
  HPTUNE_CHECK(options.env != nullptr,
               "ConnectionOptions::env is set by ResolveConnectionOptions");
  return CheckServerPeer(*options.env, options.address,
                         !options.tls_ca_pem.empty(),
                         TrustedPeersOf(*options.env, options.server_user));
}

absl::StatusOr<ServerConnection> Connect(Env& os, const ParsedArgs& args,
                                         const EnvLookup& env) {
  ServerConnection connection;
  HPTUNE_ASSIGN_OR_RETURN(connection.options,
                          ResolveConnectionOptions(os, args, env));
  HPTUNE_RETURN_IF_ERROR(CheckServer(connection.options));
  QuietGrpcLogging();
  connection.channel = CreateChannel(connection.options);
  return connection;
}

}  // namespace hptune::cli::client
