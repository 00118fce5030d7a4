#include "hptune/runner/job_runner.h"

#include <sys/types.h>

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/bucket_paths.h"
#include "hptune/core/config.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/env/users.h"
#include "hptune/launch/replica_env.h"
#include "src/runner/job_run.h"
#include "src/runner/job_submission.h"

namespace hptune::runner {
namespace {

// Records the job's `state` (with `message` as its error) unless it holds it.
absl::StatusOr<JobRecord> RecordJobState(store::Store& store,
                                         const std::string& job_id,
                                         JobState state,
                                         const std::string& message,
                                         Timestamp now) {
  return store.UpdateJob(job_id, [&](JobRecord& j) {
    if (j.state == state) return absl::OkStatus();
    // Another server recorded a cancel (on a store servers share): the
    // job stays CANCELLING until this runner, told, ends it CANCELLED.
    const bool cancel_asked = j.state == JobState::kCancelling;
    if (cancel_asked && state == JobState::kRunning) return absl::OkStatus();
    j.error_message = message;
    return j.TransitionTo(cancel_asked && state == JobState::kSucceeded
                              ? JobState::kCancelled
                              : state,
                          now);
  });
}

}  // namespace

JobRunner::JobRunner(store::Store& store, engine::TuningEngine& engine,
                     launch::Launcher& launcher, JobRunnerOptions options,
                     Env& env)
    : store_(store),
      engine_(engine),
      launcher_(launcher),
      options_(std::move(options)),
      env_(env) {}

absl::StatusOr<JobRecord> JobRunner::Submit(const JobSpec& job, JobOwner owner,
                                            int64_t study_owner) {
  std::vector<FieldError> errors = ValidateJobId(job.job_id, "job ID");
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(errors));
  HPTUNE_RETURN_IF_ERROR(internal::CheckRunnable(job));
  HPTUNE_RETURN_IF_ERROR(ResolveJobBuckets(job, options_.gcs_root).status());
  HPTUNE_RETURN_IF_ERROR(launcher_.CheckFits(launch::ReplicaRequests(job)));
  if (store_.GetJob(job.job_id).ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat("job \"", job.job_id, "\" already exists"));
  }
  const StudySpec spec = RunStudyOf(job);
  // The one-run study of a job without one is the runner's, not a user's
  // spec: it has no parameters for the engine's checks or a designer.
  if (job.study) {
    HPTUNE_RETURN_IF_ERROR(engine_.CheckNewStudy(job.job_id, spec));
  }
  if (auto taken = store_.GetStudy(job.job_id); taken.ok()) {
    // Job IDs and ask/tell studies share one namespace: say whose study
    // holds the name, so a squatted name is settled by its owner or the
    // administrator, not guessed at.
    const std::string whose =
        taken->owner_uid >= 0
            ? absl::StrCat(" (made by ",
                           DescribeUser(static_cast<uid_t>(taken->owner_uid)),
                           ")")
            : "";
    return absl::AlreadyExistsError(absl::StrCat(
        "job \"", job.job_id, "\": a study of that name exists", whose,
        ", and a job's study takes the job's ID: choose another, or have "
        "the study deleted (hptune studies delete)"));
  }
  std::vector<Trial> resumed;
  if (!spec.resume_previous_job_id.empty()) {
    HPTUNE_ASSIGN_OR_RETURN(resumed, internal::PreviousResults(
                                         store_, spec.resume_previous_job_id));
  }
  // The job first: its study is its owner's from its first row, so no
  // other user reaches the trials it copies in, nor adds one meanwhile
  // (server::JobAccess::CheckStudy finds a study's job by its name).
  HPTUNE_RETURN_IF_ERROR(
      store_.CreateJob({.job_id = job.job_id,
                        .training_input_json = TrainingInputToJson(job),
                        .study_name = job.job_id,
                        .labels = job.labels,
                        .slurm = job.slurm,
                        .owner = owner,
                        .state = JobState::kQueued}));
  if (absl::Status made = CreateStudyOf(
          job, std::move(resumed), study_owner >= 0 ? study_owner : owner.uid);
      !made.ok()) {
    HPTUNE_RETURN_IF_ERROR(
        store_
            .UpdateJob(job.job_id,
                       [&](JobRecord& j) {
                         j.error_message = absl::StrCat(
                             "its study could not be made: ", made.message());
                         return j.TransitionTo(JobState::kFailed, env_.Now());
                       })
            .status());
    return made;
  }
  return store_.GetJob(job.job_id);
}

