// The HTTP server of a front beside the gRPC port: plain HTTP without a
// certificate, HTTPS with the gRPC port's --tls-cert/--tls-key (PEM text).
// Used by DashboardServer and by `hptune serve`'s composition of the REST
// gateway, so both fronts take a certificate the same way. Thread-safe (no
// shared state).
#ifndef HPTUNE_SRC_DASHBOARD_HTTPS_SERVER_H_
#define HPTUNE_SRC_DASHBOARD_HTTPS_SERVER_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace hptune::dashboard {

// A plain httplib::Server when `cert_pem` is empty, else an SSLServer;
// InvalidArgument naming `front` ("the dashboard") when the pair is not PEM
// or does not go together.
absl::StatusOr<std::unique_ptr<httplib::Server>> MakeHttpServer(
    std::string_view front, std::string_view cert_pem,
    std::string_view key_pem);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_HTTPS_SERVER_H_
