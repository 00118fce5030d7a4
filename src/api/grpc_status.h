// absl::Status -> grpc::Status: the one place the server maps hptune's error
// codes to gRPC's.
//
// Used by every service handler of src/server before it returns. The codes
// are the same numbers in both libraries (DESIGN.md section 4), so the
// mapping keeps the code and the message; an error without a message gets
// one naming its code, so a client never sees a bare status. Pure functions;
// thread-safe.
#ifndef HPTUNE_SRC_API_GRPC_STATUS_H_
#define HPTUNE_SRC_API_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace hptune::api {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_GRPC_STATUS_H_
