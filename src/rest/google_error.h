// Google's REST error shape for a gRPC status: the HTTP code Google's APIs
// use for each gRPC code, and the body {"error": {"code", "message",
// "status"}} that gcloud prints. Used by the REST gateway's routes
// (src/rest). Pure functions; thread-safe.
#ifndef HPTUNE_SRC_REST_GOOGLE_ERROR_H_
#define HPTUNE_SRC_REST_GOOGLE_ERROR_H_

#include <string>
#include <string_view>

#include "grpcpp/support/status.h"

namespace hptune::rest {

// google.rpc.Code's HTTP mapping: INVALID_ARGUMENT, FAILED_PRECONDITION and
// OUT_OF_RANGE 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND
// 404, ALREADY_EXISTS and ABORTED 409, RESOURCE_EXHAUSTED 429, CANCELLED
// 499, UNIMPLEMENTED 501, UNAVAILABLE 503, DEADLINE_EXCEEDED 504, the rest
// 500.
int HttpCodeOf(grpc::StatusCode code);

// The JSON body for a failed call; its status is api::GrpcCodeName's.
std::string GoogleErrorJson(grpc::StatusCode code, std::string_view message);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_GOOGLE_ERROR_H_
