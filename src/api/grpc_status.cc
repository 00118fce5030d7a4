#include "src/api/grpc_status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::api {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl::StatusCode and grpc::StatusCode share their values 0..16;
  // anything else (a code from a newer abseil) is an internal error.
  const int raw = static_cast<int>(status.code());
  const grpc::StatusCode code = raw >= 1 && raw <= 16
                                    ? static_cast<grpc::StatusCode>(raw)
                                    : grpc::StatusCode::INTERNAL;
  std::string message(status.message());
  if (message.empty()) {
    message = absl::StrCat("error ", absl::StatusCodeToString(status.code()));
  }
  return grpc::Status(code, message);
}

}  // namespace hptune::api
