// The address a dashboard listens on, "HOST:PORT" or "[V6]:PORT", and
// whether it may: loopback always, any other address only with TLS, so the
// token and session cookie never cross a network in the clear (the same rule
// as the gRPC server's, docs/dashboard.md). Used by DashboardServer and the
// commands that start one. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_HTTP_ADDRESS_H_
#define HPTUNE_SRC_DASHBOARD_HTTP_ADDRESS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hptune::dashboard {

inline constexpr char kDefaultHttpAddress[] = "127.0.0.1:7461";

struct HttpAddress {
  std::string host;  // Without brackets: "127.0.0.1", "::1", "0.0.0.0".
  int port = 0;      // 0: any free port.
  bool loopback = false;
};

// InvalidArgument naming `flag` and the text for a malformed address, or for
// one off loopback when `tls` is false.
absl::StatusOr<HttpAddress> ParseHttpAddress(std::string_view flag,
                                             std::string_view text, bool tls);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_HTTP_ADDRESS_H_
