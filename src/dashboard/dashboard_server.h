// DashboardServer: the web dashboard (docs/dashboard.md), an HTTP server
// over a Store: the pages and the plot library embedded in the binary, a
// JSON API for them, an event stream of changes, and the write actions
// (cancelling a job, deleting a study) when the owner gives a way to. Every
// request is checked by HttpGuard; off loopback it serves TLS only.
// `hptune serve` starts one beside its gRPC services (sharing its store,
// acting through its job manager and engine); `hptune dashboard` starts
// one read-only on a database file.
//
// Thread-safety: Start, port, url and Stop may be called from any thread;
// the store must outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_DASHBOARD_SERVER_H_
#define HPTUNE_SRC_DASHBOARD_DASHBOARD_SERVER_H_

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "src/dashboard/action_routes.h"

namespace hptune::dashboard {

struct DashboardOptions {
  // The machine: the clock and the replica logs. Required; set by the
  // composition root (`hptune serve`, `hptune dashboard`); must outlive the
  // server.
  Env* env = nullptr;
  std::string address = "127.0.0.1:7461";  // Port 0: any free port.
  std::string address_flag = "http";       // Named in address errors.
  std::string token;                       // Required.
  std::string tls_cert;  // PEM text; both empty: plain HTTP (loopback only).
  std::string tls_key;
  // Where replica logs are (<state_dir>/<job>/<trial>/<replica>.log); empty:
  // the trial page lists none.
  std::filesystem::path state_dir;
  // The write actions (action_routes.h); none: the dashboard is read-only.
  DashboardActions actions;
  // How often the event log is read for the pages' event streams.
  std::chrono::milliseconds poll_interval{250};
  int max_streams = 32;
};

class DashboardServer {
 public:
  // Binds the address and starts serving. InvalidArgument for an address
  // off loopback without TLS or a bad certificate, Unavailable when the
  // address cannot be bound.
  static absl::StatusOr<std::unique_ptr<DashboardServer>> Start(
      store::Store& store, DashboardOptions options);
  ~DashboardServer();  // Stops.

  int port() const;
  // "http://127.0.0.1:PORT/" (https under TLS); the host as given, or
  // 127.0.0.1 for the any-address.
  std::string url() const;
  void Stop();

  class Impl;

 private:
  explicit DashboardServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_DASHBOARD_SERVER_H_
