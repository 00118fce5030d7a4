// Bearer-token authentication of the gRPC services.
//
// Every StudyService and JobService call to `hptune serve` must carry the
// metadata `authorization: Bearer <token>` (the agreed convention of the
// server and its clients; where the token comes from is
// src/cli/token_file.h). The comparison takes time independent of where the
// tokens differ, so the token cannot be guessed byte by byte from reply
// times. Health checking stays open (it reveals nothing); reflection, which
// gRPC answers without asking this class, is served on loopback only.
// Thread-safe: a TokenAuthenticator is immutable.
#ifndef HPTUNE_SRC_SERVER_AUTH_H_
#define HPTUNE_SRC_SERVER_AUTH_H_

#include <grpcpp/server_context.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hptune::server {

class TokenAuthenticator {
 public:
  // An empty token accepts every call (an embedder's explicit choice:
  // ServerOptions::allow_unauthenticated).
  explicit TokenAuthenticator(std::string token) : token_(std::move(token)) {}

  bool enabled() const { return !token_.empty(); }

  // OK, or UNAUTHENTICATED saying what is missing or wrong (never the token).
  grpc::Status Check(const grpc::ServerContextBase& context) const;
  // The same on the raw header value ("" when absent); for tests.
  grpc::Status CheckHeader(std::string_view authorization) const;

 private:
  std::string token_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_AUTH_H_
