#include "src/rest/rest_gateway.h"

#include <httplib.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "src/rest/job_routes.h"
#include "src/rest/log_routes.h"
#include "src/rest/vertex_operations.h"
#include "src/rest/vertex_routes.h"

namespace hptune::rest {
namespace {

// The job ID and the project: AI Platform's resource paths.
constexpr char kJobsPath[] = R"(/v1/projects/([^/:]+)/jobs)";
constexpr char kJobPath[] = R"(/v1/projects/([^/:]+)/jobs/([^/:]+))";
constexpr char kCancelPath[] = R"(/v1/projects/([^/:]+)/jobs/([^/:]+):cancel)";
// Vertex AI's: the project, the location and the job ID.
constexpr char kVertexJobsPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/hyperparameterTuningJobs)";
constexpr char kVertexJobPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/hyperparameterTuningJobs/([^/:]+))";
constexpr char kVertexCancelPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/hyperparameterTuningJobs/([^/:]+):cancel)";
constexpr char kCustomJobsPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/customJobs)";
constexpr char kCustomJobPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/customJobs/([^/:]+))";
constexpr char kCustomJobCancelPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/customJobs/([^/:]+):cancel)";
constexpr char kVertexOperationPath[] =
    R"(/v1/projects/([^/:]+)/locations/([^/:]+)/operations/([^/:]+))";

void Send(const RestReply& reply, httplib::Response& res) {
  res.status = reply.http_status;
  res.set_content(reply.json, "application/json; charset=UTF-8");
}

std::string QueryValue(const httplib::Request& req, const char* name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string();
}

// An upload's body may be larger than a job's (httplib's limit is the
// upload's): a job route checks its own.
size_t UploadBodyLimit(const RestOptions& options) {
  return options.storage.max_object_bytes + (size_t{1} << 20);
}

bool TooLarge(const httplib::Request& req, size_t limit,
              httplib::Response& res) {
  if (req.body.size() <= limit) return false;
  Send(ErrorReply(absl::ResourceExhaustedError(
           absl::StrCat("the request body is larger than ", limit, " bytes"))),
       res);
  res.status = 413;
  return true;
}

// A request's call of the services: the channel, the caller's
// Authorization header, and when the request came.
using CallOf = std::function<RestCall(const httplib::Request&)>;

CallOf CallsOn(std::shared_ptr<grpc::Channel> ch,
               std::function<Timestamp()> now) {
  return [ch, now](const httplib::Request& req) {
    return RestCall{.channel = ch,
                    .authorization = req.get_header_value("Authorization"),
                    .received = now()};
  };
}

void AddJobRoutes(httplib::Server& http, const CallOf& call_of, size_t max) {
  http.Post(kJobsPath, [call_of, max](const httplib::Request& req,
                                      httplib::Response& res) {
    if (!TooLarge(req, max, res)) Send(CreateJob(call_of(req), req.body), res);
  });
  http.Get(kJobsPath, [call_of](const httplib::Request& req,
                                httplib::Response& res) {
    Send(ListJobs(call_of(req), QueryValue(req, "filter"),
                  QueryValue(req, "pageSize"), QueryValue(req, "pageToken")),
         res);
  });
  http.Get(kJobPath,
           [call_of](const httplib::Request& req, httplib::Response& res) {
             Send(GetJob(call_of(req), req.matches[2].str()), res);
           });
  http.Patch(kJobPath, [call_of, max](const httplib::Request& req,
                                      httplib::Response& res) {
    if (TooLarge(req, max, res)) return;
    Send(PatchJob(call_of(req), req.matches[2].str(), req.body,
                  QueryValue(req, "updateMask")),
         res);
  });
  http.Post(kCancelPath,
            [call_of](const httplib::Request& req, httplib::Response& res) {
              Send(CancelJob(call_of(req), req.matches[2].str()), res);
            });
}

