// Whose a job is, and who may do what with it, on a server that several
// users call (auth.h; docs/operations.md, "Several users on one server").
//
// A job is its submitter's: a root server runs its replicas as that user
// (JobOwner), and only that user and the server's administrator may see,
// watch, stream, relabel or cancel it, or reach its study through the
// StudyService. Studies that belong to no job (ask/tell studies) are shared
// by everyone with a token. A server that is not root runs everything as its
// own user. Used by JobService and StudyService. Thread-safe: the rules are
// fixed and the store is thread-safe.
#ifndef HPTUNE_SRC_SERVER_JOB_ACCESS_H_
#define HPTUNE_SRC_SERVER_JOB_ACCESS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "src/server/auth.h"

namespace hptune::server {

struct JobAccessRules {
  // Every user may see, stream and cancel every job.
  bool share_jobs = false;
  // A root server runs root's jobs (its administrator token's, a root
  // caller's) as root; otherwise it refuses them.
  bool allow_root_trials = false;
  // Where the server runs trials, "local" or "slurm": a root server runs
  // other users' trials on the local launcher only.
  std::string backend = "local";
};

class JobAccess {
 public:
  // `env` says whom the server runs as (root or not); it must outlive this.
  JobAccess(store::Store& store, JobAccessRules rules, Env& env)
      : store_(store), rules_(std::move(rules)), env_(env) {}

  // Whom a job `caller` submits runs as. PermissionDenied for root's job on
  // a root server that does not allow them; FailedPrecondition for another
  // user's on a root server's Slurm backend.
  absl::StatusOr<JobOwner> OwnerFor(const Caller& caller) const;
  // Whether this server may resume `job`, stored by an earlier server (or
  // written by anyone who could write the database): OwnerFor's rules for
  // the owner it records. On a root server, a job of no known owner or of
  // root would run as root: PermissionDenied without allow_root_trials.
  [[nodiscard]] absl::Status MayResume(const JobRecord& job) const;
  bool MaySee(const Caller& caller, const JobRecord& job) const;
  // The job `job_id` when `caller` may see it; PermissionDenied otherwise.
  absl::StatusOr<JobRecord> FindJob(const Caller& caller,
                                    std::string_view job_id) const;
  // OK unless `study` is the study of a job `caller` may not see.
  [[nodiscard]] absl::Status CheckStudy(const Caller& caller,
                                        std::string_view study) const;

 private:
  store::Store& store_;
  const JobAccessRules rules_;
  Env& env_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_JOB_ACCESS_H_
