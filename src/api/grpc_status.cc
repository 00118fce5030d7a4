#include "src/api/grpc_status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::api {

// absl::StatusCode and grpc::StatusCode share their values 0..16.
grpc::StatusCode ToGrpcCode(absl::StatusCode code) {
  const int raw = static_cast<int>(code);
  return raw >= 0 && raw <= 16 ? static_cast<grpc::StatusCode>(raw)
                               : grpc::StatusCode::INTERNAL;
}

absl::StatusCode FromGrpcCode(grpc::StatusCode code) {
  const int raw = static_cast<int>(code);
  return raw >= 0 && raw <= 16 ? static_cast<absl::StatusCode>(raw)
                               : absl::StatusCode::kUnknown;
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  std::string message(status.message());
  if (message.empty()) {
    message = absl::StrCat("error ", absl::StatusCodeToString(status.code()));
  }
  // The message travels in a trailer, which clients refuse past 8 KiB by
  // default: an error quoting a huge input would arrive as a transport
  // error instead of itself.
  if (message.size() > kMaxMessageBytes) {
    const size_t total = message.size();
    message.resize(kMaxMessageBytes);
    absl::StrAppend(&message, "... (", total - kMaxMessageBytes,
                    " more bytes)");
  }
  return grpc::Status(ToGrpcCode(status.code()), message);
}

std::string GrpcCodeName(grpc::StatusCode code) {
  return absl::StatusCodeToString(FromGrpcCode(code));
}

}  // namespace hptune::api
