// The Store's job and replica operations (store_operations.h), for both SQL
// stores.
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/sqlite_connection.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store::internal {

template <typename Db>
absl::Status CreateJobIn(Db& db, const JobRecord& job, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, JobExists(db, job.job_id));
  if (exists) return JobAlreadyExists(job.job_id);
  HPTUNE_RETURN_IF_ERROR(InsertJob(db, job));
  return InsertEvent(db, MakeEvent(now, kJobCreated, job.study_name, job.job_id,
                                   0, std::string(ToString(job.state))));
}

template <typename Db>
absl::StatusOr<JobRecord> GetJobIn(Db& db, std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> job, SelectJob(db, job_id));
  if (!job) return JobNotFound(job_id);
  return *std::move(job);
}

template <typename Db>
absl::StatusOr<JobRecord> UpdateJobIn(
    Db& db, std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord stored, GetJobIn(db, job_id));
  JobRecord updated = stored;
  HPTUNE_RETURN_IF_ERROR(mutate(updated));
  HPTUNE_RETURN_IF_ERROR(PrepareJobUpdate(stored, updated, now));
  HPTUNE_RETURN_IF_ERROR(UpdateJobRow(db, updated));
  if (updated.state != stored.state) {
    HPTUNE_RETURN_IF_ERROR(InsertEvent(
        db, MakeEvent(now, kJobState, updated.study_name, job_id, 0,
                      TransitionDetail(stored.state, updated.state))));
  }
  return updated;
}

template <typename Db>
absl::Status DeleteJobIn(Db& db, std::string_view job_id, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, GetJobIn(db, job_id));
  HPTUNE_RETURN_IF_ERROR(CheckJobDeletable(job));
  return DeleteJobRows(db, job, now);
}

template <typename Db>
absl::Status RecordReplicaEventIn(Db& db, std::string_view job_id,
                                  int64_t trial, std::string_view detail,
                                  Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, GetJobIn(db, job_id));
  return InsertEvent(db, MakeEvent(now, kReplica, job.study_name, job_id, trial,
                                   std::string(detail)));
}

// Both stores' connections (store_operations.h).
#define HPTUNE_INSTANTIATE_OPERATIONS(Db)                                    \
  template absl::Status CreateJobIn<Db>(Db&, const JobRecord&, Timestamp);   \
  template absl::StatusOr<JobRecord> GetJobIn<Db>(Db&, std::string_view);    \
  template absl::StatusOr<JobRecord> UpdateJobIn<Db>(                        \
      Db&, std::string_view, const std::function<absl::Status(JobRecord&)>&, \
      Timestamp);                                                            \
  template absl::Status DeleteJobIn<Db>(Db&, std::string_view, Timestamp);   \
  template absl::Status RecordReplicaEventIn<Db>(                            \
      Db&, std::string_view, int64_t, std::string_view, Timestamp);
HPTUNE_INSTANTIATE_OPERATIONS(SqliteConnection)
HPTUNE_INSTANTIATE_OPERATIONS(PgConnection)
#undef HPTUNE_INSTANTIATE_OPERATIONS

}  // namespace hptune::store::internal
