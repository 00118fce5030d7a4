// The command-line flags that override a config's job, for `hptune run` and
// `hptune jobs submit` alike: one set of flags, one way of applying them,
// the same message for the same bad value. Each flag is a row of the flag
// table (flag_table.h), with the config field it overrides and the
// function that applies it: adding an override is adding a row.
//
// Precedence, as gcloud's: a flag overrides the same option in the file;
// user args after `--` are appended to the file's args; --labels is laid
// over the config's labels. Paths in flags are relative to `cwd` and made
// absolute. Machine flags (--master-machine-type, --worker-count, ...) need
// scaleTier CUSTOM, from the file or --scale-tier; a --scale-tier other
// than CUSTOM replaces the file's task pools with the tier's. The job with
// the flags applied is checked again by the config parser, through its
// canonical JSON, so a flag's value meets the rules a config's does.
// Used only by src/cli. Pure functions; the rows are constant.
#ifndef HPTUNE_CLI_SPEC_OVERRIDES_H_
#define HPTUNE_CLI_SPEC_OVERRIDES_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "src/cli/flag_table.h"
#include "src/cli/flags.h"

namespace hptune::cli {

// The flag table's rows of the flags that override the config, in the
// order ApplyOverrides applies them (the tier before the machines).
const std::vector<FlagSpec>& SpecOverrideRows();

// Applies the flags in `args` to `job` (whose job_id is set: --resume-from
// must name another job), row by row, then appends the user args after
// `--`. InvalidArgument naming the flag and its value for a malformed
// flag.
[[nodiscard]] absl::Status ApplyOverrides(const ParsedArgs& args,
                                          const std::filesystem::path& cwd,
                                          JobSpec& job);

// `job` completed (CompleteJob: a tier's machines, the master's image) and
// checked by ValidateJob, its early-stopping settings by hptune's rule
// (stopping_rules.h): InvalidArgument listing every error with its
// field path, under "the config with the command-line flags
// applied:" (or "the job given by the command-line flags:" when
// !from_config).
absl::StatusOr<JobSpec> CheckOverriddenJob(const JobSpec& job,
                                           bool from_config);

// gcloud's accelerator flag value: "count=N,type=T" (either order; count
// defaults to 1). InvalidArgument naming `flag` and the value otherwise.
absl::StatusOr<AcceleratorConfig> ParseAcceleratorFlag(
    const std::string& flag, const std::string& value);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_SPEC_OVERRIDES_H_
