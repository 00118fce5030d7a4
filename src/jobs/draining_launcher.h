// DrainingLauncher: a Launcher decorator that lets the server stop every
// trial's replicas on SIGTERM without the job runners noticing.
//
// `hptune serve` drains on SIGTERM by leaving its jobs resumable: replicas
// are stopped, but no trial or job changes state, and the next server on the
// same database resumes them. JobRunner only knows "cancel" (which ends the
// job CANCELLED), so the server hides the drain from it instead: once
// Drain() is called, every TrialRun is terminated, Poll() reports no exits
// (so nothing is restarted or failed), and Start() blocks until the process
// exits. Drain() is meant to be followed by process exit. Each drained
// attempt is marked in its trial directory (DrainedAttemptIn,
// hptune/core/runs_layout.h), so the next server does not count it against the
// trial's retries.
//
// Thread-safety: thread-safe. Each wrapped TrialRun is guarded by its own
// mutex, so Drain() may terminate a run while its job runner polls it.
#ifndef HPTUNE_SRC_JOBS_DRAINING_LAUNCHER_H_
#define HPTUNE_SRC_JOBS_DRAINING_LAUNCHER_H_

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::jobs {

class DrainingLauncher : public launch::Launcher {
 public:
  // A drained attempt's marker is written through `env`.
  DrainingLauncher(launch::Launcher& inner, Env& env)
      : inner_(inner), env_(env) {}

  [[nodiscard]] absl::Status CheckFits(
      const std::vector<launch::ReplicaRequest>& requests) const override;
  absl::StatusOr<std::unique_ptr<launch::Placement>> Reserve(
      const std::vector<launch::ReplicaRequest>& requests) override;
  [[nodiscard]] absl::Status BeginJob(const JobSpec& job) override;
  void EndJob(const std::string& job_id) override;
  absl::StatusOr<std::unique_ptr<launch::TrialRun>> Start(
      const launch::TrialLaunch& launch) override;
  absl::StatusOr<std::unique_ptr<launch::TrialRun>> Reattach(
      const launch::TrialLaunch& launch) override;
  void StopLeftovers(const std::filesystem::path& job_runs_dir,
                     std::chrono::milliseconds grace) override {
    inner_.StopLeftovers(job_runs_dir, grace);
  }

  // Terminates every run (SIGTERM, `grace`, SIGKILL), ends every job begun
  // and not ended (EndJob: a Slurm job's allocations go), and freezes the
  // launcher as described above. Returns when no replica is left.
  void Drain(std::chrono::milliseconds grace);

  class Run;  // The wrapped TrialRun.

 private:
  friend class Run;
  // Adds `run` to runs_; false, adding nothing, once draining.
  bool TrackUnlessDraining(Run* run);
  void Forget(Run* run);
  // Blocks the calling thread for good once draining.
  void BlockIfDraining();

  launch::Launcher& inner_;
  Env& env_;
  Mutex mutex_;
  CondVar never_;
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  std::set<Run*> runs_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> jobs_ ABSL_GUARDED_BY(mutex_);  // Begun, not ended.
};

}  // namespace hptune::jobs

#endif  // HPTUNE_SRC_JOBS_DRAINING_LAUNCHER_H_
