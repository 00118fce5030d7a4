// Cloud Storage's upload method on the REST gateway: POST
// /upload/storage/v1/b/BUCKET/o?uploadType=multipart|media&name=NAME, what
// gcloud's `--package-path ... --staging-bucket gs://B` sends before
// `jobs submit training`. The object goes to GCS_ROOT/BUCKET/NAME (the
// `--gcs-root` that maps every job's gs:// paths, hptune/core/
// bucket_paths.h), written atomically; the reply is the object's JSON with
// its size, md5Hash and crc32c, which gcloud checks against its file.
// Only the server's own token may write (a package there runs as any job's
// trainer); without --gcs-root every upload is refused naming the flag.
// HTTP-free, so a test calls it directly. Used by RestGateway.
// Thread-safe when the functions of StorageOptions are.
#ifndef HPTUNE_SRC_REST_STORAGE_ROUTES_H_
#define HPTUNE_SRC_REST_STORAGE_ROUTES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/rest/job_routes.h"

namespace hptune::rest {

// The upload path; its one group is the bucket.
inline constexpr char kUploadPath[] = R"(/upload/storage/v1/b/([^/]+)/o)";

struct StorageOptions {
  // The local root of buckets (absolute); empty: uploads are refused.
  std::string gcs_root;
  // OK when an `Authorization` value may write (the server's own token).
  std::function<absl::Status(std::string_view authorization)> authorize;
  // Writes `contents` at `path` atomically, making its directories, and
  // returns the object's generation (the time, in microseconds).
  std::function<absl::StatusOr<int64_t>(const std::string& path,
                                        std::string_view contents)>
      write;
  // Larger objects get 413 naming the limit.
  size_t max_object_bytes = size_t{64} << 20;
};

struct UploadRequest {
  std::string bucket;         // From the path.
  std::string upload_type;    // ?uploadType=
  std::string name;           // ?name=, maybe empty (then the metadata's).
  std::string content_type;   // The request's Content-Type.
  std::string authorization;  // The `Authorization` header, maybe empty.
  std::string_view body;
};

RestReply UploadObject(const StorageOptions& options,
                       const UploadRequest& request);

// A multipart/related body: its first part (the object's JSON metadata)
// and its second (the object's bytes). InvalidArgument saying what is
// missing.
struct MultipartRelated {
  std::string_view metadata;
  std::string_view data;
};
absl::StatusOr<MultipartRelated> SplitMultipartRelated(
    std::string_view content_type, std::string_view body);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_STORAGE_ROUTES_H_
