// `hptune jobs submit`: the job's trainingInput from a config file and the
// command-line flags that override it (src/cli/spec_overrides.h, shared with
// `hptune run`), validated here with the rules the server applies
// (ValidateJob), so a bad value is reported before any round trip.
//
// Paths in the file are relative to the file, paths in flags to the current
// directory; both are sent absolute, since the server has its own working
// directory. A config's `backend:` goes with the job (the server refuses a
// job for a backend it does not run), and so does its `slurm:` block
// (JobSpec::slurm), which a Slurm server applies over its own `--slurm-*`
// options; --backend and the --slurm-* flags override them as in `hptune
// run` (src/cli/backend_flags.h). Used only by src/cli. Pure functions
// apart from reading the config file.
#ifndef HPTUNE_CLI_CLIENT_SUBMIT_FLAGS_H_
#define HPTUNE_CLI_CLIENT_SUBMIT_FLAGS_H_

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"
#include "hptune/v1/job.pb.h"
#include "src/cli/backend_flags.h"
#include "src/cli/flags.h"
#include "src/cli/spec_overrides.h"

namespace hptune::cli::client {

struct Submission {
  JobSpec job;  // Validated, flags applied.
  // The job as the request's message (api::JobSpecToProto).
  v1::TrainingInput training_input;
  // The config's `backend:` ("local" or "slurm"), "" when it names none.
  std::string backend;
};

// Reads `config_path` through `env` (YAML or JSON; none: the flags alone
// describe the job), applies the flags in `args` and the repeatable ones taken
// from the command line (TakeRepeatedSlurmFlags), and validates the result for
// `job_id`. NotFound when the file cannot be read; InvalidArgument naming
// the flag and its value for a malformed flag, and listing every error of
// the file, or of the file with the flags applied, each with its field path.
absl::StatusOr<Submission> BuildSubmission(
    Env& env, const std::string& job_id,
    const std::optional<std::string>& config_path, const ParsedArgs& args,
    RepeatedSlurmFlags slurm_flags, const std::filesystem::path& cwd);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_SUBMIT_FLAGS_H_
