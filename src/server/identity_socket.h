// The identity socket: how a user of this machine gets a token of a root
// `hptune serve` without being given one.
//
// Beside its gRPC Unix socket PATH, the server listens on PATH.identity
// (mode 0666). For each connection it asks the kernel who connected
// (SO_PEERCRED: a uid no client can forge), writes one line and closes:
//   token <hex>        the caller's token (TokenAuthenticator::TokenFor)
//   error <message>    why not
// A server that is not root runs everything as its own user, so it gives a
// token to that user only. Nothing is read from the client, so an idle
// connection costs nothing. Clients: src/cli/client/connection.cc and
// python/hptune/_connection.py. Thread-safe; one thread serves the socket
// until the object is destroyed.
#ifndef HPTUNE_SRC_SERVER_IDENTITY_SOCKET_H_
#define HPTUNE_SRC_SERVER_IDENTITY_SOCKET_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "src/env/scoped_fd.h"
#include "src/server/auth.h"

namespace hptune::server {

// The identity socket's name beside the gRPC socket at `grpc_socket`.
std::filesystem::path IdentitySocketPath(
    const std::filesystem::path& grpc_socket);

class IdentitySocket {
 public:
  // Listens on `path`, replacing a socket file left there (the server's
  // lock on its database says no other server of it lives). The socket's
  // file and the server's user are `env`'s, which must outlive the socket.
  // Errors name the path.
  static absl::StatusOr<std::unique_ptr<IdentitySocket>> Start(
      const std::filesystem::path& path, TokenAuthenticator& auth, Env& env);
  ~IdentitySocket();

 private:
  IdentitySocket(std::filesystem::path path, ScopedFd listen_fd,
                 ScopedFd stop_fd, TokenAuthenticator& auth, Env& env);
  void Serve();
  void Answer(int connection);

  const std::filesystem::path path_;
  const ScopedFd listen_fd_;
  const ScopedFd stop_fd_;  // An eventfd: readable once destruction begins.
  TokenAuthenticator& auth_;
  Env& env_;
  const uint32_t server_uid_;  // Env::EffectiveUserId.
  std::thread thread_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_IDENTITY_SOCKET_H_
