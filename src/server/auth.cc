#include "src/server/auth.h"

#include "absl/strings/str_cat.h"
#include "src/core/constant_time.h"

namespace hptune::server {

grpc::Status TokenAuthenticator::Check(
    const grpc::ServerContextBase& context) const {
  if (!enabled()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return CheckHeader("");
  return CheckHeader(std::string_view(it->second.data(), it->second.size()));
}

grpc::Status TokenAuthenticator::CheckHeader(
    std::string_view authorization) const {
  if (!enabled()) return grpc::Status::OK;
  if (authorization.empty()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this server needs a token: send the metadata "
                        "\"authorization: Bearer <token>\"");
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "the authorization metadata must be \"Bearer "
                        "<token>\"");
  }
  if (!ConstantTimeEquals(authorization.substr(kBearer.size()), token_)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "the token is not this server's token");
  }
  return grpc::Status::OK;
}

}  // namespace hptune::server
