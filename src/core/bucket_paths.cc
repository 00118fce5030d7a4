// gs:// URIs on a local root (hptune/core/bucket_paths.h).
#include "hptune/core/bucket_paths.h"

#include <cstddef>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/field_text.h"

namespace hptune {
namespace {

constexpr size_t kMaxObjectBytes = 1024;

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

struct GcsParts {
  std::string_view bucket;
  std::string_view object;
};

GcsParts SplitGcsUri(std::string_view uri) {
  std::string_view rest = uri.substr(kGcsScheme.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {rest, ""};
  return {rest.substr(0, slash), rest.substr(slash + 1)};
}

// Where ValidateJob places a trainer's or a pool's list of packages.
std::string PackagesField(std::string_view config) {
  return config.empty()
             ? "trainingInput.packageUris"
             : "trainingInput." + std::string(config) + ".packageUris";
}

absl::Status ResolveList(std::string_view root, const std::string& field,
                         std::vector<std::string>& uris) {
  for (size_t i = 0; i < uris.size(); ++i) {
    auto resolved =
        ResolveGcsUri(root, uris[i], field_text::IndexPath(field, i));
    if (!resolved.ok()) return resolved.status();
    uris[i] = *std::move(resolved);
  }
  return absl::OkStatus();
}

absl::Status ResolveOne(std::string_view root, std::string_view field,
                        std::string& value) {
  auto resolved = ResolveGcsUri(root, value, field);
  if (!resolved.ok()) return resolved.status();
  value = *std::move(resolved);
  return absl::OkStatus();
}

}  // namespace

bool IsGcsUri(std::string_view text) { return text.starts_with(kGcsScheme); }

std::string BucketNameProblem(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) {
    return "a bucket name must be 3 to 63 characters";
  }
  for (char c : bucket) {
    if (!IsLowerAlnum(c) && c != '.' && c != '_' && c != '-') {
      return "a bucket name takes only lowercase letters, digits, '.', '_' "
             "and '-'";
    }
  }
  if (!IsLowerAlnum(bucket.front()) || !IsLowerAlnum(bucket.back())) {
    return "a bucket name must start and end with a letter or a digit";
  }
  return "";
}

std::string ObjectNameProblem(std::string_view object) {
  if (object.size() > kMaxObjectBytes) {
    return "an object name must be at most 1024 bytes";
  }
  if (object.find_first_of(std::string_view("\0\r\n", 3)) !=
      std::string_view::npos) {
    return "an object name must not hold NUL, CR or LF";
  }
  if (object.empty()) return "";
  if (object.front() == '/') return "an object name must not start with '/'";
  std::vector<std::string> segments = absl::StrSplit(std::string(object), '/');
  if (segments.back().empty()) segments.pop_back();  // A directory's '/'.
  for (const std::string& segment : segments) {
    if (segment.empty()) return "an object name must not hold \"//\"";
    if (segment == "." || segment == "..") {
      return "an object name must not hold a \".\" or \"..\" segment (it "
             "would leave its bucket)";
    }
  }
  return "";
}

std::vector<FieldError> ValidateGcsUri(std::string_view uri,
                                       std::string_view field) {
  if (!IsGcsUri(uri)) return {};
  const GcsParts parts = SplitGcsUri(uri);
  std::string problem = BucketNameProblem(parts.bucket);
  if (problem.empty()) problem = ObjectNameProblem(parts.object);
  if (problem.empty()) return {};
  return {{std::string(field),
           absl::StrCat(problem, ", got ", field_text::Quote(uri))}};
}

absl::StatusOr<std::string> ResolveGcsUri(std::string_view root,
                                          std::string_view uri,
                                          std::string_view field) {
  if (!IsGcsUri(uri)) return std::string(uri);
  std::vector<FieldError> errors = ValidateGcsUri(uri, field);
  if (!errors.empty()) return absl::InvalidArgumentError(errors[0].ToString());
  if (root.empty()) {
    return absl::FailedPreconditionError(
        std::string(field) + ": " + field_text::Quote(uri) +
        " names a Cloud Storage bucket, and no local root for buckets is "
        "given: start the runner with " +
        std::string(kGcsRootFlag) + " DIR (gs://B/P is then DIR/B/P)");
  }
  const GcsParts parts = SplitGcsUri(uri);
  std::string path = std::string(root) + (root.ends_with('/') ? "" : "/") +
                     std::string(parts.bucket);
  if (!parts.object.empty()) path += "/" + std::string(parts.object);
  return path;
}

absl::StatusOr<JobSpec> ResolveJobBuckets(const JobSpec& job,
                                          std::string_view root) {
  JobSpec resolved = job;
  absl::Status s = ResolveOne(root, "trainingInput.jobDir", resolved.job_dir);
  if (s.ok()) {
    s = ResolveOne(root, "trainingInput.baseOutputDirectory",
                   resolved.base_output_directory);
  }
  if (s.ok()) {
    s = ResolveList(root, PackagesField(""), resolved.package_uris);
  }
  const std::pair<TaskPool*, std::string_view> pools[] = {
      {&resolved.master, "masterConfig"},
      {&resolved.worker, "workerConfig"},
      {&resolved.parameter_server, "parameterServerConfig"},
      {&resolved.evaluator, "evaluatorConfig"}};
  for (const auto& [pool, config] : pools) {
    if (!s.ok()) break;
    s = ResolveList(root, PackagesField(config), pool->container.package_uris);
  }
  if (!s.ok()) return s;
  return resolved;
}

}  // namespace hptune
