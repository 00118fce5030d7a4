#include "src/dashboard/dashboard_server.h"

#include <httplib.h>
#include <openssl/pem.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/mutex.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "src/dashboard/assets.h"
#include "src/dashboard/change_feed.h"
#include "src/dashboard/elastic_pool.h"
#include "src/dashboard/http_address.h"
#include "src/dashboard/http_encoding.h"
#include "src/dashboard/http_guard.h"
#include "src/dashboard/pareto_json.h"
#include "src/dashboard/study_cache.h"
#include "src/dashboard/study_json.h"
#include "src/dashboard/trial_events.h"
#include "src/dashboard/trial_query.h"

namespace hptune::dashboard {
namespace {

constexpr size_t kMaxBody = 64 << 10;
constexpr int64_t kMaxLogChunk = 64 << 10;
// A connection holds a thread while it is read and an event stream for its
// life: the pool grows with them (ElasticPool), up to a bound that idle
// sockets of one client do not reach before its other requests are served.
constexpr size_t kCoreThreads = 8;
constexpr size_t kMaxThreads = 2048;
constexpr std::chrono::seconds kThreadLinger{10};
constexpr int kEventPagesPerPoll = 20;

constexpr char kSecurityPolicy[] =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
    "data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

int HttpStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 413;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

void SendJson(httplib::Response& res, const Json& body, int status = 200) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace),
                  "application/json");
}

void SendError(httplib::Response& res, int status, std::string_view message) {
  SendJson(res, {{"error", std::string(message)}}, status);
}

void SendStatus(httplib::Response& res, const absl::Status& status) {
  SendError(res, HttpStatus(status), std::string(status.message()));
}

QueryParams Params(const httplib::Request& req) {
  QueryParams params;
  for (const auto& [key, value] : req.params) params[key] = value;
  return params;
}

absl::StatusOr<size_t> SizeParam(const QueryParams& params,
                                 const std::string& name, size_t fallback,
                                 size_t max) {
  auto it = params.find(name);
  if (it == params.end()) return fallback;
  size_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value) || value < 1 || value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " \"", it->second.substr(0, 100),
                     "\": expected an integer from 1 to ", max));
  }
  return value;
}

// Only a path of this site (not "//host") may follow a login.
std::string SafeNext(const std::string& next) {
  if (next.starts_with("#")) return "/" + next;
  if (next.starts_with("/") && !next.starts_with("//") &&
      next.find('\\') == std::string::npos) {
    return next;
  }
  return "/";
}

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeHttpServer(
    const DashboardOptions& options) {
  if (options.tls_cert.empty()) return std::make_unique<httplib::Server>();
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(options.tls_cert.data(),
                      static_cast<int>(options.tls_cert.size())),
      BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(options.tls_key.data(),
                      static_cast<int>(options.tls_key.size())),
      BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), X509_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr),
      EVP_PKEY_free);
  if (cert == nullptr || key == nullptr) {
    return absl::InvalidArgumentError(
        "the dashboard's TLS certificate or key is not PEM");
  }
  auto server = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
  if (!server->is_valid()) {
    return absl::InvalidArgumentError(
        "the dashboard's TLS certificate and key do not go together");
  }
  return server;
}

}  // namespace

class DashboardServer::Impl {
 public:
  Impl(store::Store& store, DashboardOptions options, HttpGuard guard,
       HttpAddress address, std::unique_ptr<StudyCache> cache,
       std::unique_ptr<httplib::Server> http)
      : store_(store),
        options_(std::move(options)),
        guard_(std::move(guard)),
        address_(std::move(address)),
        cache_(std::move(cache)),
        feed_(options_.max_streams),
        http_(std::move(http)) {}

  ~Impl() { Stop(); }

