#include "src/dashboard/http_address.h"

#include <arpa/inet.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/env/loopback.h"

namespace hptune::dashboard {
absl::StatusOr<HttpAddress> ParseHttpAddress(std::string_view flag,
                                             std::string_view text, bool tls) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--", std::string(flag),
                                                   " \"", std::string(text),
                                                   "\": ", std::string(why)));
  };
  HttpAddress address;
  std::string_view port;
  if (text.starts_with("[")) {
    const size_t close = text.find("]:");
    if (close == std::string_view::npos) {
      return bad("expected [IPV6]:PORT, e.g. [::1]:7461");
    }
    address.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return bad(
          absl::StrCat("expected HOST:PORT, e.g. ", kDefaultHttpAddress));
    }
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  if (!absl::SimpleAtoi(std::string(port), &address.port) || address.port < 0 ||
      address.port > 65535) {
    return bad("the port must be 0 (any free port) to 65535");
  }
  in_addr v4{};
  in6_addr v6{};
  if (address.host != "localhost" &&
      inet_pton(AF_INET, address.host.c_str(), &v4) != 1 &&
      inet_pton(AF_INET6, address.host.c_str(), &v6) != 1) {
    return bad("the host must be an IP address or localhost");
  }
  address.loopback = IsLoopbackHost(address.host);
  if (!address.loopback && !tls) {
    return bad(
        "refusing to serve the dashboard off loopback without TLS: the "
        "token and session cookie would cross the network in the clear; "
        "give --tls-cert and --tls-key, or use a loopback address (" +
        std::string(kDefaultHttpAddress) + ")");
  }
  return address;
}

}  // namespace hptune::dashboard
