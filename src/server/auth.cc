#include "src/server/auth.h"

#include <openssl/rand.h>
#include <pwd.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "src/core/constant_time.h"

namespace hptune::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";
constexpr int64_t kMaxUsersFileBytes = 1 << 20;
constexpr size_t kMinTokenBytes = 16;
constexpr size_t kMaxTokenBytes = 4096;

// The token of an "authorization" value, or why there is none.
absl::StatusOr<std::string_view> BearerToken(std::string_view authorization) {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        "this server needs a token: send the metadata \"authorization: "
        "Bearer <token>\"");
  }
  if (!authorization.starts_with(kBearer)) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be \"Bearer <token>\"");
  }
  return authorization.substr(kBearer.size());
}

std::string_view AuthorizationOf(const grpc::ServerContextBase& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return "";
  return std::string_view(it->second.data(), it->second.size());
}

// USER of a users file line: a name the user database knows, or a uid.
absl::StatusOr<Caller> ParseUser(std::string_view user) {
  uint32_t uid = 0;
  std::vector<char> buffer(16384);
  struct passwd entry;
  struct passwd* found = nullptr;
  const std::string name(user);
  if (getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) ==
          0 &&
      found != nullptr) {
    return Caller{.uid = found->pw_uid, .gid = found->pw_gid};
  }
  if (absl::SimpleAtoi(name, &uid) && uid < 0xFFFFFFFFu) {
    if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 &&
        found != nullptr) {
      return Caller{.uid = uid, .gid = found->pw_gid};
    }
    return Caller{.uid = uid, .gid = uid};
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no user \"", name.substr(0, 64), "\""));
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(std::string token, Env& env)
    : token_(std::move(token)),
      self_{.uid = env.EffectiveUserId(),
            .gid = env.EffectiveGroupId(),
            .admin = true} {}

absl::Status TokenAuthenticator::LoadUsersFile(
    const std::filesystem::path& path, Env& env) {
  const std::string where = absl::StrCat("users file ", path.string());
  absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
  if (!info.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", info.status().message()));
  }
  const uint32_t self = env.EffectiveUserId();
  if (info->owner != self || (info->mode & 077) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, " is owned by uid ", info->owner, " with mode ",
                     absl::StrFormat("%04o", info->mode & 0777),
                     ": it holds every user's token, so it "
                     "must be this server's user's (uid ",
                     self, ") and readable by no one else (chmod 600)"));
  }
  if (info->size > kMaxUsersFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " has ", info->size, " bytes, more than ", kMaxUsersFileBytes));
  }
  HPTUNE_ASSIGN_OR_RETURN(const std::string contents, env.ReadFile(path));
  std::map<std::string, Caller> users;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(contents, '\n')) {
    ++number;
    const absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text.front() == '#') continue;
    const std::vector<absl::string_view> fields =
        absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    const std::string at = absl::StrCat(where, " line ", number);
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": expected \"USER TOKEN\""));
    }
    if (fields[1].size() < kMinTokenBytes ||
        fields[1].size() > kMaxTokenBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": a token has ", kMinTokenBytes, " to ", kMaxTokenBytes,
          " characters, this one ", fields[1].size()));
    }
    absl::StatusOr<Caller> user =
        ParseUser(std::string_view(fields[0].data(), fields[0].size()));
    if (!user.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": ", user.status().message()));
    }
    if (!users.emplace(std::string(fields[1]), *user).second ||
        std::string(fields[1]) == token_) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": this token is given to another user already"));
    }
  }
  MutexLock lock(&mutex_);
  users_.merge(users);
  return absl::OkStatus();
}

absl::StatusOr<std::string> TokenAuthenticator::TokenFor(uid_t uid, gid_t gid) {
  // The server's own user could read its token file anyway.
  if (uid == self_.uid) return token_;
  MutexLock lock(&mutex_);
  if (auto it = issued_.find(uid); it != issued_.end()) return it->second;
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    return absl::InternalError("the system's random source failed");
  }
  std::string token;
  for (unsigned char byte : bytes)
    absl::StrAppend(&token, absl::Hex(byte, absl::kZeroPad2));
  users_[token] = Caller{.uid = uid, .gid = gid, .admin = false};
  issued_[uid] = token;
  return token;
}

absl::StatusOr<Caller> TokenAuthenticator::IdentifyHeader(
    std::string_view authorization) const {
  if (!enabled()) return self_;
  absl::StatusOr<std::string_view> token = BearerToken(authorization);
  if (!token.ok()) return token.status();
  if (ConstantTimeEquals(*token, token_)) return self_;
  MutexLock lock(&mutex_);
  for (const auto& [known, caller] : users_) {
    if (ConstantTimeEquals(*token, known)) return caller;
  }
  return absl::UnauthenticatedError("the token is not this server's token");
}

absl::StatusOr<Caller> TokenAuthenticator::Identify(
    const grpc::ServerContextBase& context) const {
  return IdentifyHeader(AuthorizationOf(context));
}

grpc::Status TokenAuthenticator::CheckHeader(
    std::string_view authorization) const {
  absl::StatusOr<Caller> caller = IdentifyHeader(authorization);
  if (caller.ok()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      std::string(caller.status().message()));
}

grpc::Status TokenAuthenticator::Check(
    const grpc::ServerContextBase& context) const {
  return CheckHeader(AuthorizationOf(context));
}

}  // namespace hptune::server
