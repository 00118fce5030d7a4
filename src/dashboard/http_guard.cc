#include "src/dashboard/http_guard.h"

#include <openssl/rand.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/core/constant_time.h"

namespace hptune::dashboard {
namespace {

absl::StatusOr<std::string> RandomHex(int bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), bytes) != 1) {
    return absl::InternalError("the system's random source failed");
  }
  return absl::BytesToHexString(raw);
}

}  // namespace

absl::StatusOr<HttpGuard> HttpGuard::Create(std::string token) {
  if (token.empty()) {
    return absl::FailedPreconditionError(
        "the dashboard needs a token: it shows results and cancels jobs");
  }
  auto session = RandomHex(32);
  if (!session.ok()) return session.status();
  auto csrf = RandomHex(32);
  if (!csrf.ok()) return csrf.status();
  return HttpGuard(std::move(token), *std::move(session), *std::move(csrf));
}

HttpGuard::HttpGuard(std::string token, std::string session_key,
                     std::string csrf)
    : token_(std::move(token)),
      session_key_(std::move(session_key)),
      csrf_(std::move(csrf)) {}

Credential HttpGuard::Authenticate(std::string_view authorization,
                                   std::string_view cookie_header) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.starts_with(kBearer) &&
      ConstantTimeEquals(authorization.substr(kBearer.size()), token_)) {
    return Credential::kBearer;
  }
  const std::string prefix = std::string(kSessionCookie) + "=";
  while (!cookie_header.empty()) {
    const size_t end = cookie_header.find(';');
    std::string_view cookie = cookie_header.substr(0, end);
    cookie_header = end == std::string_view::npos
                        ? std::string_view()
                        : cookie_header.substr(end + 1);
    while (cookie.starts_with(' ')) cookie.remove_prefix(1);
    while (cookie.ends_with(' ')) cookie.remove_suffix(1);
    if (cookie.starts_with(prefix) &&
        ConstantTimeEquals(cookie.substr(prefix.size()), session_key_)) {
      return Credential::kSession;
    }
  }
  return Credential::kNone;
}

bool HttpGuard::IsToken(std::string_view given) const {
  return ConstantTimeEquals(given, token_);
}

bool HttpGuard::AllowsChange(Credential credential,
                             std::string_view csrf_header) const {
  if (credential == Credential::kBearer) return true;
  return credential == Credential::kSession &&
         ConstantTimeEquals(csrf_header, csrf_);
}

std::string HttpGuard::SessionCookie(bool secure) const {
  return absl::StrCat(kSessionCookie, "=", session_key_,
                      "; Path=/; HttpOnly; SameSite=Strict",
                      secure ? "; Secure" : "");
}

bool HostAllowed(std::string_view host_header, std::string_view listen_host) {
  if (listen_host == "0.0.0.0" || listen_host == "::") return true;
  std::string_view host = host_header;
  if (host.starts_with("[")) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':');
             colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host == "localhost" || host == "127.0.0.1" || host == "::1") return true;
  return !host.empty() && host == listen_host;
}

}  // namespace hptune::dashboard