// Cloud Logging's entries.list, for `gcloud ai-platform jobs stream-logs`.
void AddLogRoutes(httplib::Server& http, const CallOf& call_of, size_t max) {
  http.Post(kListLogEntriesPath, [call_of, max](const httplib::Request& req,
                                                httplib::Response& res) {
    if (!TooLarge(req, max, res))
      Send(ListLogEntries(call_of(req), req.body), res);
  });
}

VertexPlace PlaceOf(const httplib::Request& req) {
  return {.project = req.matches[1].str(), .location = req.matches[2].str()};
}

// The paths of one of Vertex's job collections.
struct CollectionPaths {
  const char* jobs;
  const char* job;
  const char* cancel;
};

// A collection's create, list, get, delete and cancel: the same methods
// for hyperparameterTuningJobs and customJobs.
void AddCollectionRoutes(httplib::Server& http, const CallOf& call_of,
                         size_t max, VertexJobIds* ids,
                         const CollectionPaths& paths, api::VertexResource c) {
  using Req = httplib::Request;
  using Res = httplib::Response;
  http.Post(paths.jobs, [call_of, ids, max, c](const Req& req, Res& res) {
    if (TooLarge(req, max, res)) return;
    Send(CreateVertexJob(call_of(req), PlaceOf(req), req.body, *ids, c), res);
  });
  http.Get(paths.jobs, [call_of, c](const Req& req, Res& res) {
    Send(ListVertexJobs(call_of(req), PlaceOf(req), QueryValue(req, "filter"),
                        QueryValue(req, "pageSize"),
                        QueryValue(req, "pageToken"), c),
         res);
  });
  http.Get(paths.job, [call_of, c](const Req& req, Res& res) {
    Send(GetVertexJob(call_of(req), PlaceOf(req), req.matches[3].str(), c),
         res);
  });
  http.Delete(paths.job, [call_of, c](const Req& req, Res& res) {
    Send(DeleteVertexJob(call_of(req), PlaceOf(req), req.matches[3].str(), c),
         res);
  });
  http.Post(paths.cancel, [call_of, c](const Req& req, Res& res) {
    Send(CancelVertexJob(call_of(req), PlaceOf(req), req.matches[3].str(), c),
         res);
  });
}

void AddVertexRoutes(httplib::Server& http, const CallOf& call_of, size_t max,
                     VertexJobIds* ids) {
  AddCollectionRoutes(http, call_of, max, ids,
                      {kVertexJobsPath, kVertexJobPath, kVertexCancelPath},
                      api::VertexResource::kHyperparameterTuningJob);
  AddCollectionRoutes(http, call_of, max, ids,
                      {kCustomJobsPath, kCustomJobPath, kCustomJobCancelPath},
                      api::VertexResource::kCustomJob);
  http.Get(kVertexOperationPath, [call_of](const httplib::Request& req,
                                           httplib::Response& res) {
    Send(GetVertexOperation(call_of(req), PlaceOf(req), req.matches[3].str()),
         res);
  });
}

void AddStorageRoutes(httplib::Server& http, const StorageOptions& storage) {
  http.Post(kUploadPath, [&storage](const httplib::Request& req,
                                    httplib::Response& res) {
    Send(UploadObject(storage,
                      {.bucket = req.matches[1].str(),
                       .upload_type = QueryValue(req, "uploadType"),
                       .name = QueryValue(req, "name"),
                       .content_type = req.get_header_value("Content-Type"),
                       .authorization = req.get_header_value("Authorization"),
                       .body = req.body}),
         res);
  });
}

// A request naming another host (a page of another site that resolved its
// name to this address) gets 403 before any route.
void AddHostCheck(httplib::Server& http,
                  std::function<bool(std::string_view)> host_allowed) {
  if (host_allowed == nullptr) return;
  http.set_pre_routing_handler(
      [host_allowed](const httplib::Request& req, httplib::Response& res) {
        if (host_allowed(req.get_header_value("Host"))) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        Send(ErrorReply(absl::PermissionDeniedError(
                 "this Host header does not name this server")),
             res);
        return httplib::Server::HandlerResponse::Handled;
      });
}

