#include "src/rest/rest_call.h"

#include <chrono>
#include <string_view>

#include "src/api/grpc_status.h"
#include "src/rest/google_error.h"

namespace hptune::rest {
namespace {

// Long enough for a submission that waits on the store; a stuck call ends.
constexpr std::chrono::seconds kCallDeadline{60};

// A header value gRPC could not carry as metadata is no token at all.
bool IsPrintableAscii(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

RestReply ReplyOfError(const grpc::Status& status) {
  return {.http_status = HttpCodeOf(status.error_code()),
          .json = GoogleErrorJson(status.error_code(), status.error_message())};
}

RestReply ErrorReply(const absl::Status& status) {
  return ReplyOfError(api::ToGrpcStatus(status));
}

grpc::Status PrepareContext(const RestCall& call,
                            grpc::ClientContext& context) {
  if (!IsPrintableAscii(call.authorization)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "the Authorization header must be \"Bearer <token>\"");
  }
  context.set_deadline(call.received + kCallDeadline);
  if (!call.authorization.empty()) {
    context.AddMetadata("authorization", call.authorization);
  }
  return grpc::Status::OK;
}

}  // namespace hptune::rest
