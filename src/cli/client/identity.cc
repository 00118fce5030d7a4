#include "src/cli/client/identity.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "src/env/scoped_fd.h"

namespace hptune::cli::client {
namespace {

constexpr std::chrono::seconds kAnswerTimeout{10};
constexpr size_t kMaxAnswerBytes = 4096;

// The identity socket's answer line, read until the server closes.
absl::StatusOr<std::string> ReadAnswer(Env& os, int fd,
                                       const std::string& path) {
  std::string answer;
  char buffer[512];
  while (answer.size() < kMaxAnswerBytes) {
    const int fds[] = {fd};
    absl::StatusOr<std::vector<int>> ready =
        os.PollReadable(fds, kAnswerTimeout);
    if (!ready.ok() || ready->empty()) {
      return absl::UnavailableError(
          absl::StrCat("identity socket ", path, " did not answer"));
    }
    absl::StatusOr<size_t> n = os.ReadSome(fd, buffer);
    if (!n.ok() || *n == 0) break;
    answer.append(buffer, *n);
  }
  return answer;
}

}  // namespace

absl::StatusOr<std::string> AskIdentitySocket(Env& os,
                                              const std::string& grpc_socket,
                                              const TrustedPeers& trusted) {
  const std::string path = grpc_socket + ".identity";
  absl::StatusOr<FileInfo> info = os.InfoOf(path, Links::kFollow);
  if (!info.ok() || info->type != FileType::kSocket) {
    return absl::NotFoundError(absl::StrCat("no identity socket ", path));
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("identity socket ", path, ": path too long"));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  const ScopedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&address),
                               sizeof(address)) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to identity socket ", path, ": ",
                     std::strerror(errno)));
  }
  if (absl::Status peer = CheckUnixPeer(fd.get(), path, trusted); !peer.ok()) {
    return peer;
  }
  absl::StatusOr<std::string> answer = ReadAnswer(os, fd.get(), path);
  if (!answer.ok()) return answer.status();
  const std::string line(absl::StripAsciiWhitespace(*answer));
  if (line.starts_with("token ")) return line.substr(6);
  if (line.starts_with("error ")) {
    return absl::PermissionDeniedError(
        absl::StrCat("identity socket ", path, ": ", line.substr(6)));
  }
  return absl::UnavailableError(
      absl::StrCat("identity socket ", path, " gave no token"));
}

}  // namespace hptune::cli::client
