// What `hptune serve` hands the fronts it starts beside its gRPC server:
// the dashboard, whose write actions go through the server (the same rules
// as a gRPC call), and the REST gateway's Cloud Storage upload into
// --gcs-root. Used by serve_command.cc only. The returned objects hold
// references to `server` and `env`, which must outlive them.
#ifndef HPTUNE_SRC_CLI_COMMANDS_SERVE_FRONTS_H_
#define HPTUNE_SRC_CLI_COMMANDS_SERVE_FRONTS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "src/dashboard/dashboard_server.h"
#include "src/rest/rest_gateway.h"
#include "src/server/server.h"

namespace hptune::cli {

// The dashboard beside the server, on its store, acting through it.
absl::StatusOr<std::unique_ptr<dashboard::DashboardServer>> StartDashboard(
    server::HptuneServer& server, dashboard::DashboardOptions options);

// Cloud Storage's upload into --gcs-root, as the server's user, through
// its Env.
rest::StorageOptions StorageOf(server::HptuneServer& server, Env& env,
                               std::string gcs_root);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_COMMANDS_SERVE_FRONTS_H_