// What httplib answers itself (no route, a body over the limit, a request
// it cannot read) in Google's error shape.
void AddErrorReplies(httplib::Server& http, size_t max_body_bytes) {
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body_bytes](const httplib::Request& req, httplib::Response& res) {
        // A route's own error already has its body.
        if (res.has_header("Content-Type")) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        if (res.status == 413) {
          Send(ErrorReply(absl::ResourceExhaustedError(
                   absl::StrCat("the request body is larger than ",
                                max_body_bytes, " bytes"))),
               res);
          res.status = 413;
        } else if (res.status == 404) {
          Send(
              ErrorReply(absl::NotFoundError(absl::StrCat(
                  "no method ", req.method, " ", req.path,
                  " (hptune serves AI Platform's projects.jobs and Vertex AI's "
                  "projects.locations.hyperparameterTuningJobs and "
                  "customJobs)"))),
              res);
        } else {
          const int status = res.status;
          Send(ErrorReply(
                   absl::InvalidArgumentError("the request could not be read")),
               res);
          res.status = status;
        }
        return httplib::Server::HandlerResponse::Handled;
      }));
}

}  // namespace

class RestGateway::Impl {
 public:
  explicit Impl(RestOptions options)
      : options_(std::move(options)), vertex_ids_(options_.now) {}
  ~Impl() { Stop(); }

  absl::Status Start() {
    if (options_.make_http != nullptr) {
      HPTUNE_ASSIGN_OR_RETURN(http_, options_.make_http());
    } else {
      http_ = std::make_unique<httplib::Server>();
    }
    httplib::Server& http = *http_;
    // A reply goes out as two writes (headers, body); with Nagle's
    // algorithm the second waits for the client's delayed ACK, 40 ms.
    http.set_tcp_nodelay(true);
    const size_t largest =
        std::max(options_.max_body_bytes, UploadBodyLimit(options_));
    http.set_payload_max_length(largest);
    AddHostCheck(http, options_.host_allowed);
    const CallOf call_of = CallsOn(options_.channel, options_.now);
    AddJobRoutes(http, call_of, options_.max_body_bytes);
    AddVertexRoutes(http, call_of, options_.max_body_bytes, &vertex_ids_);
    AddStorageRoutes(http, options_.storage);
    AddLogRoutes(http, call_of, options_.max_body_bytes);
    AddErrorReplies(http, largest);
    port_ =
        options_.port == 0
            ? http.bind_to_any_port(options_.host)
            : (http.bind_to_port(options_.host, options_.port) ? options_.port
                                                               : -1);
    if (port_ <= 0) {
      return absl::UnavailableError(absl::StrCat(
          "--rest: cannot listen on ", options_.host, ":", options_.port));
    }
    thread_ = std::thread([this] { http_->listen_after_bind(); });
    return absl::OkStatus();
  }

  int port() const { return port_; }

  void Stop() {
    if (http_ != nullptr) http_->stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const RestOptions options_;
  VertexJobIds vertex_ids_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  std::thread thread_;
};

absl::StatusOr<std::unique_ptr<RestGateway>> RestGateway::Start(
    RestOptions options) {
  HPTUNE_CHECK(options.now != nullptr, "RestOptions::now is required");
  auto impl = std::make_unique<Impl>(std::move(options));
  if (absl::Status s = impl->Start(); !s.ok()) return s;
  return std::unique_ptr<RestGateway>(new RestGateway(std::move(impl)));
}

RestGateway::RestGateway(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestGateway::~RestGateway() = default;
int RestGateway::port() const { return impl_->port(); }
void RestGateway::Stop() { impl_->Stop(); }

}  // namespace hptune::rest
