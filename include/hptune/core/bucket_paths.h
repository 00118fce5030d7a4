// Cloud Storage paths on a local root: `gs://B/P` stands for `ROOT/B/P`
// when the runner is given a root (`hptune serve --gcs-root ROOT`, the same
// on `hptune run`; docs/config.md, "Buckets"). A job keeps the `gs://` text
// its user wrote (stored, described and written back as given); the runner
// resolves a copy when it launches trials, so every backend, a take-over
// and a restarted server read the same files.
//
// Used by config validation (the names' rules), the job runner (the
// refusal without a root, and the copy it launches) and the REST gateway's
// storage upload. Pure functions; thread-safe.
#ifndef HPTUNE_CORE_BUCKET_PATHS_H_
#define HPTUNE_CORE_BUCKET_PATHS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {

inline constexpr std::string_view kGcsScheme = "gs://";
// The flag that names the root, for messages.
inline constexpr std::string_view kGcsRootFlag = "--gcs-root";

// Whether `text` is a `gs://` URI.
bool IsGcsUri(std::string_view text);

// What is wrong with a bucket name, "" when nothing: 3 to 63 characters of
// lowercase letters, digits, '.', '_' and '-', starting and ending with a
// letter or a digit (Cloud Storage's rules, less its dotted 222).
std::string BucketNameProblem(std::string_view bucket);
// What is wrong with an object name, "" when nothing: at most 1024 bytes,
// no NUL, CR or LF, and no segment "." or ".." nor an empty one but a
// final '/' (a name must stay under its bucket's directory). Empty is fine
// (the bucket itself).
std::string ObjectNameProblem(std::string_view object);

// The rules above on a `gs://B/P` URI at `field`; none for another value.
std::vector<FieldError> ValidateGcsUri(std::string_view uri,
                                       std::string_view field);

// `root`/B/P for `gs://B/P` (a final '/' kept); `uri` itself when it is no
// gs:// URI. InvalidArgument naming `field` and the value for a bad name;
// FailedPrecondition naming --gcs-root when `root` is empty.
absl::StatusOr<std::string> ResolveGcsUri(std::string_view root,
                                          std::string_view uri,
                                          std::string_view field);

// `job` with its gs:// URIs resolved under `root`: jobDir,
// baseOutputDirectory, the trainer's and each pool's packageUris
// (packagePath is a local directory: gcloud uploads it as a package).
// The first error, naming the field (trainingInput.*).
absl::StatusOr<JobSpec> ResolveJobBuckets(const JobSpec& job,
                                          std::string_view root);

}  // namespace hptune

#endif  // HPTUNE_CORE_BUCKET_PATHS_H_
