#include "src/cli/token_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"

namespace hptune::cli {
namespace {

constexpr size_t kMaxTokenFileBytes = 4096;
constexpr size_t kTokenBytes = 32;  // 256 bits, printed as 64 hex digits.

std::string ErrnoText() { return std::strerror(errno); }

absl::StatusOr<std::string> RandomToken() {
  unsigned char bytes[kTokenBytes];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("getrandom for a new token: ", ErrnoText()));
    }
    got += static_cast<size_t>(n);
  }
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppendFormat(&hex, "%02x", b);
  return hex;
}

// Writes a fresh token to `path` unless a file is there already (another
// server linked one first: that one is the token).
absl::Status CreateTokenFile(const std::string& path) {
  HPTUNE_ASSIGN_OR_RETURN(std::string token, RandomToken());
  // The temporary name is this attempt's alone (part of its random token),
  // so starts racing in one process or several never share one.
  const std::string temp =
      absl::StrCat(path, ".tmp.", getpid(), ".", token.substr(0, 16));
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("token file \"", temp, "\": ", ErrnoText()));
  }
  const std::string line = token + "\n";
  const bool written = write(fd, line.data(), line.size()) ==
                           static_cast<ssize_t>(line.size()) &&
                       fsync(fd) == 0;
  close(fd);
  if (!written) {
    unlink(temp.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("token file \"", temp, "\": cannot be written"));
  }
  // link(2), unlike rename(2), fails when the name exists: the first
  // server's token wins and a second one reads it.
  const bool linked = link(temp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  unlink(temp.c_str());
  if (!linked && link_errno != EEXIST) {
    errno = link_errno;
    return absl::FailedPreconditionError(
        absl::StrCat("token file \"", path, "\": ", ErrnoText()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> DefaultTokenFile(const EnvLookup& env) {
  if (auto dir = env("HPTUNE_CONFIG_DIR"); dir && !dir->empty()) {
    return (std::filesystem::path(*dir) / "token").string();
  }
  if (auto dir = env("XDG_CONFIG_HOME"); dir && !dir->empty()) {
    return (std::filesystem::path(*dir) / "hptune" / "token").string();
  }
  if (auto home = env("HOME"); home && !home->empty()) {
    return (std::filesystem::path(*home) / ".config" / "hptune" / "token")
        .string();
  }
  return absl::FailedPreconditionError(
      "no place for the default token file: set HOME, XDG_CONFIG_HOME or "
      "HPTUNE_CONFIG_DIR, or give --token-file");
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path,
                                          std::ostream& warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("token file \"", path, "\": cannot be read"));
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTokenFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "token file \"", path, "\": more than ", kMaxTokenFileBytes,
        " bytes; a token file holds one token"));
  }
  std::string token(absl::StripAsciiWhitespace(text));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("token file \"", path, "\": holds no token"));
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & 0077) != 0) {
    warnings << absl::StrFormat(
        "hptune: warning: token file \"%s\" has mode %04o: %s can read it "
        "and submit jobs as this server's user (chmod 600 \"%s\")\n",
        path, st.st_mode & 07777,
        (st.st_mode & 0007) != 0 ? "every user of this machine" : "its group",
        path);
  }
  return token;
}

absl::StatusOr<std::string> LoadOrCreateTokenFile(const std::string& path,
                                                  std::ostream& warnings) {
  if (access(path.c_str(), F_OK) != 0) {
    HPTUNE_RETURN_IF_ERROR(
        CreatePrivateDirectories(std::filesystem::path(path).parent_path()));
    HPTUNE_RETURN_IF_ERROR(CreateTokenFile(path));
  }
  auto token = ReadTokenFile(path, warnings);
  if (!token.ok() && absl::IsNotFound(token.status())) {
    return absl::FailedPreconditionError(token.status().message());
  }
  return token;
}

}  // namespace hptune::cli
