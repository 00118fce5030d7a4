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

namespace {

// InvalidArgument unless the job read is the resource asked for: a
// CustomJob has no study, a HyperparameterTuningJob has one.
absl::Status CheckResource(const JobSpec& job, const std::string& whole,
                           VertexResource resource) {
  const bool custom = resource == VertexResource::kCustomJob;
  if (job.dialect == SpecDialect::kVertex && job.study.has_value() != custom) {
    return absl::OkStatus();
  }
  if (custom) {
    return absl::InvalidArgumentError(absl::StrCat(
        whole,
        ": must be a CustomJob (with jobSpec); a HyperparameterTuningJob "
        "(studySpec, trialJobSpec) is created with hyperparameterTuningJobs"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(whole,
                   ": must be a HyperparameterTuningJob (with studySpec and "
                   "trialJobSpec)",
                   job.dialect == SpecDialect::kVertex
                       ? "; a CustomJob (jobSpec) is created with customJobs"
                       : ""));
}

}  // namespace

absl::StatusOr<JobSpec> JobSpecFromVertexJob(std::string_view text,
                                             std::string_view job_id,
                                             std::string_view field,
                                             VertexResource resource) {
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
  if (absl::Status s = CheckResource(*result.job, whole, resource); !s.ok()) {
    if (result.job->dialect == SpecDialect::kVertex || field.empty()) return s;
    return absl::InvalidArgumentError(absl::StrCat(
        s.message(), "; send an AI Platform config as training_input"));
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
