// absl::Status <-> grpc::Status: the one place hptune maps its error codes to
// gRPC's and back.
//
// Used by every service handler of src/server before it returns, and by the
// CLI's client commands (src/cli/client) to read a failed call. The codes
// are the same numbers in both libraries (docs/architecture.md, "Errors"), so
// the mapping keeps the code and the message; an error without a message gets
// one naming its code, so a client never sees a bare status. Pure functions;
// thread-safe.
#ifndef HPTUNE_SRC_API_GRPC_STATUS_H_
#define HPTUNE_SRC_API_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace hptune::api {

// The same code; one outside gRPC's 0..16 (from a newer abseil) is INTERNAL.
grpc::StatusCode ToGrpcCode(absl::StatusCode code);
// The same code; one outside 0..16 is kUnknown.
absl::StatusCode FromGrpcCode(grpc::StatusCode code);

// An error message longer than this is cut, saying how much was left out.
inline constexpr size_t kMaxMessageBytes = 2048;

grpc::Status ToGrpcStatus(const absl::Status& status);

// The code's name as gRPC and Google's APIs print it ("INVALID_ARGUMENT");
// UNKNOWN for one outside 0..16.
std::string GrpcCodeName(grpc::StatusCode code);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_GRPC_STATUS_H_
