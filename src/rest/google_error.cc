#include "src/rest/google_error.h"

#include "nlohmann/json.hpp"
#include "src/api/grpc_status.h"

namespace hptune::rest {

int HttpCodeOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

std::string GoogleErrorJson(grpc::StatusCode code, std::string_view message) {
  nlohmann::ordered_json error;
  error["code"] = HttpCodeOf(code);
  error["message"] = std::string(message);
  error["status"] = api::GrpcCodeName(code);
  nlohmann::ordered_json body;
  body["error"] = std::move(error);
  // Invalid UTF-8 in a message (a user's bytes echoed back) is replaced.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hptune::rest
