// The backend flags that `hptune run`, `hptune serve` and `hptune jobs
// submit` share: --backend local|slurm, --slurm-partition, --slurm-account,
// --slurm-time, --slurm-allocation (run, serve) and the repeatable
// --slurm-option, over a config's backend
// block (run, submit) or the defaults (serve). Used only by src/cli. Pure
// functions.
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

// The flags that may be given many times (rows of the flag table,
// flag_table.h, with the others).
struct RepeatedSlurmFlags {
  std::vector<std::string> options;    // --slurm-option=OPT
  std::vector<std::string> gpu_types;  // --slurm-gpu-type=TYPE=GRES_TYPE
};
// Their values, as ParseFlags keeps them.
RepeatedSlurmFlags RepeatedSlurmFlagsOf(const ParsedArgs& args);
// Removes them from `args` (up to a "--") and returns their values in order:
// for `jobs submit`, whose flags ParseArgs reads.
RepeatedSlurmFlags TakeRepeatedSlurmFlags(std::vector<std::string>& args);

// What the backend flags configure.
enum class BackendFlagsFor {
  kServer,  // `serve`: the server's defaults.
  kRun,     // `run`: the config's block.
  // `jobs submit`: the config's block; a job that names no backend takes
  // the server's, so Slurm flags need only that it does not name local.
  kSubmit,
};

// Sets `backend` from the flags in `args` and the taken repeatable ones: a
// flag given replaces the field, options are appended (sbatch takes the
// last of a repeated option), --backend sets backend_named. InvalidArgument
// naming the flag for a --backend other than local or slurm, for a
// malformed Slurm flag (a --slurm-gpu-type of an unknown GPU type, or given
// twice, a --slurm-allocation other than per-lane or per-trial), for
// --slurm-gpu-type or --slurm-allocation on a job (kSubmit), and for Slurm
// flags with the local backend (kSubmit: when the job names it).
[[nodiscard]] absl::Status ApplyBackendFlags(const ParsedArgs& args,
                                             RepeatedSlurmFlags repeated,
                                             BackendConfig& backend,
                                             BackendFlagsFor use);

// The launcher of a slurm `backend`, with --slurm-allocation's mode
// (per-lane when not given). InvalidArgument when `args` also
// gives --gpus (Slurm allocates the GPUs); SlurmLauncher::Create's errors
// (Slurm unusable) otherwise. The launcher works on `env`.
absl::StatusOr<std::unique_ptr<launch::SlurmLauncher>> CreateSlurmLauncher(
    const BackendConfig& backend, const ParsedArgs& args, Env& env);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_BACKEND_FLAGS_H_
