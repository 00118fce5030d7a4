// Cloud Storage's upload method on the REST gateway (storage_routes.h).
#include "src/rest/storage_routes.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/bucket_paths.h"
#include "src/rest/object_hashes.h"

namespace hptune::rest {
namespace {

// The boundary parameter of a Content-Type, unquoted; "" when absent.
std::string_view BoundaryOf(std::string_view content_type) {
  const size_t at = content_type.find("boundary=");
  if (at == std::string_view::npos) return "";
  std::string_view value = content_type.substr(at + 9);
  // Quoted with " (RFC 2046) or, as gcloud's apitools writes it, with '.
  if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
    const char quote = value.front();
    value.remove_prefix(1);
    return value.substr(0, value.find(quote));
  }
  return value.substr(0, value.find_first_of("; \t"));
}

// A part's content: after its headers' blank line (CRLF or LF, as
// Python's email generator writes), before the line break of the next
// delimiter.
absl::StatusOr<std::string_view> ContentOf(std::string_view part) {
  size_t start = part.find("\r\n\r\n");
  size_t skip = 4;
  const size_t lf = part.find("\n\n");
  if (lf != std::string_view::npos && lf < start) {
    start = lf;
    skip = 2;
  }
  if (start == std::string_view::npos) {
    return absl::InvalidArgumentError("a multipart part has no headers' end");
  }
  std::string_view content = part.substr(start + skip);
  if (content.ends_with("\r\n")) {
    content.remove_suffix(2);
  } else if (content.ends_with('\n')) {
    content.remove_suffix(1);
  }
  return content;
}

RestReply Refused(absl::Status status, int http_status = 0) {
  RestReply reply = ErrorReply(status);
  if (http_status != 0) reply.http_status = http_status;
  return reply;
}

// The object's name: the query's, else the metadata's "name".
absl::StatusOr<std::string> NameOf(const UploadRequest& request,
                                   std::string_view metadata) {
  if (!request.name.empty()) return request.name;
  nlohmann::json json =
      nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("name") && json["name"].is_string()) {
    return json["name"].get<std::string>();
  }
  return absl::InvalidArgumentError(
      "name: the object's name is missing (give ?name= or the metadata's "
      "\"name\")");
}

nlohmann::json ObjectJson(const std::string& bucket, const std::string& name,
                          std::string_view data, int64_t generation) {
  return {{"kind", "storage#object"},
          {"id", absl::StrCat(bucket, "/", name, "/", generation)},
          {"bucket", bucket},
          {"name", name},
          {"size", std::to_string(data.size())},
          {"md5Hash", Md5Base64(data)},
          {"crc32c", Crc32cBase64(data)},
          {"generation", std::to_string(generation)},
          {"metageneration", "1"}};
}

// The object's bytes and metadata of a multipart or media upload.
absl::StatusOr<MultipartRelated> ObjectOf(const UploadRequest& request) {
  if (request.upload_type == "media") {
    return MultipartRelated{.metadata = "", .data = request.body};
  }
  if (request.upload_type == "multipart") {
    return SplitMultipartRelated(request.content_type, request.body);
  }
  return absl::UnimplementedError(absl::StrCat(
      "uploadType: hptune takes multipart and media uploads, got \"",
      request.upload_type.substr(0, 100), "\""));
}

}  // namespace

absl::StatusOr<MultipartRelated> SplitMultipartRelated(
    std::string_view content_type, std::string_view body) {
  const std::string_view boundary = BoundaryOf(content_type);
  if (!absl::StartsWithIgnoreCase(std::string(content_type),
                                  "multipart/related") ||
      boundary.empty()) {
    return absl::InvalidArgumentError(
        "a multipart upload needs Content-Type multipart/related with a "
        "boundary");
  }
  const std::string delimiter = "--" + std::string(boundary);
  std::vector<std::string_view> parts;
  size_t at = body.find(delimiter);
  while (at != std::string_view::npos && parts.size() < 3) {
    const size_t start = at + delimiter.size();
    if (body.substr(start).starts_with("--")) break;  // The closing one.
    const size_t next = body.find(delimiter, start);
    if (next == std::string_view::npos) break;
    parts.push_back(body.substr(start, next - start));
    at = next;
  }
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a multipart upload has 2 parts (metadata, then the object), got ",
        parts.size()));
  }
  MultipartRelated split;
  auto metadata = ContentOf(parts[0]);
  if (!metadata.ok()) return metadata.status();
  auto data = ContentOf(parts[1]);
  if (!data.ok()) return data.status();
  split.metadata = *metadata;
  split.data = *data;
  return split;
}

RestReply UploadObject(const StorageOptions& options,
                       const UploadRequest& request) {
  if (absl::Status allowed = options.authorize(request.authorization);
      !allowed.ok()) {
    return Refused(allowed);
  }
  if (options.gcs_root.empty()) {
    return Refused(absl::FailedPreconditionError(
        "storage upload: this server maps no bucket to a directory: start "
        "it with --gcs-root DIR (gs://B/P is then DIR/B/P)"));
  }
  absl::StatusOr<MultipartRelated> object = ObjectOf(request);
  if (!object.ok()) return Refused(object.status());
  if (object->data.size() > options.max_object_bytes) {
    return Refused(absl::ResourceExhaustedError(absl::StrCat(
                       "storage upload: the object is larger than ",
                       options.max_object_bytes >> 20, " MiB, got ",
                       object->data.size(), " bytes")),
                   413);
  }
  absl::StatusOr<std::string> name = NameOf(request, object->metadata);
  if (!name.ok()) return Refused(name.status());
  if (name->empty() || name->ends_with('/')) {
    return Refused(absl::InvalidArgumentError(
        absl::StrCat("name: an object's name must be a file's, got \"",
                     name->substr(0, 200), "\"")));
  }
  absl::StatusOr<std::string> path = ResolveGcsUri(
      options.gcs_root,
      absl::StrCat(std::string(kGcsScheme), request.bucket, "/", *name),
      "the object");
  if (!path.ok()) return Refused(path.status());
  absl::StatusOr<int64_t> generation = options.write(*path, object->data);
  if (!generation.ok()) return Refused(generation.status());
  return {
      .http_status = 200,
      .json =
          ObjectJson(request.bucket, *name, object->data, *generation).dump()};
}

}  // namespace hptune::rest
