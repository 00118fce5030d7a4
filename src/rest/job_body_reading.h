// The bodies of AI Platform's projects.jobs requests (user text, read at
// the edge, once): create's Job {jobId, trainingInput, labels}, read by the
// config reader's ParseJobResource (docs/config.md) as a config file is,
// and patch's {labels}. The one file of src/rest that parses a job. Used by the REST gateway's routes. Pure functions;
// thread-safe.
#ifndef HPTUNE_SRC_REST_JOB_BODY_READING_H_
#define HPTUNE_SRC_REST_JOB_BODY_READING_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/v1/job_service.pb.h"

namespace hptune::rest {

// projects.jobs.create's body. InvalidArgument naming the field for a body
// that is not a JSON object, a field the API has and hptune does not take,
// or every error the config reader finds.
absl::StatusOr<v1::SubmitJobRequest> ReadCreateJobBody(std::string_view body);

// projects.jobs.patch's body and its updateMask: only "labels" (with
// "etag", which hptune does not keep, allowed beside it); the labels given
// replace the job's, as AI Platform's patch does.
absl::StatusOr<v1::UpdateJobRequest> ReadPatchJobBody(
    std::string_view job_id, std::string_view body,
    std::string_view update_mask);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_JOB_BODY_READING_H_
