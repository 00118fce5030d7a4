// The jobs and events tables (store_tables.h): a job's row, its deletion
// with its study's, and the event log read by the change stream.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/record_codec.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"
#include "src/store/table_rows.h"

namespace hptune::store::internal {
namespace {

constexpr char kJobColumns[] =
    "job_id, training_input_json, study_name, state, error_message, "
    "create_time, start_time, end_time, slurm_json, labels_json, owner_uid, "
    "owner_gid";

template <typename Row>
absl::StatusOr<JobRecord> ReadJob(const Row& row) {
  JobRecord job;
  job.job_id = row.ColumnText(0);
  job.training_input_json = row.ColumnText(1);
  job.study_name = row.ColumnText(2);
  const std::string state = row.ColumnText(3);
  HPTUNE_ASSIGN_OR_RETURN(job.state,
                          ParseState(ParseJobState(state), state,
                                     absl::StrCat("job \"", job.job_id, "\"")));
  job.error_message = row.ColumnText(4);
  job.create_time = FromUnixMicros(row.ColumnInt(5));
  job.start_time = OptionalTime(row.ColumnOptionalInt(6));
  job.end_time = OptionalTime(row.ColumnOptionalInt(7));
  auto slurm = DecodeSlurmJobOptions(row.ColumnText(8));
  HPTUNE_RETURN_IF_ERROR(
      InRecord(slurm.status(), absl::StrCat("job \"", job.job_id, "\"")));
  job.slurm = *std::move(slurm);
  auto labels = DecodeJobLabels(row.ColumnText(9));
  HPTUNE_RETURN_IF_ERROR(
      InRecord(labels.status(), absl::StrCat("job \"", job.job_id, "\"")));
  job.labels = *std::move(labels);
  job.owner = {.uid = row.ColumnInt(10), .gid = row.ColumnInt(11)};
  return job;
}

// Binds the job's columns to ?1 ... ?12 in kJobColumns order.
template <typename Row>
absl::Status BindJob(Row& statement, const JobRecord& job) {
  HPTUNE_ASSIGN_OR_RETURN(std::string slurm, EncodeSlurmJobOptions(job.slurm));
  HPTUNE_ASSIGN_OR_RETURN(std::string labels, EncodeJobLabels(job.labels));
  statement.BindText(1, job.job_id)
      .BindText(2, job.training_input_json)
      .BindText(3, job.study_name)
      .BindText(4, ToString(job.state))
      .BindText(5, job.error_message)
      .BindInt(6, ToUnixMicros(job.create_time))
      .BindOptionalInt(7, OptionalMicros(job.start_time))
      .BindOptionalInt(8, OptionalMicros(job.end_time))
      .BindText(9, slurm)
      .BindText(10, labels)
      .BindInt(11, job.owner.uid)
      .BindInt(12, job.owner.gid);
  return absl::OkStatus();
}

}  // namespace

// --- jobs ---

template <typename Db>
absl::StatusOr<bool> JobExists(Db& db, std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(auto select,
                          db.Prepare("SELECT 1 FROM jobs WHERE job_id = ?1"));
  select.BindText(1, job_id);
  return select.Step();
}

template <typename Db>
absl::StatusOr<std::optional<JobRecord>> SelectJob(Db& db,
                                                   std::string_view job_id) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE job_id = ?1");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  select.BindText(1, job_id);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return ReadJob(select);
}

template <typename Db>
absl::StatusOr<std::vector<JobRecord>> SelectJobs(Db& db) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kJobColumns, " FROM jobs ORDER BY id");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  std::vector<JobRecord> jobs;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(JobRecord job, ReadJob(select));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

