// The TrialRun of SlurmLauncher: one submitted batch job, watched through
// the exit files its replicas write and through squeue (slurm_launcher.h has
// the design, slurm_scripts.h the files). Used by one thread at a time
// (TrialRun's contract). Internal to the launch module.
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_TRIAL_RUN_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_TRIAL_RUN_H_

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch::slurm_internal {

class SlurmTrialRun : public TrialRun {
 public:
  // What the destructor gives replicas between SIGTERM and the kill.
  static constexpr std::chrono::milliseconds kDestructorGrace{5000};

  // A run of Slurm job `slurm_job` whose files are in `dir`, with `replicas`
  // replicas, each at its first run. Its files, clock and waits are `env`'s,
  // which must outlive it.
  SlurmTrialRun(Env& env, std::string slurm_job, std::filesystem::path dir,
                int replicas, std::chrono::milliseconds state_poll_interval);
  // The same for a job an earlier process submitted: each replica's current
  // run is the last one asked for in `dir`, and it is running unless that
  // run's exit file is there (Poll() then reports it).
  static std::unique_ptr<SlurmTrialRun> Attach(
      Env& env, std::string slurm_job, std::filesystem::path dir, int replicas,
      std::chrono::milliseconds state_poll_interval);
  ~SlurmTrialRun() override;

  absl::StatusOr<std::vector<ReplicaExit>> Poll() override;
  // A new srun step for the replica in the same allocation; FailedPrecondition
  // while it runs or once the Slurm job has ended.
  [[nodiscard]] absl::Status Restart(int replica) override;
  bool IsRunning(int replica) const override;
  // Until the batch script has placed the replicas (it writes `hosts` as it
  // starts), unless the job ended or was terminated first.
  bool Queued() const override;
  void Terminate(std::chrono::milliseconds grace) override;

  const std::string& slurm_job() const { return slurm_job_; }

 private:
  struct Replica {
    int run = 1;
    bool running = true;
  };

  std::filesystem::path ExitFile(int replica, int run) const;
  // The exit of the replica's current run, when its file is there.
  std::optional<ReplicaExit> ReadExit(int replica) const;
  // Asks squeue when `force` or the poll interval has passed; a failing
  // squeue leaves the last known state.
  void RefreshJobState(bool force);
  bool AnyRunning() const;

  // Touches a marker file the batch script polls for (empty, as the
  // script's own `touch` would leave it).
  void Touch(const std::filesystem::path& path);

  Env& env_;
  const std::string slurm_job_;
  const std::filesystem::path dir_;
  const std::chrono::milliseconds state_poll_interval_;
  std::vector<Replica> replicas_;
  MonotonicTime last_state_check_{};
  bool job_ended_ = false;
  std::string job_state_ = "PENDING";
  bool terminated_ = false;
  mutable bool placed_ = false;  // `hosts` seen; it stays once written.
};

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_TRIAL_RUN_H_
