// JobSlots: the parallel slots of one JobRun and the trials running in them.
//
// Each of a job's maxParallelTrials slots is a client of the engine
// ("<job>/slot-<k>") and runs at most one trial at a time, so a job run
// again after its runner died gets each slot's unfinished trial back from
// that slot. JobSlots remembers which trials an earlier runner left ACTIVE
// and in which slot, and hands those slots out first. Its memory follows the
// slots in use, never maxParallelTrials: slots no trial has used yet are
// the range [next_unused_, parallel), kept as its start alone.
// Not thread-safe: owned by one JobRun.
#ifndef HPTUNE_SRC_RUNNER_JOB_SLOTS_H_
#define HPTUNE_SRC_RUNNER_JOB_SLOTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hptune/core/trial.h"
#include "src/runner/trial_execution.h"

namespace hptune::runner::internal {

class JobSlots {
 public:
  using Running = std::map<int, std::unique_ptr<TrialExecution>>;  // By slot.

  JobSlots(std::string job_id, int parallel);

  // Notes the trials of `trials` (the job's study) an earlier runner left
  // ACTIVE in a slot of this job; a slot beyond today's maxParallelTrials
  // still finishes its trial.
  void FindUnfinished(const std::vector<Trial>& trials);
  // Whether `trial` was left unfinished; it no longer is from now on.
  bool TakeUnfinished(int64_t trial) { return unfinished_.erase(trial) > 0; }
  bool AnyUnfinished() const { return !unfinished_.empty(); }

  // The engine client of `slot`.
  std::string Client(int slot) const;
  bool HasFree() const { return !free_.empty() || next_unused_ < parallel_; }
  // The free slot to start a trial in next: one whose trial an earlier
  // runner left unfinished first, else the lowest.
  int NextFree() const;
  void Occupy(int slot, std::unique_ptr<TrialExecution> execution);
  // Ends the slot's execution and frees the slot.
  void Release(int slot);
  // Forgets free slots beyond maxParallelTrials that no unfinished trial
  // needs any more.
  void Trim();

  Running& running() { return running_; }
  const Running& running() const { return running_; }

 private:
  const std::string job_id_;
  const int parallel_;
  // Free slots that were used, or that an unfinished trial waits for.
  std::set<int> free_;
  // The lowest slot not used yet; every slot from it to parallel_ is free
  // unless running_ holds it (an unfinished trial's slot).
  int next_unused_ = 0;
  Running running_;
  // Trials an earlier runner left ACTIVE, by number, with their slot, until
  // they are started again.
  std::map<int64_t, int> unfinished_;
};

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_JOB_SLOTS_H_
