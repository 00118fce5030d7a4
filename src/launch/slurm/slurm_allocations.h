// The Slurm allocations that a job's trials reuse (SlurmAllocation::kPerLane,
// slurm_launcher.h has the design): each is a batch job running the holder
// script (slurm_scripts.h), sized for one trial's replicas. A trial takes an
// idle allocation of its job with the same shape, or a new one is submitted;
// it gives it back when it ends; the job's end cancels them all. So a job
// holds as many allocations as it ran trials at once (its lanes).
// Used by SlurmLauncher and its StepTrialRuns; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_SLURM_SLURM_ALLOCATIONS_H_
#define HPTUNE_SRC_LAUNCH_SLURM_SLURM_ALLOCATIONS_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"

namespace hptune::launch::slurm_internal {

// One holder batch job. Its fields never change once made.
struct Allocation {
  std::string slurm_job;      // Slurm's job ID.
  std::filesystem::path dir;  // Its files; the holder writes hosts, nodes.
  std::string job_id;         // The hptune job whose trials use it.
  // What a trial must match to use it: its layout and sbatch options.
  std::string shape;
};

class AllocationPool {
 public:
  // Waits for cancellations on `env`'s clock; it must outlive the pool.
  explicit AllocationPool(Env& env) : env_(env) {}
  // Cancels every allocation still held (Release).
  ~AllocationPool();
  AllocationPool(const AllocationPool&) = delete;
  AllocationPool& operator=(const AllocationPool&) = delete;

  // An idle allocation of `job_id` with `shape`, now the caller's; else
  // `submit()`'s new one, which the pool keeps from then on.
  absl::StatusOr<std::shared_ptr<const Allocation>> Take(
      const std::string& job_id, const std::string& shape,
      const std::function<absl::StatusOr<Allocation>()>& submit);
  // A trial is done with `allocation`: idle again for the job's next trial,
  // or cancelled when it is `broken` (ended, or steps of the trial may
  // still run in it) or its job has ended meanwhile.
  void GiveBack(const std::shared_ptr<const Allocation>& allocation,
                bool broken);
  // Cancels every allocation of `job_id`; one a trial still uses is
  // cancelled when given back. Returns once squeue shows none of them alive.
  void EndJob(const std::string& job_id);

  // `scancel` of `slurm_jobs`, then waits (up to a minute on `env`'s
  // clock) until squeue shows none of them running or completing.
  static void Cancel(Env& env, const std::vector<std::string>& slurm_jobs);

 private:
  struct Held {
    std::shared_ptr<const Allocation> allocation;
    bool busy = true;
    bool job_ended = false;  // EndJob came while it was busy.
  };
  Env& env_;
  Mutex mutex_;
  std::vector<Held> held_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace hptune::launch::slurm_internal

#endif  // HPTUNE_SRC_LAUNCH_SLURM_SLURM_ALLOCATIONS_H_
