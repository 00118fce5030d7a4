// Calls of Slurm's client commands (sbatch, squeue, scancel, scontrol,
// sinfo) for SlurmLauncher and its TrialRun, and the parsing of what they
// print. Internal to the launch module; thread-safe (each call is its own
// process).
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::launch::slurm_internal {

// Runs a Slurm command to its end and returns its stdout. NotFound when it
// is not on PATH; Unavailable (the controller may be busy or down) with the
// command and its stderr when it exits non-zero, e.g.
//   sbatch: error: invalid partition specified: gpu
absl::StatusOr<std::string> RunSlurm(Env& env,
                                     const std::vector<std::string>& argv);

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
absl::StatusOr<JobState> QueryJob(Env& env, const std::string& job_id);

// The GPUs of a gres string as sinfo's %G prints it ("gpu:4",
// "gpu:tesla:2(S:0-1),mps:100", "(null)"), by gres type ("" for GPUs
// without one); empty when it has none.
std::map<std::string, int> GpusOfGres(std::string_view gres);

// A Slurm time limit as scontrol prints and sbatch takes it: minutes,
// minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes or days-hours:minutes:seconds. nullopt for
// UNLIMITED, INFINITE or anything else.
std::optional<std::chrono::seconds> SlurmDuration(std::string_view text);

// A partition's name and MaxTime, from `scontrol show partition -o`.
struct PartitionLimit {
  std::string name;
  std::string max_time;  // As scontrol prints it, e.g. "00:01:00".
};
// The partition `name`, or the cluster's default one (Default=YES) when
// `name` is empty; scontrol's error when it cannot say (e.g. an unknown
// partition), NotFound when no partition is the default.
absl::StatusOr<PartitionLimit> QueryPartition(Env& env,
                                              const std::string& name);

// `status` of a refused sbatch, with a hint when the refusal is the user's
// or the QOS's MaxSubmitJobs limit.
std::string ExplainSubmitError(const std::string& message);

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_COMMANDS_H_
