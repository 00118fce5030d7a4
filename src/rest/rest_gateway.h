// RestGateway: the HTTP server of `hptune serve --rest`, AI Platform
// Training v1's REST API for jobs (docs/rest.md): POST
// /v1/projects/P/jobs, GET /v1/projects/P/jobs[/ID], POST
// /v1/projects/P/jobs/ID:cancel, PATCH /v1/projects/P/jobs/ID, answered by
// job_routes.h; and Vertex AI's under
// /v1/projects/P/locations/L/hyperparameterTuningJobs, answered by
// vertex_routes.h, with GET /v1/projects/P/locations/L/operations/ID
// (vertex_operations.h), which a client polls after a delete. Both go through
// the gRPC server's in-process channel, so `gcloud ai-platform jobs` and
// `gcloud ai hp-tuning-jobs` pointed here (api_endpoint_overrides/ml,
// /aiplatform) reach the same service, rules and limits as `hptune jobs`. HTTP
// or HTTPS as RestOptions::make_http makes it (the caller allows an address off
// loopback only with TLS); a request whose Host header
// RestOptions::host_allowed refuses gets 403 (DNS rebinding). The project in
// the path is not checked: one server is one project. Cloud Storage's upload is
// answered by storage_routes.h, Cloud Logging's entries.list (stream-logs) by
// log_routes.h.
//
// Thread-safety: Start, port and Stop may be called from any thread.
#ifndef HPTUNE_SRC_REST_REST_GATEWAY_H_
#define HPTUNE_SRC_REST_REST_GATEWAY_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "hptune/core/time.h"
#include "src/rest/storage_routes.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace hptune::rest {

struct RestOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port.
  // The gRPC server's in-process channel (HptuneServer::InProcessChannel).
  std::shared_ptr<grpc::Channel> channel;
  // Larger bodies get 413 with Google's error JSON; the gRPC server's own
  // request limit (4 MiB) applies after.
  size_t max_body_bytes = size_t{4} << 20;
  // The server's wall clock (its Env's), which the calls' deadlines count
  // from and Vertex's new job IDs are taken from (VertexJobIds). Required.
  std::function<Timestamp()> now;
  // Cloud Storage's upload method (storage_routes.h); its bodies may be up
  // to storage.max_object_bytes and a little more.
  StorageOptions storage;
  // Makes the server: `hptune serve` passes the dashboard's maker with the
  // gRPC port's certificate (HTTPS). Default: plain HTTP.
  std::function<absl::StatusOr<std::unique_ptr<httplib::Server>>()> make_http;
  // Whether a request's Host header names this server; `hptune serve`
  // passes the dashboard's rule for the listening host. Default: any.
  std::function<bool(std::string_view host_header)> host_allowed;
};

class RestGateway {
 public:
  // Unavailable naming the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<RestGateway>> Start(
      RestOptions options);
  ~RestGateway();  // Stops.

  int port() const;
  void Stop();

  class Impl;

 private:
  explicit RestGateway(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_REST_GATEWAY_H_
