#include "src/jobs/take_over.h"

#include <chrono>

#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/launch/launcher.h"
#include "src/jobs/trial_recovery.h"

namespace hptune::jobs {
namespace {

// Leftover replicas get SIGTERM and this long before SIGKILL.
constexpr std::chrono::milliseconds kLeftoverGrace{2000};

absl::Status FinishCancelling(store::Store& store, engine::TuningEngine& engine,
                              const JobRecord& job, Clock& clock) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store.ListTrialSummaries(job.study_name));
  for (const Trial& trial : trials) {
    if (IsTerminal(trial.state)) continue;
    HPTUNE_RETURN_IF_ERROR(engine
                               .MarkTrialCancelled(job.study_name, trial.number,
                                                   "the job was cancelled")
                               .status());
  }
  return store
      .UpdateJob(job.job_id,
                 [&](JobRecord& j) {
                   if (IsTerminal(j.state)) return absl::OkStatus();
                   return j.TransitionTo(JobState::kCancelled, clock.Now());
                 })
      .status();
}

}  // namespace

void StopLeftovers(launch::Launcher& launcher,
                   const std::filesystem::path& runs_dir,
                   const std::string& job_id) {
  launcher.StopLeftovers(RunsLayout(runs_dir).JobDir(job_id), kLeftoverGrace);
}

absl::StatusOr<TakeOver> TakeOverJob(store::Store& store,
                                     engine::TuningEngine& engine,
                                     launch::Launcher& launcher,
                                     const std::filesystem::path& runs_dir,
                                     const JobRecord& record,
                                     const JobSpec& spec, Env& env) {
  // Whatever the dead runner left running has lost its watcher: stop it
  // before its trial is started again.
  StopLeftovers(launcher, runs_dir, record.job_id);
  if (record.state == JobState::kCancelling) {
    HPTUNE_RETURN_IF_ERROR(
        FinishCancelling(store, engine, record, env.clock()));
    return TakeOver::kEnded;
  }
  HPTUNE_RETURN_IF_ERROR(
      RecoverTrialFiles(engine, runs_dir, record, spec, env));
  return TakeOver::kRun;
}

}  // namespace hptune::jobs
