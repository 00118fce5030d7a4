// Who may use the dashboard (docs/dashboard.md, "Who may look"): every
// request carries the server's token (`Authorization: Bearer`) or the
// session cookie given for it at login; a state-changing request with the
// cookie also carries the CSRF value; the Host header must name this server
// (no DNS rebinding). The session key and CSRF value are random per server
// start, so the cookie is not the token and dies with the server. Used by
// DashboardServer on every request. Thread-safe: immutable after
// construction.
#ifndef HPTUNE_SRC_DASHBOARD_HTTP_GUARD_H_
#define HPTUNE_SRC_DASHBOARD_HTTP_GUARD_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hptune::dashboard {

inline constexpr char kSessionCookie[] = "hptune_session";
inline constexpr char kCsrfHeader[] = "X-Hptune-Csrf";

enum class Credential { kNone, kBearer, kSession };

class HttpGuard {
 public:
  // `token` must not be empty. Draws the session key and CSRF value from
  // the system's random source.
  static absl::StatusOr<HttpGuard> Create(std::string token);
  // Fixed secrets, for tests.
  HttpGuard(std::string token, std::string session_key, std::string csrf);

  // How the request proved it knows the token: its `Authorization` header
  // value and its `Cookie` header value (either may be empty).
  Credential Authenticate(std::string_view authorization,
                          std::string_view cookie_header) const;
  // True when `given` is the server's token (a login form's field).
  bool IsToken(std::string_view given) const;
  // A state-changing request passes when it came with the bearer token, or
  // with the session cookie and the CSRF header's value.
  bool AllowsChange(Credential credential, std::string_view csrf_header) const;

  const std::string& csrf() const { return csrf_; }
  // The Set-Cookie value that logs a browser in.
  std::string SessionCookie(bool secure) const;

 private:
  std::string token_;
  std::string session_key_;
  std::string csrf_;
};

// True when a request's Host header may reach a server bound to
// `listen_host`: loopback names (localhost, 127.0.0.1, [::1]) with any port,
// or the listen host itself; any host when the server listens on all
// addresses (0.0.0.0, ::), which needs TLS. Blocks DNS rebinding, where a
// page of another site names its own host on this server's address.
bool HostAllowed(std::string_view host_header, std::string_view listen_host);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_HTTP_GUARD_H_
