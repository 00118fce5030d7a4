// Who calls the gRPC services: bearer tokens, and the user each one stands
// for.
//
// Every StudyService and JobService call to `hptune serve` must carry the
// metadata `authorization: Bearer <token>` (the agreed convention of the
// server and its clients; where the token comes from is
// src/cli/token_file.h). The server's own token is its administrator's:
// calls with it act as the server's user and see every job. A root server
// knows other users' tokens too (docs/operations.md, "Several users on one
// server"): those of its users file, one line per user, and those its
// identity socket hands out to whoever the kernel says connected
// (identity_socket.h); a call with one acts as that user. Comparisons take
// time independent of where the tokens differ, so a token cannot be
// guessed byte by byte from reply times. Health checking stays open (it
// reveals nothing); reflection, which gRPC answers without asking this
// class, is served on loopback only.
// Thread-safe.
#ifndef HPTUNE_SRC_SERVER_AUTH_H_
#define HPTUNE_SRC_SERVER_AUTH_H_

#include <grpcpp/server_context.h>
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"

namespace hptune::server {

// The user a call acts for.
struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
  // The server's own token: its user, who may see and cancel every job.
  bool admin = false;
};

class TokenAuthenticator {
 public:
  // `token`: the server's own, which acts as `env`'s user and group. An
  // empty one accepts every call as the server's user (an embedder's
  // explicit choice: ServerOptions::allow_unauthenticated).
  TokenAuthenticator(std::string token, Env& env);

  bool enabled() const { return !token_.empty(); }

  // Adds the users of a users file: lines "USER TOKEN" (USER a name or a
  // numeric uid; blank lines and lines starting with # skipped). The file
  // must be this process's user's and readable by no one else, as it holds
  // everyone's tokens. Read through `env`. Errors name the file and line.
  [[nodiscard]] absl::Status LoadUsersFile(const std::filesystem::path& path,
                                           Env& env);

  // The token of user `uid` (group `gid`), made on the first call: what the
  // identity socket hands that user. The same token for every call; the
  // server's own for the server's user.
  absl::StatusOr<std::string> TokenFor(uid_t uid, gid_t gid);

  // OK, or UNAUTHENTICATED saying what is missing or wrong (never a token).
  grpc::Status Check(const grpc::ServerContextBase& context) const;
  // The same on the raw header value ("" when absent); for tests.
  grpc::Status CheckHeader(std::string_view authorization) const;
  // Whom an authenticated call acts for.
  absl::StatusOr<Caller> Identify(const grpc::ServerContextBase& context) const;
  absl::StatusOr<Caller> IdentifyHeader(std::string_view authorization) const;

 private:
  const std::string token_;
  const Caller self_;  // The server's user, as administrator.
  mutable Mutex mutex_;
  std::map<std::string, Caller> users_ ABSL_GUARDED_BY(mutex_);  // By token.
  std::map<uid_t, std::string> issued_ ABSL_GUARDED_BY(mutex_);  // By uid.
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_AUTH_H_
