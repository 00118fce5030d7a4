// The backend flags that `hptune run` and `hptune serve` share: --backend
// local|slurm, --slurm-partition, --slurm-account, --slurm-time and the
// repeatable --slurm-option, over a config's backend block (run) or the
// defaults (serve). Used only by src/cli. Pure functions.
#ifndef HPTUNE_SRC_CLI_BACKEND_FLAGS_H_
#define HPTUNE_SRC_CLI_BACKEND_FLAGS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/config.h"
#include "hptune/launch/slurm_launcher.h"
#include "src/cli/flags.h"

namespace hptune::cli {

// The value flags ApplyBackendFlags reads, for ParseArgs.
inline constexpr const char* kBackendValueFlags[] = {
    "backend", "slurm-partition", "slurm-account", "slurm-time"};

// --slurm-option may be given many times, which ParseArgs (one value per
// flag) does not keep: removes them from `args` (up to a "--") and returns
// their values in order.
std::vector<std::string> TakeSlurmOptions(std::vector<std::string>& args);

// Sets `backend` (a config's block when `from_config`, else the defaults)
// from the flags in `args` and the taken --slurm-option values.
// InvalidArgument naming the flag for a --backend other than local or
// slurm, and for Slurm flags without the slurm backend.
absl::Status ApplyBackendFlags(const ParsedArgs& args,
                               std::vector<std::string> slurm_options,
                               BackendConfig& backend, bool from_config);

// The launcher of a slurm `backend`. InvalidArgument when `args` also
// gives --gpus (Slurm allocates the GPUs); SlurmLauncher::Create's errors
// (Slurm unusable) otherwise.
absl::StatusOr<std::unique_ptr<launch::SlurmLauncher>> CreateSlurmLauncher(
    const BackendConfig& backend, const ParsedArgs& args);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_BACKEND_FLAGS_H_
