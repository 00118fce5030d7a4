#include "src/cli/token_file.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"

namespace hptune::cli {
namespace {

constexpr int64_t kMaxTokenFileBytes = 4096;
constexpr int kTokenSeeds = 4;  // 256 bits, printed as 64 hex digits.

std::string RandomToken(Env& env) {
  std::string hex;
  for (int i = 0; i < kTokenSeeds; ++i) {
    absl::StrAppendFormat(&hex, "%016x", env.RandomSeed());
  }
  return hex;
}

// Writes a fresh token to `path` unless a file is there already (another
// server created one first: that one is the token).
absl::Status CreateTokenFile(Env& env, const std::string& path) {
  absl::Status created =
      env.CreateFileAtomically(path, RandomToken(env) + "\n", 0600);
  if (created.ok() || absl::IsAlreadyExists(created)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("token file \"", path, "\": ", created.message()));
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

absl::StatusOr<std::string> ReadTokenFile(Env& env, const std::string& path,
                                          std::ostream& warnings) {
  const absl::Status too_big = absl::InvalidArgumentError(
      absl::StrCat("token file \"", path, "\": more than ", kMaxTokenFileBytes,
                   " bytes; a token file holds one token"));
  absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
  if (info.ok() && info->type == FileType::kRegular &&
      info->size > kMaxTokenFileBytes) {
    return too_big;
  }
  // A pipe (--token-file <(...)) has no size to check first.
  absl::StatusOr<std::string> text =
      env.ReadFileHead(path, kMaxTokenFileBytes + 1);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat("token file \"", path, "\": cannot be read"));
  }
  if (static_cast<int64_t>(text->size()) > kMaxTokenFileBytes) return too_big;
  std::string token(absl::StripAsciiWhitespace(*text));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("token file \"", path, "\": holds no token"));
  }
  if (info.ok() && (info->mode & 0077) != 0) {
    warnings << absl::StrFormat(
        "hptune: warning: token file \"%s\" has mode %04o: %s can read it "
        "and submit jobs as this server's user (chmod 600 \"%s\")\n",
        path, info->mode,
        (info->mode & 0007) != 0 ? "every user of this machine" : "its group",
        path);
  }
  return token;
}

absl::StatusOr<std::string> LoadOrCreateTokenFile(Env& env,
                                                  const std::string& path,
                                                  std::ostream& warnings) {
  if (!env.Exists(path)) {
    HPTUNE_RETURN_IF_ERROR(env.CreatePrivateDirectories(
        std::filesystem::path(path).parent_path()));
    HPTUNE_RETURN_IF_ERROR(CreateTokenFile(env, path));
  }
  auto token = ReadTokenFile(env, path, warnings);
  if (!token.ok() && absl::IsNotFound(token.status())) {
    return absl::FailedPreconditionError(token.status().message());
  }
  return token;
}

}  // namespace hptune::cli