  absl::Status Start() {
    http_->new_task_queue = [] {
      return new ElasticPool(kCoreThreads, kMaxThreads, kThreadLinger);
    };
    http_->set_payload_max_length(kMaxBody);
    http_->set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          return Guard(req, res);
        });
    // Errors httplib answers itself (a request it cannot read, a body over
    // the limit) carry no body: give them the API's JSON shape.
    http_->set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request&, httplib::Response& res) {
          // A handler's own answer has a type (its body may already be in a
          // content provider: Encode).
          if (res.has_header("Content-Type")) {
            return httplib::Server::HandlerResponse::Unhandled;
          }
          SendError(res, res.status,
                    res.status == 413 ? "the request body is too large"
                                      : "the request could not be read");
          return httplib::Server::HandlerResponse::Handled;
        }));
    http_->set_post_routing_handler(
        [](const httplib::Request&, httplib::Response& res) {
          res.set_header("Content-Security-Policy", kSecurityPolicy);
          res.set_header("X-Frame-Options", "DENY");
          res.set_header("X-Content-Type-Options", "nosniff");
          res.set_header("Referrer-Policy", "no-referrer");
          if (!res.has_header("Cache-Control")) {
            res.set_header("Cache-Control", "no-store");
          }
        });
    Routes();
    // httplib listens with a backlog of 5: a burst of connections would
    // have every further one's SYN dropped and retried a second later. Its
    // socket is taken here and listened on again with the system's bound.
    // SO_REUSEADDR, not httplib's SO_REUSEPORT, which would let another
    // process bind the same port.
    http_->set_socket_options([this](int fd) {
      const int yes = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
      listen_fd_ = fd;
    });
    port_ =
        address_.port == 0
            ? http_->bind_to_any_port(address_.host)
            : (http_->bind_to_port(address_.host, address_.port) ? address_.port
                                                                 : -1);
    if (port_ <= 0) {
      return absl::UnavailableError(absl::StrCat(
          "--", options_.address_flag, " \"", options_.address,
          "\": cannot listen there (in use, or not an address of this "
          "machine); give another address, or --",
          options_.address_flag, " off"));
    }
    if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
    listener_ = std::thread([this] { http_->listen_after_bind(); });
    poller_ = std::thread([this] { Poll(); });
    return absl::OkStatus();
  }

  void Stop() {
    {
      MutexLock lock(&stop_mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    stop_cv_.SignalAll();
    feed_.Close();
    http_->stop();
    if (listener_.joinable()) listener_.join();
    if (poller_.joinable()) poller_.join();
  }

  int port() const { return port_; }

  std::string url() const {
    std::string host = address_.host;
    if (host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return absl::StrCat(options_.tls_cert.empty() ? "http" : "https", "://",
                        host, ":", port_, "/");
  }

 private:
  bool read_only() const { return !options_.cancel_job; }

  // Authentication, CSRF and Host checks, before any route.
  httplib::Server::HandlerResponse Guard(const httplib::Request& req,
                                         httplib::Response& res) {
    using Handled = httplib::Server::HandlerResponse;
    if (!HostAllowed(req.get_header_value("Host"), address_.host)) {
      SendError(res, 403, "this Host header does not name this server");
      return Handled::Handled;
    }
    if (req.path.starts_with("/static/") || req.path == "/login") {
      return Handled::Unhandled;
    }
    const Credential credential = guard_.Authenticate(
        req.get_header_value("Authorization"), req.get_header_value("Cookie"));
    if (credential == Credential::kNone) {
      if (req.path.starts_with("/api/")) {
        SendError(res, 401,
                  "log in at /login, or send \"Authorization: Bearer "
                  "<token>\" with this server's token");
      } else {
        res.set_redirect("/login", 303);
      }
      return Handled::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD" &&
        !guard_.AllowsChange(credential, req.get_header_value(kCsrfHeader))) {
      SendError(res, 403,
                absl::StrCat("a change needs the header ", kCsrfHeader,
                             " with the value from /api/session"));
      return Handled::Handled;
    }
    return Handled::Unhandled;
  }

  // Every handler's body leaves through Encode (below).
  template <typename Handler>
  void Get(const std::string& pattern, Handler handler) {
    http_->Get(pattern,
               [handler = std::move(handler)](const httplib::Request& req,
                                              httplib::Response& res) {
                 handler(req, res);
                 Encode(req, res);
               });
  }
  template <typename Handler>
  void Post(const std::string& pattern, Handler handler) {
    http_->Post(pattern,
                [handler = std::move(handler)](const httplib::Request& req,
                                               httplib::Response& res) {
                  handler(req, res);
                  Encode(req, res);
                });
  }

  // The body gzipped when the client takes gzip and it is worth it, then
  // handed to httplib as a sized content provider, which httplib sends as it
  // is (it would otherwise brotli-compress it at its slowest quality:
  // http_encoding.h).
  static void Encode(const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty() || res.has_header("Content-Encoding")) return;
    auto body = std::make_shared<std::string>(std::move(res.body));
    res.body.clear();
    if (body->size() >= kMinCompressedBody &&
        AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
      *body = Gzip(*body);
      res.set_header("Content-Encoding", "gzip");
    }
    res.set_header("Vary", "Accept-Encoding");
    const std::string type = res.get_header_value("Content-Type");
    res.headers.erase("Content-Type");
    res.set_content_provider(
        body->size(), type,
        [body](size_t offset, size_t length, httplib::DataSink& sink) {
          return sink.write(body->data() + offset, length);
        });
  }

  void Routes() {
    Get("/login", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.has_param("token")) {
        LogIn(req.get_param_value("token"), req.get_param_value("next"), res);
        return;
      }
      ServeAsset("login.html", res);
    });
    Post("/login", [this](const httplib::Request& req, httplib::Response& res) {
      LogIn(req.get_param_value("token"), req.get_param_value("next"), res);
    });
    Get("/static/(.+)",
        [](const httplib::Request& req, httplib::Response& res) {
          if (!ServeAsset(req.matches[1].str(), res)) {
            SendError(res, 404, "no such file");
          } else {
            res.set_header("Cache-Control", "private, max-age=300");
          }
        });
    Get("/api/session",
        [this](const httplib::Request&, httplib::Response& res) {
          SendJson(res, {{"csrf", guard_.csrf()},
                         {"read_only", read_only()},
                         {"logs", !options_.state_dir.empty()}});
        });
    Get("/api/studies",
        [this](const httplib::Request&, httplib::Response& res) {
          Answer(res, [&]() -> absl::StatusOr<Json> {
            HPTUNE_ASSIGN_OR_RETURN(Changes changes, Refresh());
            HPTUNE_ASSIGN_OR_RETURN(auto all, cache_->All());
            Json studies = Json::array();
            for (const auto& snapshot : all) {
              studies.push_back(StudySummaryJson(*snapshot));
            }
            return Json{{"studies", std::move(studies)},
                        {"event_id", changes.event_id}};
          });
        });
    StudyRoute(
        "",
        [](const StudySnapshot& s, const QueryParams&) -> absl::StatusOr<Json> {
          return StudyDetailJson(s);
        });
    StudyRoute("/trials",
               [](const StudySnapshot& s,
                  const QueryParams& params) -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(TrialQuery query,
                                         ParseTrialQuery(params, s.study.spec));
                 std::vector<const Trial*> selected =
                     SelectTrials(s.trials, s.study.spec, query);
                 Json rows = Json::array();
                 for (size_t i = query.offset;
                      i < selected.size() &&
                      i < static_cast<size_t>(query.offset + query.limit);
                      ++i) {
                   rows.push_back(TrialRowJson(*selected[i], s.study.spec));
                 }
                 return Json{{"total", selected.size()},
                             {"offset", query.offset},
                             {"trials", std::move(rows)}};
               });
    StudyRoute("/history",
               [](const StudySnapshot& s,
                  const QueryParams& params) -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(
                     size_t max, SizeParam(params, "max_points", 5000, 100000));
                 return HistoryJson(s, max);
               });
    StudyRoute("/points",
               [](const StudySnapshot& s,
                  const QueryParams& params) -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(
                     size_t max, SizeParam(params, "max_points", 5000, 100000));
                 return PointsJson(s, max);
               });
    StudyRoute("/pareto",
               [](const StudySnapshot& s,
                  const QueryParams& params) -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(
                     size_t max, SizeParam(params, "max_points", 5000, 100000));
                 return ParetoJson(s, max);
               });
    StudyRoute(
        "/curves",
        [this](const StudySnapshot& s,
               const QueryParams& params) -> absl::StatusOr<Json> {
          HPTUNE_ASSIGN_OR_RETURN(size_t max_trials,
                                  SizeParam(params, "max_trials", 50, 1000));
          HPTUNE_ASSIGN_OR_RETURN(size_t max_points,
                                  SizeParam(params, "max_points", 500, 10000));
          Json curves = Json::array();
          for (const Trial* trial : CurveTrials(s, max_trials)) {
            HPTUNE_ASSIGN_OR_RETURN(
                std::vector<Measurement> measurements,
                store_.ListMeasurements(s.study.name, trial->number, 0));
            curves.push_back(
                CurveJson(*trial, s.study.spec, measurements, max_points));
          }
          return Json{{"metric", s.study.spec.metric_tag},
                      {"total", s.trials.size()},
                      {"curves", std::move(curves)}};
        });
    StudyRoute("/importance",
               [this](const StudySnapshot& s, const QueryParams&)
                   -> absl::StatusOr<Json> { return Importance(s); });
    StudyRoute("/timeline",
               [this](const StudySnapshot& s,
                      const QueryParams& params) -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(
                     size_t max, SizeParam(params, "max_trials", 2000, 20000));
                 Json timeline = TimelineJson(s, max, SystemClock().Now());
                 const std::map<int64_t, int> restarts =
                     events_.Restarts(s.study.name);
                 for (Json& trial : timeline["trials"]) {
                   auto it = restarts.find(trial["trial"].get<int64_t>());
                   trial["restarts"] = it == restarts.end() ? 0 : it->second;
                 }
                 timeline["restarts_complete"] = events_.caught_up();
                 return timeline;
               });
    ExportRoute("csv", "text/csv; charset=utf-8");
    ExportRoute("json", "application/json");
    Get(R"(/api/studies/([^/]+)/trials/(\d+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          Answer(res, [&] { return TrialDetail(req); });
        });
    Get(R"(/api/studies/([^/]+)/trials/(\d+)/log)",
        [this](const httplib::Request& req, httplib::Response& res) {
          Answer(res, [&] { return LogChunk(req); });
        });
    Get("/api/events", [this](const httplib::Request&, httplib::Response& res) {
      EventStream(res);
    });
    Post(R"(/api/jobs/([^/]+)/cancel)", [this](const httplib::Request& req,
                                               httplib::Response& res) {
      if (read_only()) {
        SendError(res, 403,
                  "this dashboard is read-only (hptune "
                  "dashboard); cancel through hptune serve");
        return;
      }
      absl::StatusOr<JobRecord> job = options_.cancel_job(req.matches[1].str());
      if (!job.ok()) return SendStatus(res, job.status());
      (void)Refresh();
      SendJson(res, {{"job", job->job_id},
                     {"state", std::string(ToString(job->state))}});
    });
    Get("/api/.*", [](const httplib::Request& req, httplib::Response& res) {
      SendError(res, 404,
                absl::StrCat("no such API: ", req.path.substr(0, 200)));
    });
    Get(".*", [](const httplib::Request&, httplib::Response& res) {
      ServeAsset("index.html", res);
    });
  }

  static bool ServeAsset(const std::string& name, httplib::Response& res) {
    const Asset* asset = FindAsset(name);
    if (asset == nullptr) return false;
    res.set_content(asset->bytes.data(), asset->bytes.size(),
                    std::string(asset->content_type).c_str());
    return true;
  }

  void LogIn(const std::string& token, const std::string& next,
             httplib::Response& res) {
    if (!guard_.IsToken(token)) {
      res.set_redirect("/login?failed=1", 303);
      return;
    }
    res.set_header("Set-Cookie",
                   guard_.SessionCookie(!options_.tls_cert.empty()));
    res.set_redirect(SafeNext(next), 303);
  }

  template <typename Build>
  static void Answer(httplib::Response& res, Build build) {
    absl::StatusOr<Json> body = build();
    if (!body.ok()) return SendStatus(res, body.status());
    SendJson(res, *body);
  }

  using StudyHandler = std::function<absl::StatusOr<Json>(const StudySnapshot&,
                                                          const QueryParams&)>;

  void StudyRoute(const std::string& suffix, StudyHandler handler) {
    Get("/api/studies/([^/]+)" + suffix,
        [this, handler](const httplib::Request& req, httplib::Response& res) {
          Answer(res, [&]() -> absl::StatusOr<Json> {
            HPTUNE_ASSIGN_OR_RETURN(auto snapshot,
                                    Snapshot(req.matches[1].str()));
            return handler(*snapshot, Params(req));
          });
        });
  }

  void ExportRoute(const std::string& format, const std::string& type) {
    Get("/api/studies/([^/]+)/trials\\." + format,
        [this, format, type](const httplib::Request& req,
                             httplib::Response& res) {
          const std::string study = req.matches[1].str();
          absl::StatusOr<std::shared_ptr<const StudySnapshot>> snapshot =
              Snapshot(study);
          if (!snapshot.ok()) return SendStatus(res, snapshot.status());
          const StudySpec& spec = (*snapshot)->study.spec;
          QueryParams params = Params(req);
          params.erase("offset");
          params.erase("limit");
          absl::StatusOr<TrialQuery> query = ParseTrialQuery(params, spec);
          if (!query.ok()) return SendStatus(res, query.status());
          std::vector<const Trial*> selected =
              SelectTrials((*snapshot)->trials, spec, *query);
          std::string body;
          if (format == "csv") {
            body = TrialsCsv(selected, spec);
          } else {
            Json rows = Json::array();
            for (const Trial* trial : selected) {
              rows.push_back(TrialRowJson(*trial, spec));
            }
            body = Json{{"study", study}, {"trials", std::move(rows)}}.dump(
                -1, ' ', false, Json::error_handler_t::replace);
          }
          res.set_header(
              "Content-Disposition",
              absl::StrCat("attachment; filename=\"trials.", format, "\""));
          res.set_content(body, type.c_str());
        });
  }

  absl::StatusOr<std::shared_ptr<const StudySnapshot>> Snapshot(
      const std::string& study) {
    HPTUNE_RETURN_IF_ERROR(Refresh().status());
    return cache_->Get(study);
  }

  absl::StatusOr<Json> Importance(const StudySnapshot& s) {
    std::vector<Trial> trials;
    trials.reserve(s.trials.size());
    for (const auto& trial : s.trials) {
      if (trial == nullptr || !IsTerminal(trial->state)) continue;
      // What the importance reads, without the learning curve's copy.
      Trial& copy = trials.emplace_back();
      copy.number = trial->number;
      copy.state = trial->state;
      copy.parameters = trial->parameters;
      copy.final_measurement = trial->final_measurement;
    }
    HPTUNE_ASSIGN_OR_RETURN(
        std::vector<algorithms::ParameterImportance> importances,
        algorithms::PedAnovaImportance(s.study.spec, trials));
    Json list = Json::array();
    for (const auto& importance : importances) {
      Json entry = {{"param", importance.parameter},
                    {"importance", importance.importance}};
      // A conditional parameter is judged over the trials where it is active.
      const ParameterSpec* spec =
          s.study.spec.search_space.Find(importance.parameter);
      if (spec != nullptr && spec->condition) {
        entry["active_trials"] = importance.active_trials;
      }
      list.push_back(std::move(entry));
    }
    return Json{{"method", "PED-ANOVA"},
                {"trials", trials.size()},
                {"importances", std::move(list)}};
  }

  absl::StatusOr<Json> TrialDetail(const httplib::Request& req) {
    const std::string study = req.matches[1].str();
    int64_t number = 0;
    if (!absl::SimpleAtoi(req.matches[2].str(), &number)) {
      return absl::InvalidArgumentError("trial: not a number");
    }
    HPTUNE_ASSIGN_OR_RETURN(auto snapshot, Snapshot(study));
    HPTUNE_ASSIGN_OR_RETURN(Trial trial, store_.GetTrial(study, number));
    Json detail = TrialDetailJson(trial, snapshot->study.spec, 10000);
    Json events = Json::array();
    for (const TrialEvent& event : events_.Of(study, number)) {
      events.push_back({{"time", FormatRfc3339(event.time)},
                        {"kind", event.kind},
                        {"detail", event.detail}});
    }
    detail["events"] = std::move(events);
    detail["events_complete"] = events_.caught_up();
    Json logs = Json::array();
    if (snapshot->job && !options_.state_dir.empty()) {
      std::error_code error;
      const std::filesystem::path dir =
          RunsLayout(options_.state_dir)
              .TrialDir(snapshot->job->job_id, number);
      for (const auto& entry :
           std::filesystem::directory_iterator(dir, error)) {
        const std::string replica =
            ReplicaOfLog(entry.path().filename().string());
        // A link is not followed, even for its target's size.
        if (replica.empty() || !entry.is_regular_file(error) ||
            entry.is_symlink(error)) {
          continue;
        }
        logs.push_back(
            {{"replica", replica}, {"size", entry.file_size(error)}});
      }
    }
    detail["logs"] = std::move(logs);
    return detail;
  }

  absl::StatusOr<Json> LogChunk(const httplib::Request& req) {
    const std::string study = req.matches[1].str();
    int64_t number = 0;
    (void)absl::SimpleAtoi(req.matches[2].str(), &number);
    const std::string replica =
        req.has_param("replica") ? req.get_param_value("replica") : "master-0";
    if (!IsReplicaName(replica)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "replica \"", replica.substr(0, 64),
          "\": expected master-0, chief-0, worker-N, ps-N or evaluator-N"));
    }
    int64_t offset = 0;
    if (req.has_param("offset") &&
        (!absl::SimpleAtoi(req.get_param_value("offset"), &offset) ||
         offset < 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("offset \"", req.get_param_value("offset").substr(0, 64),
                       "\": expected an integer >= 0"));
    }
    HPTUNE_ASSIGN_OR_RETURN(auto snapshot, Snapshot(study));
    if (!snapshot->job || options_.state_dir.empty()) {
      return absl::NotFoundError(
          absl::StrCat("study \"", study, "\" has no replica logs here"));
    }
    const std::filesystem::path path =
        RunsLayout(options_.state_dir)
            .ReplicaLog(snapshot->job->job_id, number, replica);
    absl::StatusOr<FileChunk> read = ReadFileChunk(path, offset, kMaxLogChunk);
    if (absl::IsNotFound(read.status())) {
      return absl::NotFoundError(
          absl::StrCat("trial ", number, ": no log \"", replica, ".log\""));
    }
    HPTUNE_RETURN_IF_ERROR(read.status());
    const int64_t size = read->size;
    offset = std::min(offset, size);
    std::string text = std::move(read->data);
    return Json{{"replica", replica},
                {"offset", offset},
                {"next_offset", offset + static_cast<int64_t>(text.size())},
                {"size", size},
                {"text", std::move(text)}};
  }

  void EventStream(httplib::Response& res) {
    if (!feed_.OpenStream()) {
      SendError(res, 503, "too many event streams are open; try again later");
      return;
    }
    auto seen = std::make_shared<uint64_t>(feed_.Head());
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, seen](size_t offset, httplib::DataSink& sink) {
          if (offset == 0) {
            const std::string hello = "retry: 2000\n: connected\n\n";
            return sink.write(hello.data(), hello.size());
          }
          std::vector<std::string> messages;
          if (!feed_.Wait(seen.get(), std::chrono::seconds(15), &messages)) {
            sink.done();
            return true;
          }
          std::string out = messages.empty() ? ": ping\n\n" : "";
          for (const std::string& message : messages) {
            absl::StrAppend(&out, "event: change\ndata: ", message, "\n\n");
          }
          return sink.write(out.data(), out.size());
        },
        [this](bool) { feed_.CloseStream(); });
  }

  // Reads new events into the cache and tells the streams what changed.
  absl::StatusOr<Changes> Refresh() {
    HPTUNE_ASSIGN_OR_RETURN(Changes changes, cache_->Refresh());
    if (!changes.empty()) {
      Json trials = Json::array();
      for (const auto& [study, trial] : changes.trials) {
        if (trials.size() >= 500) break;
        trials.push_back({{"study", study}, {"trial", trial}});
      }
      feed_.Publish(Json{{"event_id", changes.event_id},
                         {"studies", changes.studies},
                         {"trials", std::move(trials)}}
                        .dump());
    }
    return changes;
  }

  void Poll() {
    while (true) {
      {
        MutexLock lock(&stop_mu_);
        if (stopping_) return;
      }
      // A database being written by another process, or briefly busy: the
      // next poll reads on.
      (void)Refresh();
      (void)events_.Advance(store_, kEventPagesPerPoll);
      const auto next =
          std::chrono::steady_clock::now() + options_.poll_interval;
      MutexLock lock(&stop_mu_);
      while (!stopping_) {
        if (!stop_cv_.WaitUntil(&stop_mu_, next)) break;
      }
    }
  }

  store::Store& store_;
  DashboardOptions options_;
  HttpGuard guard_;
  HttpAddress address_;
  std::unique_ptr<StudyCache> cache_;
  TrialEvents events_;
  ChangeFeed feed_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  int listen_fd_ = -1;  // httplib's listening socket.
  std::thread listener_;
  std::thread poller_;
  Mutex stop_mu_;
  CondVar stop_cv_;
  bool stopping_ ABSL_GUARDED_BY(stop_mu_) = false;
};

absl::StatusOr<std::unique_ptr<DashboardServer>> DashboardServer::Start(
    store::Store& store, DashboardOptions options) {
  HPTUNE_ASSIGN_OR_RETURN(
      HttpAddress address,
      ParseHttpAddress(options.address_flag, options.address,
                       !options.tls_cert.empty()));
  HPTUNE_ASSIGN_OR_RETURN(HttpGuard guard, HttpGuard::Create(options.token));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<StudyCache> cache,
                          StudyCache::Create(store));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<httplib::Server> http,
                          MakeHttpServer(options));
  auto impl = std::make_unique<Impl>(store, std::move(options),
                                     std::move(guard), std::move(address),
                                     std::move(cache), std::move(http));
  HPTUNE_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<DashboardServer>(new DashboardServer(std::move(impl)));
}

DashboardServer::DashboardServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
DashboardServer::~DashboardServer() = default;
int DashboardServer::port() const { return impl_->port(); }
std::string DashboardServer::url() const { return impl_->url(); }
void DashboardServer::Stop() { impl_->Stop(); }

}  // namespace hptune::dashboard
