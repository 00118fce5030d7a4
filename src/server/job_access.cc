#include "src/server/job_access.h"

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/env/users.h"

namespace hptune::server {

absl::StatusOr<JobOwner> JobAccess::OwnerFor(const Caller& caller) const {
  if (env_.EffectiveUserId() != 0) return JobOwner{};
  if (caller.uid == 0) {
    if (rules_.allow_root_trials) return JobOwner{};
    return absl::PermissionDeniedError(
        "this server runs as root and does not run jobs as root: submit as "
        "the user the trials should run as (through the server's Unix "
        "socket, or with that user's token), or start the server with "
        "--allow-root-trials");
  }
  if (rules_.backend != "local") {
    return absl::FailedPreconditionError(
        absl::StrCat("this root server runs trials on ", rules_.backend,
                     ", where it cannot run them as ", DescribeUser(caller.uid),
                     ": submit to a server that runs as that user"));
  }
  return JobOwner{.uid = caller.uid, .gid = caller.gid};
}

absl::Status JobAccess::MayResume(const JobRecord& job) const {
  if (env_.EffectiveUserId() != 0) return absl::OkStatus();
  if (!job.owner.known() || job.owner.uid == 0) {
    if (rules_.allow_root_trials) return absl::OkStatus();
    return absl::PermissionDeniedError(absl::StrCat(
        "this server runs as root and does not run jobs as root: the job ",
        job.owner.known() ? "is root's" : "has no known owner (uid -1)",
        ", so its trials would run as root; start the server with "
        "--allow-root-trials to resume it"));
  }
  if (rules_.backend != "local") {
    return absl::FailedPreconditionError(absl::StrCat(
        "this root server runs trials on ", rules_.backend,
        ", where it cannot run them as ", DescribeUser(job.owner.uid)));
  }
  return absl::OkStatus();
}

bool JobAccess::MaySee(const Caller& caller, const JobRecord& job) const {
  if (caller.admin || rules_.share_jobs) return true;
  const int64_t owner = job.owner.known()
                            ? job.owner.uid
                            : static_cast<int64_t>(env_.EffectiveUserId());
  return owner == static_cast<int64_t>(caller.uid);
}

absl::StatusOr<JobRecord> JobAccess::FindJob(const Caller& caller,
                                             std::string_view job_id) const {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, store_.GetJob(job_id));
  if (!MaySee(caller, job)) {
    return absl::PermissionDeniedError(
        absl::StrCat("job \"", std::string(job_id), "\" is another user's"));
  }
  return job;
}

absl::Status JobAccess::CheckStudy(const Caller& caller,
                                   std::string_view study) const {
  if (caller.admin || rules_.share_jobs) return absl::OkStatus();
  // A job's study is named after the job (runner::JobRunner::Submit).
  absl::StatusOr<JobRecord> job = store_.GetJob(study);
  if (absl::IsNotFound(job.status())) return absl::OkStatus();
  HPTUNE_RETURN_IF_ERROR(job.status());
  if (job->study_name != study || MaySee(caller, *job)) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "study \"", std::string(study), "\" is another user's job's"));
}

}  // namespace hptune::server
