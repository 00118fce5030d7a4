#include "src/cli/client/rpc_errors.h"

#include "absl/strings/str_cat.h"
#include "src/api/grpc_status.h"
#include "src/cli/flags.h"

namespace hptune::cli::client {

namespace {

// A TLS server closes a plaintext connection, a plaintext server fails the
// TLS handshake: both look like an unreachable server.
std::string TlsHint(bool tls, const std::string& detail) {
  if (tls) return "; tried TLS (--tls-ca): is the server using --tls-cert?";
  if (detail.find("Connection refused") != std::string::npos) return "";
  return "; tried plaintext: if the server uses --tls-cert, pass --tls-ca";
}

}  // namespace

int ExitCodeForRpc(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return kExitOk;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::OUT_OF_RANGE:
      return kExitInvalid;
    case grpc::StatusCode::NOT_FOUND:
      return kExitNotFound;
    case grpc::StatusCode::UNAVAILABLE:
      return kExitUnavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitTimeout;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return kExitNoPermission;
    default:
      return kExitFailure;
  }
}

int ExitCodeForStatus(const absl::Status& status) {
  return ExitCodeForRpc(grpc::Status(api::ToGrpcCode(status.code()), ""));
}

std::string DescribeRpcError(const grpc::Status& status,
                             const RpcTarget& target) {
  const std::string& address = target.address;
  const std::string detail = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      if (target.connected) {
        return absl::StrCat("the server at ", address,
                            " is unavailable, try again: ", detail);
      }
      return absl::StrCat(
          "no hptune server reachable at ", address,
          " (start one with `hptune serve`, or pass --server)",
          TlsHint(target.tls, detail),
          detail.empty() ? "" : absl::StrCat("\n  gRPC: ", detail));
    case grpc::StatusCode::UNAUTHENTICATED:
      // Jobs run as the server's user, so its token is that user's to give:
      // say what this command sent, and how to send the right one.
      return absl::StrCat(
          "the server at ", address, " refused the call: ", detail, " (",
          target.token_source.empty() ? "no token sent"
          : target.token_source.starts_with("no token")
              ? target.token_source
              : absl::StrCat("sent the token from ", target.token_source),
          "; jobs run as the user who started the server: ask them for its "
          "token, pass it with --token-file or $HPTUNE_TOKEN, or run your "
          "own `hptune serve`)");
    case grpc::StatusCode::PERMISSION_DENIED:
      return absl::StrCat("the server at ", address,
                          " refused the call: ", detail);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::StrCat("the server at ", address,
                          " did not answer in time (raise --timeout)",
                          detail.empty() ? "" : ": " + detail);
    case grpc::StatusCode::UNIMPLEMENTED:
      return absl::StrCat("the server at ", address,
                          " does not implement this call (an older hptune "
                          "serve?): ",
                          detail);
    default:
      return detail.empty() ? api::GrpcCodeName(status.error_code()) : detail;
  }
}

}  // namespace hptune::cli::client
