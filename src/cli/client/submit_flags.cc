#include "src/cli/client/submit_flags.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"
#include "src/cli/backend_flags.h"
#include "src/cli/spec_overrides.h"

namespace hptune::cli::client {
namespace {

const char kBackendOverrideHelp[] =
    "Backend (override the config's backend: and slurm: block):\n"
    "  --backend local|slurm     the backend the job asks for; without it\n"
    "                            (and without backend: in the config) the\n"
    "                            job takes the server's, and a server of the\n"
    "                            other backend refuses the job\n"
    "  --slurm-partition P       --slurm-account A  --slurm-time LIMIT\n"
    "  --slurm-option=OPT        an extra sbatch option, repeatable, after\n"
    "                            the config's and the server's own\n"
    "                            (a Slurm server applies these over its\n"
    "                            --slurm-* options)\n";

// The object under the root of TrainingInputToJson's text.
std::string TrainingInputObject(const std::string& training_input_json) {
  return nlohmann::json::parse(training_input_json)["trainingInput"].dump();
}

}  // namespace

const std::set<std::string>& SubmitOverrideFlags() {
  static const auto* const kFlags = [] {
    auto* flags = new std::set<std::string>(SpecOverrideFlags());
    flags->insert(std::begin(kBackendValueFlags), std::end(kBackendValueFlags));
    return flags;
  }();
  return *kFlags;
}

const char* SubmitOverrideHelp() {
  static const auto* const kHelp =
      new std::string(absl::StrCat(kSpecOverrideHelp, kBackendOverrideHelp));
  return kHelp->c_str();
}

absl::StatusOr<Submission> BuildSubmission(
    const std::string& job_id, const std::optional<std::string>& config_path,
    const ParsedArgs& args, RepeatedSlurmFlags slurm_flags,
    const std::filesystem::path& cwd) {
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobId(job_id, "JOB")));
  JobSpec job;
  BackendConfig backend;
  if (config_path) {
    HPTUNE_ASSIGN_OR_RETURN(LoadedConfig loaded, LoadConfigFile(*config_path));
    job = std::move(loaded.job);
    backend = loaded.backend;
    const std::filesystem::path config = *config_path;
    ResolveConfigPaths((cwd / config).lexically_normal().parent_path(), job);
  }
  job.job_id = job_id;
  HPTUNE_RETURN_IF_ERROR(ApplyBackendFlags(args, std::move(slurm_flags),
                                           backend, BackendFlagsFor::kSubmit));
  HPTUNE_RETURN_IF_ERROR(ApplyOverrides(args, cwd, job));
  job.slurm = std::move(backend.slurm);
  HPTUNE_ASSIGN_OR_RETURN(JobSpec checked,
                          CheckOverriddenJob(job, config_path.has_value()));
  std::string training_input = TrainingInputToJson(checked);
  Submission submission{
      .job = std::move(checked),
      .training_input_json = TrainingInputObject(training_input),
      .backend = backend.backend_named ? backend.backend : ""};
  return submission;
}

}  // namespace hptune::cli::client
