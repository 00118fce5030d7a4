// What every route of the dashboard's JSON API is made of, over cpp-httplib:
// answers as JSON, errors as {"error": message} with the HTTP status of an
// absl::Status, query parameters, and ApiRoutes, which registers handlers
// whose bodies leave gzipped when the client takes gzip. Used by
// DashboardServer and its routes (study_routes.h, trial_routes.h,
// change_stream.h).
//
// Thread-safety: the free functions may be called from any thread; an
// ApiRoutes is used while the server is set up, before it listens.
#ifndef HPTUNE_SRC_DASHBOARD_HTTP_API_H_
#define HPTUNE_SRC_DASHBOARD_HTTP_API_H_

#include <httplib.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/dashboard/study_json.h"
#include "src/dashboard/trial_query.h"

namespace hptune::dashboard {

// A study name's longest, as the gRPC API accepts it
// (src/server/request_limits.h): a longer one names no study.
inline constexpr size_t kMaxStudyName = 128;

// 400 InvalidArgument, 404 NotFound, 409 a conflict, 413, 503, else 500.
int HttpStatus(const absl::Status& status);

void SendJson(httplib::Response& res, const Json& body, int status = 200);
void SendError(httplib::Response& res, int status, std::string_view message);
void SendStatus(httplib::Response& res, const absl::Status& status);

// Sends what `build` returns, or its error.
template <typename Build>
void Answer(httplib::Response& res, Build build) {
  absl::StatusOr<Json> body = build();
  if (!body.ok()) return SendStatus(res, body.status());
  SendJson(res, *body);
}

QueryParams Params(const httplib::Request& req);

// Parameter `name`, an integer from 1 to `max`; `fallback` when absent.
// InvalidArgument naming it and its value otherwise.
absl::StatusOr<size_t> SizeParam(const QueryParams& params,
                                 const std::string& name, size_t fallback,
                                 size_t max);

// Registers handlers on an httplib server. Every handler's body leaves
// through one encoding step: gzipped when the client takes gzip and it is
// worth it, then handed to httplib as a sized content provider, which
// httplib sends as it is (it would otherwise brotli-compress it at its
// slowest quality: http_encoding.h).
class ApiRoutes {
 public:
  explicit ApiRoutes(httplib::Server& http) : http_(http) {}

  void Get(const std::string& pattern, httplib::Server::Handler handler);
  void Post(const std::string& pattern, httplib::Server::Handler handler);

 private:
  httplib::Server& http_;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_HTTP_API_H_
