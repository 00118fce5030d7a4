// Calls of Slurm's client commands (sbatch, squeue, scancel, scontrol,
// sinfo) for SlurmLauncher and its TrialRun, and the parsing of what they
// print. Internal to the launch module; thread-safe (each call is its own
// process).
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::launch::slurm_internal {

// Runs a Slurm command to its end and returns its stdout. NotFound when it
// is not on PATH; Unavailable (the controller may be busy or down) with the
// command and its stderr when it exits non-zero, e.g.
//   sbatch: error: invalid partition specified: gpu
absl::StatusOr<std::string> RunSlurm(const std::vector<std::string>& argv);

// Whether `name` is an executable file in a directory of $PATH.
bool OnPath(std::string_view name);

// Where the job stands in squeue. Ended covers squeue no longer knowing it.
enum class JobPhase { kAlive, kEnding, kEnded };
JobPhase PhaseOf(std::string_view squeue_state);

struct JobState {
  JobPhase phase = JobPhase::kAlive;
  std::string state;  // squeue's %T of the first component, e.g. "RUNNING".
};
// squeue -j ID -t all. Any error other than "Invalid job id" (the job is
// gone) is returned, so a controller hiccup is not taken as the job's end.
absl::StatusOr<JobState> QueryJob(const std::string& job_id);

// The GPUs of a gres string as sinfo's %G prints it ("gpu:4",
// "gpu:tesla:2(S:0-1),mps:100", "(null)"), by gres type ("" for GPUs
// without one); empty when it has none.
std::map<std::string, int> GpusOfGres(std::string_view gres);

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_
