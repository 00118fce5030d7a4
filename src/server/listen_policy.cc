#include "src/server/listen_policy.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "src/env/loopback.h"

namespace hptune::server {
namespace {

// The host part of "host:port", "[v6]:port" or "unix:..."; false when the
// address has no port.
bool SplitHost(std::string_view address, std::string* host) {
  if (address.starts_with("[")) {
    size_t close = address.find("]:");
    if (close == std::string_view::npos) return false;
    *host = std::string(address.substr(1, close - 1));
    return close + 2 < address.size();
  }
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == address.size()) {
    return false;
  }
  *host = std::string(address.substr(0, colon));
  return true;
}

}  // namespace

bool IsLoopbackAddress(std::string_view address) {
  if (address.starts_with("unix:")) return true;
  std::string host;
  if (!SplitHost(address, &host)) return false;
  return IsLoopbackHost(host);
}

absl::Status CheckListenAddress(std::string_view address, bool tls) {
  std::string host;
  if (!address.starts_with("unix:") && !SplitHost(address, &host)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen \"", std::string(address),
                     "\": expected HOST:PORT, e.g. ", kDefaultListenAddress));
  }
  if (IsLoopbackAddress(address) || tls) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "refusing to listen on \"", std::string(address),
      "\" without TLS: clients would send their token in the clear, and "
      "whoever read it could run programs on this machine; give --tls-cert "
      "and --tls-key, or listen on loopback (",
      kDefaultListenAddress, ")"));
}

}  // namespace hptune::server
