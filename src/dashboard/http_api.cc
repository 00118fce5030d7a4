#include "src/dashboard/http_api.h"

#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/dashboard/http_encoding.h"

namespace hptune::dashboard {
namespace {

void Encode(const httplib::Request& req, httplib::Response& res) {
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

httplib::Server::Handler Encoded(httplib::Server::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req,
                                        httplib::Response& res) {
    handler(req, res);
    Encode(req, res);
  };
}

}  // namespace

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

void SendJson(httplib::Response& res, const Json& body, int status) {
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

void ApiRoutes::Get(const std::string& pattern,
                    httplib::Server::Handler handler) {
  http_.Get(pattern, Encoded(std::move(handler)));
}

void ApiRoutes::Post(const std::string& pattern,
                     httplib::Server::Handler handler) {
  http_.Post(pattern, Encoded(std::move(handler)));
}

}  // namespace hptune::dashboard
