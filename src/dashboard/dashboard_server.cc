#include "src/dashboard/dashboard_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/check.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/read/cached_study_answers.h"
#include "src/dashboard/action_routes.h"
#include "src/dashboard/assets.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/elastic_pool.h"
#include "src/dashboard/http_address.h"
#include "src/dashboard/http_api.h"
#include "src/dashboard/http_guard.h"
#include "src/dashboard/https_server.h"
#include "src/dashboard/note_routes.h"
#include "src/dashboard/snapshot_answers.h"
#include "src/dashboard/study_cache.h"
#include "src/dashboard/study_routes.h"
#include "src/dashboard/trial_result_routes.h"
#include "src/dashboard/trial_routes.h"
#include "src/dashboard/view_routes.h"

namespace hptune::dashboard {
namespace {

constexpr size_t kMaxBody = 64 << 10;
// A connection holds a thread while it is read and an event stream for its
// life: the pool grows with them (ElasticPool), up to a bound that idle
// sockets of one client do not reach before its other requests are served.
constexpr size_t kCoreThreads = 8;
constexpr size_t kMaxThreads = 2048;
constexpr std::chrono::seconds kThreadLinger{10};

constexpr char kSecurityPolicy[] =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
    "data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

// Only a path of this site (not "//host") may follow a login.
std::string SafeNext(const std::string& next) {
  const std::string path = next.starts_with("#") ? "/" + next : next;
  // Browsers drop tabs and newlines from a URL and read a backslash as a
  // slash, so "/\t/host" or "/\\host" would lead off this origin.
  const bool odd = std::any_of(path.begin(), path.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f || c == '\\';
  });
  if (path.starts_with("/") && !path.starts_with("//") && !odd) return path;
  return "/";
}

// `text` as a URL query value: every byte but [A-Za-z0-9-._~] escaped.
std::string QueryValue(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

bool ServeAsset(const std::string& name, httplib::Response& res) {
  const Asset* asset = FindAsset(name);
  if (asset == nullptr) return false;
  res.set_content(asset->bytes.data(), asset->bytes.size(),
                  std::string(asset->content_type).c_str());
  return true;
}

// Errors httplib answers itself (a request it cannot read, a body over the
// limit) carry no body: give them the API's JSON shape.
httplib::Server::HandlerResponse AnswerHttplibError(const httplib::Request&,
                                                    httplib::Response& res) {
  // A handler's own answer has a type (its body may already be in a content
  // provider: ApiRoutes).
  if (res.has_header("Content-Type")) {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  SendError(res, res.status,
            res.status == 413 ? "the request body is too large"
                              : "the request could not be read");
  return httplib::Server::HandlerResponse::Handled;
}

void AddSecurityHeaders(const httplib::Request&, httplib::Response& res) {
  res.set_header("Content-Security-Policy", kSecurityPolicy);
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  if (!res.has_header("Cache-Control")) {
    res.set_header("Cache-Control", "no-store");
  }
}

}  // namespace

// The composition: the listening socket, the guard before every route, and
// the routing table; the routes themselves are in study_routes.h,
// view_routes.h, trial_routes.h, action_routes.h and change_stream.h.
class DashboardServer::Impl {
 public:
  Impl(store::Store& store, DashboardOptions options, HttpGuard guard,
       HttpAddress address, std::unique_ptr<StudyCache> cache,
       std::unique_ptr<httplib::Server> http)
      : store_(store),
        options_(std::move(options)),
        guard_(std::move(guard)),
        address_(std::move(address)),
        changes_(store, std::move(cache), options_.poll_interval,
                 options_.max_streams, *options_.env),
        http_(std::move(http)) {}

  ~Impl() { Stop(); }

  absl::Status Start() {
    // The answers come from the snapshots the pages read, not from another
    // read of every trial (snapshot_answers.h).
    HPTUNE_ASSIGN_OR_RETURN(
        answers_,
        read::CachedStudyAnswers::Create(
            store_, std::make_unique<SnapshotAnswers>(store_, changes_)));
    http_->new_task_queue = [this] {
      return new ElasticPool(kCoreThreads, kMaxThreads, kThreadLinger,
                             *options_.env);
    };
    http_->set_payload_max_length(kMaxBody);
    // A reply's second write must not wait for the client's delayed ACK.
    http_->set_tcp_nodelay(true);
    http_->set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          return Guard(req, res);
        });
    http_->set_error_handler(
        httplib::Server::HandlerWithResponse(AnswerHttplibError));
    http_->set_post_routing_handler(AddSecurityHeaders);
    Routes();
    HPTUNE_RETURN_IF_ERROR(Bind());
    listener_ = std::thread([this] { http_->listen_after_bind(); });
    changes_.Start();
    return absl::OkStatus();
  }

