#include "src/cli/client/peer_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/env/scoped_fd.h"

namespace hptune::cli::client {
namespace {

std::string PeerUserName(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return "";
  }
  return found->pw_name;
}

absl::Status Refusal(const std::string& where, const std::string& holder,
                     uid_t uid, const TrustedPeers& trusted) {
  const std::string name = PeerUserName(uid);
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to talk to ", where, ": ", holder, " ", DescribeUid(uid),
      ", not ", trusted.Describe(),
      "; another user may be posing as the server (say, while it "
      "restarts). If that user runs your server, pass --server-user ",
      name.empty() ? std::to_string(uid) : name,
      " (or set $HPTUNE_SERVER_USER)"));
}

// The owner of the socket file at `path` (of its target when a link),
// which must be trusted; OK when there is no file.
absl::Status CheckSocketFileOwner(Env& os, const std::string& path,
                                  const TrustedPeers& trusted) {
  absl::StatusOr<FileInfo> info = os.InfoOf(path, Links::kNotFollowed);
  if (!info.ok()) return absl::OkStatus();
  std::string file = path;
  if (info->type == FileType::kLink) {
    info = os.InfoOf(path, Links::kFollow);
    if (!info.ok()) return absl::OkStatus();  // Dangling: nothing to talk to.
    // Named as resolved in the refusal: the file whose owner is refused.
    if (absl::StatusOr<std::filesystem::path> target = os.RealPath(path);
        target.ok()) {
      file = target->string();
    }
  }
  if (trusted.Trusts(info->owner)) return absl::OkStatus();
  return Refusal(absl::StrCat("unix:", path),
                 absl::StrCat("the socket file ", file, " belongs to"),
                 info->owner, trusted);
}

// The socket file's owner, then the listener's credentials on a probe
// connection. Nothing listening: OK.
absl::Status CheckUnixServer(Env& os, const std::string& path,
                             const TrustedPeers& trusted) {
  if (absl::Status owner = CheckSocketFileOwner(os, path, trusted);
      !owner.ok()) {
    return owner;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) return absl::OkStatus();
  std::memcpy(address.sun_path, path.data(), path.size());
  const ScopedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&address),
                               sizeof(address)) != 0) {
    return absl::OkStatus();
  }
  return CheckUnixPeer(fd.get(), path, trusted);
}

// HOST and PORT of a loopback HOST:PORT (also "[::1]:P", "ipv4:", "ipv6:"
// and "dns:///" targets); false for any other address.
bool LoopbackPort(std::string address, int* port) {
  for (const char* prefix : {"dns:///", "ipv4:", "ipv6:"}) {
    if (address.starts_with(prefix)) address.erase(0, std::strlen(prefix));
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(address.substr(colon + 1), port)) {
    return false;
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 &&
         IN6_IS_ADDR_LOOPBACK(&v6);
}

// Whether /proc/net/tcp{,6}'s hex address (the kernel's 32-bit words as
// printed with %08X) is a wildcard or loopback one, which a connection to
// loopback reaches.
bool ReachedFromLoopback(const std::string& hex) {
  if (hex.size() != 8 && hex.size() != 32) return false;
  in6_addr v6{};
  for (size_t word = 0; word * 8 < hex.size(); ++word) {
    uint32_t value = 0;
    if (!absl::SimpleHexAtoi(hex.substr(word * 8, 8), &value)) return false;
    std::memcpy(v6.s6_addr + 4 * word, &value, 4);
  }
  if (hex.size() == 8) {
    return v6.s6_addr[0] == 127 ||
           (v6.s6_addr[0] | v6.s6_addr[1] | v6.s6_addr[2] | v6.s6_addr[3]) == 0;
  }
  return IN6_IS_ADDR_UNSPECIFIED(&v6) || IN6_IS_ADDR_LOOPBACK(&v6) ||
         (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
}

constexpr char kListenState[] = "0A";

// The owners of the sockets listening on `port` that a loopback connection
// reaches, from `table` (/proc/net/tcp's format). False when unreadable.
bool AppendListenerUids(Env& os, const std::string& table, int port,
                        std::vector<uid_t>* uids) {
  absl::StatusOr<std::string> text = os.ReadFile(table);
  if (!text.ok()) return false;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);  // The header.
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid;
    fields >> slot >> local >> remote >> state >> queues >> timer >>
        retransmits >> uid;
    const size_t colon = local.find(':');
    uint32_t local_port = 0;
    uint32_t owner = 0;
    if (state != kListenState || colon == std::string::npos ||
        !absl::SimpleHexAtoi(local.substr(colon + 1), &local_port) ||
        static_cast<int>(local_port) != port ||
        !ReachedFromLoopback(local.substr(0, colon)) ||
        !absl::SimpleAtoi(uid, &owner)) {
      continue;
    }
    uids->push_back(owner);
  }
  return true;
}

