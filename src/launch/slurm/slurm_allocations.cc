#include "src/launch/slurm/slurm_allocations.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_join.h"
#include "src/launch/slurm/slurm_commands.h"

namespace hptune::launch::slurm_internal {

AllocationPool::~AllocationPool() {
  std::vector<std::string> jobs;
  {
    MutexLock lock(&mutex_);
    for (const Held& held : held_) jobs.push_back(held.allocation->slurm_job);
    held_.clear();
  }
  Cancel(env_, jobs);
}

absl::StatusOr<std::shared_ptr<const Allocation>> AllocationPool::Take(
    const std::string& job_id, const std::string& shape,
    const std::function<absl::StatusOr<Allocation>()>& submit) {
  {
    MutexLock lock(&mutex_);
    for (Held& held : held_) {
      if (!held.busy && held.allocation->job_id == job_id &&
          held.allocation->shape == shape) {
        held.busy = true;
        return held.allocation;
      }
    }
  }
  absl::StatusOr<Allocation> made = submit();
  if (!made.ok()) return made.status();
  auto allocation = std::make_shared<const Allocation>(*std::move(made));
  MutexLock lock(&mutex_);
  held_.push_back(Held{.allocation = allocation});
  return allocation;
}

void AllocationPool::GiveBack(
    const std::shared_ptr<const Allocation>& allocation, bool broken) {
  {
    MutexLock lock(&mutex_);
    auto it = std::find_if(held_.begin(), held_.end(), [&](const Held& held) {
      return held.allocation == allocation;
    });
    if (it == held_.end()) return;
    if (!broken && !it->job_ended) {
      it->busy = false;
      return;
    }
    held_.erase(it);
  }
  Cancel(env_, {allocation->slurm_job});
}

void AllocationPool::EndJob(const std::string& job_id) {
  std::vector<std::string> idle;
  {
    MutexLock lock(&mutex_);
    for (Held& held : held_) {
      if (held.allocation->job_id != job_id) continue;
      held.job_ended = true;
      if (!held.busy) idle.push_back(held.allocation->slurm_job);
    }
    std::erase_if(held_, [&](const Held& held) {
      return held.allocation->job_id == job_id && !held.busy;
    });
  }
  Cancel(env_, idle);
}

void AllocationPool::Cancel(Env& env,
                            const std::vector<std::string>& slurm_jobs) {
  if (slurm_jobs.empty()) return;
  std::vector<std::string> argv = {"scancel", "--quiet"};
  argv.insert(argv.end(), slurm_jobs.begin(), slurm_jobs.end());
  (void)RunSlurm(env, argv);
  // Long enough for Slurm's KillWait and the epilog of a loaded controller.
  const MonotonicTime deadline = env.MonotonicNow() + std::chrono::seconds(60);
  auto wait = std::chrono::milliseconds(10);
  while (env.MonotonicNow() < deadline) {
    auto state = QueryJob(env, absl::StrJoin(slurm_jobs, ","));
    if (state.ok() && state->phase == JobPhase::kEnded) return;
    env.SleepFor(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(200));
  }
}

}  // namespace hptune::launch::slurm_internal
