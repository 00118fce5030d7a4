#include "src/cli/serving_flags.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "src/cli/token_file.h"

namespace hptune::cli {
namespace {

absl::StatusOr<std::string> ReadPem(Env& env, const std::string& flag,
                                    const std::string& path) {
  const absl::Status too_big = absl::InvalidArgumentError(absl::StrCat(
      "--", flag, " \"", path, "\": larger than ", kMaxPemBytes, " bytes"));
  absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
  if (info.ok() && info->type == FileType::kRegular &&
      info->size > kMaxPemBytes) {
    return too_big;
  }
  absl::StatusOr<std::string> text = env.ReadFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " \"", path, "\": cannot be read"));
  }
  if (static_cast<std::streamsize>(text->size()) > kMaxPemBytes) return too_big;
  return text;
}

int Fail(const std::string& command, const absl::Status& status, int code,
         std::ostream& err) {
  err << "hptune " << command << ": " << status.message() << "\n";
  return code;
}

}  // namespace

int ReadTlsFlags(Env& env, const ParsedArgs& parsed, const std::string& command,
                 ServingCredentials& credentials, std::ostream& err) {
  auto fail = [&](const absl::Status& status, int code) {
    return Fail(command, status, code, err);
  };
  if (parsed.Has("tls-cert") != parsed.Has("tls-key")) {
    return fail(absl::InvalidArgumentError(
                    "--tls-cert and --tls-key go together: give both"),
                kExitUsage);
  }
  if (parsed.Has("tls-cert")) {
    credentials.tls_cert_path = *parsed.Get("tls-cert");
    credentials.tls_key_path = *parsed.Get("tls-key");
    auto cert = ReadPem(env, "tls-cert", credentials.tls_cert_path);
    if (!cert.ok()) return fail(cert.status(), kExitInvalid);
    auto key = ReadPem(env, "tls-key", credentials.tls_key_path);
    if (!key.ok()) return fail(key.status(), kExitInvalid);
    credentials.tls_cert_pem = *std::move(cert);
    credentials.tls_key_pem = *std::move(key);
  }
  return kExitOk;
}

int ReadTokenFlag(Env& env, const ParsedArgs& parsed,
                  const std::string& command, ServingCredentials& credentials,
                  std::ostream& err) {
  auto fail = [&](const absl::Status& status, int code) {
    return Fail(command, status, code, err);
  };
  absl::StatusOr<std::string> token;
  if (auto path = parsed.Get("token-file")) {
    credentials.token_file = *path;
    token = ReadTokenFile(env, *path, err);
    if (!token.ok()) return fail(token.status(), kExitInvalid);
  } else {
    auto default_path = DefaultTokenFile(ProcessEnv());
    if (!default_path.ok()) return fail(default_path.status(), kExitInvalid);
    credentials.token_file = *default_path;
    token = LoadOrCreateTokenFile(env, *default_path, err);
    if (!token.ok()) return fail(token.status(), kExitFailure);
  }
  credentials.token = *std::move(token);
  return kExitOk;
}

}  // namespace hptune::cli