absl::Status JobRunner::CreateStudyOf(const JobSpec& job,
                                      std::vector<Trial> resumed,
                                      int64_t owner_uid) {
  if (!job.study) {
    return store_.CreateStudy({.name = job.job_id,
                               .spec = RunStudyOf(job),
                               .create_time = env_.Now(),
                               .owner_uid = owner_uid});
  }
  HPTUNE_ASSIGN_OR_RETURN(
      StudyRecord study,
      engine_.CreateStudy(job.job_id, *job.study,
                          static_cast<int>(resumed.size()), owner_uid));
  for (Trial& t : resumed) {
    HPTUNE_RETURN_IF_ERROR(
        engine_.CreateTrial(study.name, std::move(t)).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<JobRecord> JobRunner::Run(const JobSpec& written) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord record, store_.GetJob(written.job_id));
  // Trials read and write the local paths the job's gs:// URIs stand for.
  const absl::StatusOr<JobSpec> resolved =
      ResolveJobBuckets(written, options_.gcs_root);
  if (!resolved.ok()) return resolved.status();
  const JobSpec& job = *resolved;
  if (IsTerminal(record.state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job \"", job.job_id, "\" has ended (",
                     std::string(ToString(record.state)), ")"));
  }
  auto set_state = [&](JobState state, std::string message) {
    return RecordJobState(store_, job.job_id, state, message, env_.Now());
  };
  if (record.state == JobState::kQueued) {
    HPTUNE_RETURN_IF_ERROR(set_state(JobState::kPreparing, "").status());
  }
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study,
                          engine_.GetStudy(record.study_name));
  // Logs and metric files are the job's owner's: private directories.
  const std::filesystem::path job_dir =
      RunsLayout(options_.runs_dir).JobDir(job.job_id);
  if (absl::Status made = env_.CreatePrivateDirectories(job_dir); !made.ok()) {
    return set_state(JobState::kFailed, std::string(made.message()));
  }
  // Another user's job: this process keeps the job's directory, so that
  // no trial directory can be swapped for a link; its user may pass
  // through to the trial directories, which are that user's.
  if (internal::RunsAsAnotherUser(record.owner, env_)) {
    env_.SetPermissions(job_dir, 0711).IgnoreError();
  }
  // Declared before `run`: the launcher releases what it held for the job
  // after `run` has terminated every trial of it, whichever way Run returns
  // (again, harmlessly, after an outcome).
  struct EndJobOnReturn {
    launch::Launcher& launcher;
    const std::string& job_id;
    ~EndJobOnReturn() { launcher.EndJob(job_id); }
  } end_job{launcher_, job.job_id};
  // The job stays PREPARING until a trial's replicas run, as AI Platform's
  // stays until its workers are up: what maxWaitTime limits. `record`'s
  // create and start times, all JobRun reads of it, are as first read.
  internal::JobRun run(store_, engine_, launcher_, options_, env_, job, record,
                       study,
                       [&](JobState state) { return set_state(state, ""); });
  HPTUNE_RETURN_IF_ERROR(run.Begin());
  // Step at once while things happen; otherwise wait for a replica to exit,
  // backing off to max_poll_interval, the longest a new report or the
  // cancel flag waits to be seen.
  auto idle = std::chrono::microseconds(500);
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<internal::JobOutcome> outcome,
                            run.Step());
    if (outcome) {
      if (outcome->state == JobState::kSucceeded) {
        // A job can end with no trial run by it: one resumed with nothing
        // left.
        HPTUNE_RETURN_IF_ERROR(set_state(JobState::kRunning, "").status());
      }
      // Released before the job is seen ended, so a client waiting for its
      // end finds nothing of it left on the backend.
      launcher_.EndJob(job.job_id);
      return set_state(outcome->state, outcome->message);
    }
    if (run.busy()) {
      idle = std::chrono::microseconds(500);
      continue;
    }
    env_.WaitForReadable(run.ExitFds(), idle);
    idle = std::min<std::chrono::microseconds>(idle * 2,
                                               options_.max_poll_interval);
  }
}

}  // namespace hptune::runner
