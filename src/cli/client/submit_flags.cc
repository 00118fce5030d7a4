#include "src/cli/client/submit_flags.h"

#include <utility>

#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/runner/config_file.h"
#include "src/api/conversion.h"
#include "src/cli/backend_flags.h"
#include "src/cli/spec_overrides.h"

namespace hptune::cli::client {
absl::StatusOr<Submission> BuildSubmission(
    Env& env, const std::string& job_id,
    const std::optional<std::string>& config_path, const ParsedArgs& args,
    RepeatedSlurmFlags slurm_flags, const std::filesystem::path& cwd) {
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobId(job_id, "JOB")));
  JobSpec job;
  BackendConfig backend;
  if (config_path) {
    HPTUNE_ASSIGN_OR_RETURN(LoadedConfig loaded,
                            runner::LoadConfigFile(env, *config_path));
    job = std::move(loaded.job);
    backend = loaded.backend;
    const std::filesystem::path config = *config_path;
    runner::ResolveConfigPaths(
        env, (cwd / config).lexically_normal().parent_path(), job);
  }
  job.job_id = job_id;
  HPTUNE_RETURN_IF_ERROR(ApplyBackendFlags(args, std::move(slurm_flags),
                                           backend, BackendFlagsFor::kSubmit));
  HPTUNE_RETURN_IF_ERROR(ApplyOverrides(args, cwd, job));
  job.slurm = std::move(backend.slurm);
  HPTUNE_ASSIGN_OR_RETURN(JobSpec checked,
                          CheckOverriddenJob(job, config_path.has_value()));
  v1::TrainingInput training_input = api::JobSpecToProto(checked);
  Submission submission{
      .job = std::move(checked),
      .training_input = std::move(training_input),
      .backend = backend.backend_named ? backend.backend : ""};
  return submission;
}

}  // namespace hptune::cli::client