template <typename Db>
absl::Status InsertJob(Db& db, const JobRecord& job) {
  static const std::string kSql = absl::StrCat(
      "INSERT INTO jobs (", kJobColumns,
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  HPTUNE_ASSIGN_OR_RETURN(auto insert, db.Prepare(kSql.c_str()));
  HPTUNE_RETURN_IF_ERROR(BindJob(insert, job));
  return insert.Run();
}

template <typename Db>
absl::Status UpdateJobRow(Db& db, const JobRecord& job) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto update,
      db.Prepare(
          "UPDATE jobs SET training_input_json = ?2, study_name = ?3, "
          "state = ?4, error_message = ?5, create_time = ?6, "
          "start_time = ?7, end_time = ?8, slurm_json = ?9, labels_json = ?10, "
          "owner_uid = ?11, owner_gid = ?12 WHERE job_id = ?1"));
  HPTUNE_RETURN_IF_ERROR(BindJob(update, job));
  return update.Run();
}

template <typename Db>
absl::Status DeleteJobRows(Db& db, const JobRecord& job, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(bool study, StudyExists(db, job.study_name));
  if (study) {
    HPTUNE_RETURN_IF_ERROR(DeleteStudyRow(db, job.study_name));
    HPTUNE_RETURN_IF_ERROR(InsertEvent(
        db, MakeEvent(now, kStudyDeleted, job.study_name, "", 0, "")));
  }
  HPTUNE_ASSIGN_OR_RETURN(auto remove,
                          db.Prepare("DELETE FROM jobs WHERE job_id = ?1"));
  remove.BindText(1, job.job_id);
  HPTUNE_RETURN_IF_ERROR(remove.Run());
  return InsertEvent(db, MakeEvent(now, kJobDeleted, job.study_name, job.job_id,
                                   0, std::string(ToString(job.state))));
}

// --- events ---

template <typename Db>
absl::Status InsertEvent(Db& db, const Event& event) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto insert,
      db.Prepare("INSERT INTO events (time, kind, study, job_id, "
                 "trial_number, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  insert.BindInt(1, ToUnixMicros(event.time))
      .BindText(2, event.kind)
      .BindText(3, event.study)
      .BindText(4, event.job_id)
      .BindInt(5, event.trial_number)
      .BindText(6, event.detail);
  return insert.Run();
}

template <typename Db>
absl::StatusOr<std::vector<Event>> SelectEvents(Db& db, int64_t after_id,
                                                int limit) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
      db.Prepare("SELECT id, time, kind, study, job_id, trial_number, detail "
                 "FROM events WHERE id > ?1 ORDER BY id LIMIT ?2"));
  select.BindInt(1, after_id).BindInt(2, limit);
  std::vector<Event> events;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    Event event;
    event.id = select.ColumnInt(0);
    event.time = FromUnixMicros(select.ColumnInt(1));
    event.kind = select.ColumnText(2);
    event.study = select.ColumnText(3);
    event.job_id = select.ColumnText(4);
    event.trial_number = select.ColumnInt(5);
    event.detail = select.ColumnText(6);
    events.push_back(std::move(event));
  }
  return events;
}

// Both stores' connections (store_tables.h).
#define HPTUNE_INSTANTIATE_TABLES(Db)                                        \
  template absl::StatusOr<bool> JobExists<Db>(Db&, std::string_view);        \
  template absl::StatusOr<std::optional<JobRecord>> SelectJob<Db>(           \
      Db&, std::string_view);                                                \
  template absl::StatusOr<std::vector<JobRecord>> SelectJobs<Db>(Db&);       \
  template absl::Status InsertJob<Db>(Db&, const JobRecord&);                \
  template absl::Status UpdateJobRow<Db>(Db&, const JobRecord&);             \
  template absl::Status DeleteJobRows<Db>(Db&, const JobRecord&, Timestamp); \
  template absl::Status InsertEvent<Db>(Db&, const Event&);                  \
  template absl::StatusOr<std::vector<Event>> SelectEvents<Db>(Db&, int64_t, \
                                                               int);
HPTUNE_INSTANTIATE_TABLES(SqliteConnection)
HPTUNE_INSTANTIATE_TABLES(PgConnection)
#undef HPTUNE_INSTANTIATE_TABLES

}  // namespace hptune::store::internal