  void Stop() {
    {
      MutexLock lock(&stop_mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    changes_.Stop();
    http_->stop();
    if (listener_.joinable()) listener_.join();
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
  bool read_only() const {
    const DashboardActions& a = options_.actions;
    return !a.cancel_job && !a.delete_study && !a.set_note &&
           !a.complete_trial && !a.mark_infeasible;
  }

  // Who sent a request, as the dashboard knows them: for a note's audit.
  std::string Identify(const httplib::Request& req) const {
    const Credential credential = guard_.Authenticate(
        req.get_header_value("Authorization"), req.get_header_value("Cookie"));
    std::string who =
        credential == Credential::kBearer ? "bearer token" : "session cookie";
    const std::string agent = req.get_header_value("User-Agent");
    if (!agent.empty()) absl::StrAppend(&who, " (", agent.substr(0, 200), ")");
    return who;
  }

  absl::Status Bind() {
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
    return absl::OkStatus();
  }

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

  // In match order: the first pattern that matches a whole path answers.
  void Routes() {
    ApiRoutes routes(*http_);
    SessionRoutes(routes);
    AddStudyRoutes(routes, changes_, store_, *answers_, options_.env->clock());
    AddTrialRoutes(routes, changes_, store_, *options_.env, options_.state_dir);
    AddViewRoutes(routes, changes_);
    changes_.AddRoutes(routes);
    AddActionRoutes(routes, changes_, options_.actions);
    AddTrialResultRoutes(routes, changes_, store_, options_.actions);
    AddNoteRoutes(
        routes, store_, options_.actions,
        [this](const httplib::Request& req) { return Identify(req); });
    routes.Get(
        "/api/.*", [](const httplib::Request& req, httplib::Response& res) {
          SendError(res, 404,
                    absl::StrCat("no such API: ", req.path.substr(0, 200)));
        });
    routes.Get(".*", [](const httplib::Request&, httplib::Response& res) {
      ServeAsset("index.html", res);
    });
  }

  // Logging in, the pages' static files, and what a page asks first.
  void SessionRoutes(ApiRoutes& routes) {
    routes.Get("/login", [this](const httplib::Request& req,
                                httplib::Response& res) {
      if (req.has_param("token")) {
        LogIn(req.get_param_value("token"), req.get_param_value("next"), res);
        return;
      }
      ServeAsset("login.html", res);
    });
    routes.Post(
        "/login", [this](const httplib::Request& req, httplib::Response& res) {
          LogIn(req.get_param_value("token"), req.get_param_value("next"), res);
        });
    routes.Get("/static/(.+)",
               [](const httplib::Request& req, httplib::Response& res) {
                 if (!ServeAsset(req.matches[1].str(), res)) {
                   SendError(res, 404, "no such file");
                 } else {
                   res.set_header("Cache-Control", "private, max-age=300");
                 }
               });
    routes.Get("/api/session",
               [this](const httplib::Request&, httplib::Response& res) {
                 SendJson(res, {{"csrf", guard_.csrf()},
                                {"read_only", read_only()},
                                {"logs", !options_.state_dir.empty()}});
               });
  }

  void LogIn(const std::string& token, const std::string& next,
             httplib::Response& res) {
    if (!guard_.IsToken(token)) {
      // The form again, keeping where the user was going (a deep link).
      res.set_redirect(
          absl::StrCat("/login?failed=1&next=", QueryValue(SafeNext(next))),
          303);
      return;
    }
    res.set_header("Set-Cookie",
                   guard_.SessionCookie(!options_.tls_cert.empty()));
    res.set_redirect(SafeNext(next), 303);
  }

  store::Store& store_;
  // Each study's answers, kept until it changes (importance takes a few
  // hundred milliseconds at 100,000 trials).
  std::unique_ptr<read::StudyAnswers> answers_;
  DashboardOptions options_;
  HttpGuard guard_;
  HttpAddress address_;
  ChangeStream changes_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  int listen_fd_ = -1;  // httplib's listening socket.
  std::thread listener_;
  Mutex stop_mu_;
  bool stopping_ ABSL_GUARDED_BY(stop_mu_) = false;
};

absl::StatusOr<std::unique_ptr<DashboardServer>> DashboardServer::Start(
    store::Store& store, DashboardOptions options) {
  HPTUNE_CHECK(options.env != nullptr, "DashboardOptions::env is required");
  HPTUNE_ASSIGN_OR_RETURN(
      HttpAddress address,
      ParseHttpAddress(options.address_flag, options.address,
                       !options.tls_cert.empty()));
  HPTUNE_ASSIGN_OR_RETURN(HttpGuard guard, HttpGuard::Create(options.token));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<StudyCache> cache,
                          StudyCache::Create(store));
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<httplib::Server> http,
      MakeHttpServer("the dashboard", options.tls_cert, options.tls_key));
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
