#include "src/server/identity_socket.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/env/users.h"

namespace hptune::server {
namespace {

absl::Status SocketError(const std::filesystem::path& path, const char* what) {
  return absl::UnavailableError(absl::StrCat("identity socket ", path.string(),
                                             ": ", what, ": ",
                                             std::strerror(errno)));
}

// Writes `line` without blocking: a client that does not read loses it.
void SendLine(int connection, const std::string& line) {
  (void)!::send(connection, line.data(), line.size(),
                MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

std::filesystem::path IdentitySocketPath(
    const std::filesystem::path& grpc_socket) {
  std::filesystem::path path = grpc_socket;
  path += ".identity";
  return path;
}

absl::StatusOr<std::unique_ptr<IdentitySocket>> IdentitySocket::Start(
    const std::filesystem::path& path, TokenAuthenticator& auth, Env& env) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("identity socket ", path.string(), ": longer than ",
                     sizeof(address.sun_path) - 1, " bytes"));
  }
  std::strcpy(address.sun_path, path.c_str());
  ScopedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return SocketError(path, "cannot create");
  if (absl::StatusOr<FileType> type = env.TypeOf(path);
      type.ok() && *type == FileType::kSocket) {
    (void)env.Remove(path);
  }
  // Anyone may connect: the kernel says who did.
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address),
             sizeof(address)) != 0 ||
      !env.SetPermissions(path, 0666).ok() ||
      ::listen(fd.get(), SOMAXCONN) != 0) {
    return SocketError(path, "cannot listen");
  }
  ScopedFd stop(::eventfd(0, EFD_CLOEXEC));
  if (!stop.valid()) return SocketError(path, "eventfd");
  return std::unique_ptr<IdentitySocket>(
      new IdentitySocket(path, std::move(fd), std::move(stop), auth, env));
}

IdentitySocket::IdentitySocket(std::filesystem::path path, ScopedFd listen_fd,
                               ScopedFd stop_fd, TokenAuthenticator& auth,
                               Env& env)
    : path_(std::move(path)),
      listen_fd_(std::move(listen_fd)),
      stop_fd_(std::move(stop_fd)),
      auth_(auth),
      env_(env),
      server_uid_(env.EffectiveUserId()),
      thread_([this] { Serve(); }) {}

IdentitySocket::~IdentitySocket() {
  const uint64_t one = 1;
  (void)env_.Write(
      stop_fd_.get(),
      std::string_view(reinterpret_cast<const char*>(&one), sizeof(one)));
  thread_.join();
  (void)env_.Remove(path_);
}

void IdentitySocket::Serve() {
  while (true) {
    const int fds[] = {listen_fd_.get(), stop_fd_.get()};
    absl::StatusOr<std::vector<int>> ready =
        env_.PollReadable(fds, std::nullopt);
    if (!ready.ok() ||
        std::ranges::find(*ready, stop_fd_.get()) != ready->end()) {
      return;
    }
    const ScopedFd connection(::accept4(listen_fd_.get(), nullptr, nullptr,
                                        SOCK_CLOEXEC | SOCK_NONBLOCK));
    // Gone meanwhile, or out of descriptors.
    if (connection.valid()) Answer(connection.get());
  }
}

void IdentitySocket::Answer(int connection) {
  ucred peer{};
  socklen_t size = sizeof(peer);
  if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
    SendLine(connection, "error the kernel did not say who connected\n");
    return;
  }
  // A server that is not root runs every job as itself: only its own user
  // may use it.
  if (server_uid_ != 0 && peer.uid != server_uid_) {
    SendLine(connection, absl::StrCat("error this server runs as ",
                                      DescribeUser(server_uid_),
                                      " and serves that user only\n"));
    return;
  }
  absl::StatusOr<std::string> token = auth_.TokenFor(peer.uid, peer.gid);
  if (!token.ok()) {
    SendLine(connection,
             absl::StrCat("error ", token.status().message(), "\n"));
    return;
  }
  SendLine(connection, absl::StrCat("token ", *token, "\n"));
}

}  // namespace hptune::server
