// A SubmitJobRequest's vertex_job, or REST's create body, user text read
// by the config parser (conversion.h, "Jobs"). The one place in src/api
// that parses text.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "src/api/conversion.h"

namespace hptune::api {

absl::StatusOr<JobSpec> JobSpecFromVertexJob(std::string_view text,
                                             std::string_view job_id,
                                             std::string_view field) {
  const std::string whole =
      field.empty() ? std::string("the body") : std::string(field);
  constexpr size_t kMaxVertexJobBytes = 4 << 20;
  if (text.size() > kMaxVertexJobBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        whole, ": must be at most 4 MiB, got ", text.size(), " bytes"));
  }
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, job_id);
  for (FieldError& error : result.errors) {
    if (error.field != "jobId" && !field.empty()) {
      error.field = absl::StrCat(std::string(field), ".", error.field);
    }
  }
  if (!result.errors.empty()) return FieldErrorsToStatus(result.errors);
  if (result.job->dialect != SpecDialect::kVertex) {
    return absl::InvalidArgumentError(absl::StrCat(
        whole,
        ": must be a HyperparameterTuningJob (with studySpec and "
        "trialJobSpec)",
        field.empty() ? "" : "; send an AI Platform config as training_input"));
  }
  // A whole request leaves where trials run to the server, as AI
  // Platform's create body does (ParseJobResource).
  for (const auto& [named, key] :
       {std::pair{result.backend.backend_named, "backend"},
        std::pair{!result.backend.slurm.empty() || !result.job->slurm.empty(),
                  "slurm"}}) {
    if (field.empty() && named) {
      return absl::InvalidArgumentError(absl::StrCat(
          key, ": the server chooses where trials run; not in a request"));
    }
  }
  return *std::move(result.job);
}

}  // namespace hptune::api