absl::Status CheckLoopbackListener(Env& os, const std::string& address,
                                   int port, const TrustedPeers& trusted) {
  std::vector<uid_t> uids;
  if (!AppendListenerUids(os, "/proc/net/tcp", port, &uids)) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to send a token to ", address,
                     ": cannot tell who listens on port ", port,
                     " (/proc/net/tcp is unreadable); talk TLS with --tls-ca"));
  }
  AppendListenerUids(os, "/proc/net/tcp6", port,
                     &uids);  // Absent without IPv6.
  for (uid_t uid : uids) {
    if (!trusted.Trusts(uid)) {
      return Refusal(address, absl::StrCat("port ", port, " is listened on by"),
                     uid, trusted);
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool TrustedPeers::Trusts(uid_t uid) const {
  return uid == 0 || uid == self || (server_user && uid == *server_user);
}

std::string TrustedPeers::Describe() const {
  std::string text =
      self == 0 ? "root (you)"
                : absl::StrCat("root or you (", DescribeUid(self), ")");
  if (server_user && *server_user != 0 && *server_user != self) {
    absl::StrAppend(&text, " or the --server-user ", DescribeUid(*server_user));
  }
  return text;
}

TrustedPeers TrustedPeersOf(Env& os, std::optional<uid_t> server_user) {
  return TrustedPeers{.self = os.EffectiveUserId(), .server_user = server_user};
}

std::string DescribeUid(uid_t uid) {
  const std::string name = PeerUserName(uid);
  return name.empty() ? absl::StrCat("uid ", uid)
                      : absl::StrCat("uid ", uid, " (", name, ")");
}

absl::StatusOr<uid_t> ParseServerUser(const std::string& value,
                                      const std::string& source) {
  uint32_t uid = 0;
  if (absl::SimpleAtoi(value, &uid)) return static_cast<uid_t>(uid);
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (!value.empty() &&
      ::getpwnam_r(value.c_str(), &entry, buffer.data(), buffer.size(),
                   &found) == 0 &&
      found != nullptr) {
    return found->pw_uid;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      source, ": \"", value, "\" is neither a user of this machine nor a uid"));
}

absl::Status CheckUnixPeer(int fd, const std::string& path,
                           const TrustedPeers& trusted) {
  ucred peer{};
  socklen_t size = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to talk to unix:", path,
        ": cannot tell who listens there: ", std::strerror(errno)));
  }
  if (trusted.Trusts(peer.uid)) return absl::OkStatus();
  return Refusal(
      absl::StrCat("unix:", path),
      absl::StrCat("the process listening there (pid ", peer.pid, ") runs as"),
      peer.uid, trusted);
}

absl::Status CheckServerPeer(Env& os, const std::string& address, bool tls,
                             const TrustedPeers& trusted) {
  if (address.starts_with("unix:")) {
    std::string path = address.substr(5);
    if (path.starts_with("//")) path = path.substr(2);  // unix:///abs
    return CheckUnixServer(os, path, trusted);
  }
  int port = 0;
  if (tls || !LoopbackPort(address, &port)) return absl::OkStatus();
  return CheckLoopbackListener(os, address, port, trusted);
}

}  // namespace hptune::cli::client
