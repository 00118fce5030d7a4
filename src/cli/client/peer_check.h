// Whom the client talks to before it sends a token (docs/operations.md,
// "Who may submit jobs"): a fake socket, or a listener on the server's port
// while the server restarts, would otherwise get the token of whoever calls.
//
// The client trusts root, its own user and the user named by --server-user
// ($HPTUNE_SERVER_USER). On a unix: address the socket file's owner and the
// listening process (SO_PEERCRED, which the kernel fills in) must be one of
// them; on a loopback HOST:PORT without TLS, the owner of the listening
// socket on that port (/proc/net/tcp, tcp6). With TLS over TCP the CA pins
// the server, and other addresses are left to TLS (the server listens off
// loopback only with it). Used by connection.cc and identity.cc; free
// functions, thread-safe.
#ifndef HPTUNE_CLI_CLIENT_PEER_CHECK_H_
#define HPTUNE_CLI_CLIENT_PEER_CHECK_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::cli::client {

struct TrustedPeers {
  uid_t self = 0;
  std::optional<uid_t> server_user;

  // Root, this process's user, or server_user.
  bool Trusts(uid_t uid) const;
  // "root or you (uid 1000, alice)", naming server_user when set.
  std::string Describe() const;
};

// `os`'s user, and server_user.
TrustedPeers TrustedPeersOf(Env& os, std::optional<uid_t> server_user);

// A user name or uid, for --server-user; InvalidArgument naming `source`
// when it is neither.
absl::StatusOr<uid_t> ParseServerUser(const std::string& value,
                                      const std::string& source);

// "uid 65534 (nobody)".
std::string DescribeUid(uid_t uid);

// The peer of `fd`, a connected Unix socket to `path`, must be trusted:
// FailedPrecondition naming the path, the peer and whom the client trusts.
absl::Status CheckUnixPeer(int fd, const std::string& path,
                           const TrustedPeers& trusted);

// The check of the server at `address` before a call goes there. OK when
// nothing listens there (the call then fails on its own, and is checked
// again before a retry); FailedPrecondition naming the address and who holds
// it otherwise.
// The socket file's owner and the tables of listeners are read through
// `os`.
absl::Status CheckServerPeer(Env& os, const std::string& address, bool tls,
                             const TrustedPeers& trusted);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_PEER_CHECK_H_
