#include "src/store/sqlite_tables.h"

#include <concepts>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "src/store/record_codec.h"

namespace hptune::store::internal {
namespace {

// Names the record a decoding error is about.
absl::Status InRecord(const absl::Status& status, const std::string& record) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(record, ": ", status.message()));
}

std::string StudyLabel(std::string_view study) {
  return absl::StrCat("study \"", std::string(study), "\"");
}

std::string TrialLabel(std::string_view study, int64_t number) {
  return absl::StrCat("study \"", std::string(study), "\": trial ", number);
}

// A state column back to its enum; DataLoss for a name this build does not
// know.
template <typename State>
absl::StatusOr<State> ParseState(std::optional<State> parsed,
                                 const std::string& text,
                                 const std::string& record) {
  if (parsed) return *parsed;
  return absl::DataLossError(
      absl::StrCat(record, ": stored state \"", text, "\" is unknown"));
}

// The same with the record's label made only for the error: the hot reads
// (a trial's state on every measurement and check) need not build it.
template <typename State, std::invocable MakeLabel>
absl::StatusOr<State> ParseState(std::optional<State> parsed,
                                 const std::string& text,
                                 const MakeLabel& make_label) {
  if (parsed) return *parsed;
  return ParseState(parsed, text, std::string(make_label()));
}

std::optional<int64_t> OptionalMicros(const std::optional<Timestamp>& t) {
  if (!t) return std::nullopt;
  return ToUnixMicros(*t);
}

std::optional<Timestamp> OptionalTime(std::optional<int64_t> micros) {
  if (!micros) return std::nullopt;
  return FromUnixMicros(*micros);
}

// --- studies ---

constexpr char kStudyColumns[] =
    "name, spec_json, state, reason, seed, create_time, custom_algorithm, "
    "resumed_trials, owner_uid";

// The spec a spec_json column holds (StudySpecToJson's form); DataLoss when
// it does not read back. GetStudy, SuggestTrials and CompleteTrial each read
// their study's spec, and parsing costs more than the read
// (throughput_benchmark --baseline, two GetStudy calls: 0.23 ms of CPU with
// decodes kept, 0.32 ms without); a stored spec never changes, so the last
// few texts' decodes are kept, keyed by the whole text.
absl::StatusOr<StudySpec> ParseStoredSpec(std::string_view text) {
  constexpr size_t kMemoEntries = 16;
  static Mutex mutex;
  static auto* memo ABSL_PT_GUARDED_BY(mutex) =
      new std::map<std::string, StudySpec, std::less<>>();
  {
    MutexLock lock(&mutex);
    auto it = memo->find(text);
    if (it != memo->end()) return it->second;
  }
  absl::StatusOr<StudySpec> spec = ParseStudySpecJson(text);
  if (!spec.ok()) {
    return absl::DataLossError(absl::StrCat("cannot read stored study spec: ",
                                            spec.status().message()));
  }
  MutexLock lock(&mutex);
  if (memo->size() >= kMemoEntries) memo->clear();
  memo->emplace(std::string(text), *spec);
  return spec;
}

absl::StatusOr<StudyRecord> ReadStudy(const Statement& row) {
  StudyRecord study;
  study.name = row.ColumnText(0);
  const std::string label = StudyLabel(study.name);
  auto spec = ParseStoredSpec(row.ColumnText(1));
  HPTUNE_RETURN_IF_ERROR(InRecord(spec.status(), label));
  study.spec = *std::move(spec);
  study.spec.custom_algorithm = row.ColumnText(6);
  study.resumed_trials = static_cast<int>(row.ColumnInt(7));
  study.owner_uid = row.ColumnInt(8);
  const std::string state = row.ColumnText(2);
  HPTUNE_ASSIGN_OR_RETURN(study.state,
                          ParseState(ParseStudyState(state), state, label));
  study.reason = row.ColumnText(3);
  study.seed = static_cast<uint64_t>(row.ColumnInt(4));
  study.create_time = FromUnixMicros(row.ColumnInt(5));
  return study;
}

// --- trials ---

constexpr char kTrialColumns[] =
    "number, parameters_json, state, final_measurement_json, stopped_early, "
    "reason, client_id, origin, create_time, start_time, end_time, attempt, "
    "drained_attempts, lease_seconds, heartbeat_time";

absl::StatusOr<Trial> ReadTrial(const Statement& row, std::string_view study) {
  Trial trial;
  trial.number = row.ColumnInt(0);
  const std::string label = TrialLabel(study, trial.number);
  auto parameters = DecodeParameters(row.ColumnText(1));
  HPTUNE_RETURN_IF_ERROR(InRecord(parameters.status(), label));
  trial.parameters = *std::move(parameters);
  const std::string state = row.ColumnText(2);
  HPTUNE_ASSIGN_OR_RETURN(trial.state,
                          ParseState(ParseTrialState(state), state, label));
  if (!row.ColumnIsNull(3)) {
    auto final_measurement = DecodeMeasurement(row.ColumnText(3));
    HPTUNE_RETURN_IF_ERROR(InRecord(final_measurement.status(), label));
    trial.final_measurement = *std::move(final_measurement);
  }
  trial.stopped_early = row.ColumnInt(4) != 0;
  trial.reason = row.ColumnText(5);
  trial.client_id = row.ColumnText(6);
  trial.origin = row.ColumnText(7);
  trial.create_time = FromUnixMicros(row.ColumnInt(8));
  trial.start_time = OptionalTime(row.ColumnOptionalInt(9));
  trial.end_time = OptionalTime(row.ColumnOptionalInt(10));
  trial.attempt = static_cast<int>(row.ColumnInt(11));
  trial.drained_attempts = static_cast<int>(row.ColumnInt(12));
  trial.lease_seconds = static_cast<int>(row.ColumnInt(13));
  trial.heartbeat_time = OptionalTime(row.ColumnOptionalInt(14));
  return trial;
}

// Binds the trial's columns other than study and number to ?3 ... ?16.
absl::Status BindTrialFields(Statement& statement, std::string_view study,
                             const Trial& trial) {
  const std::string label = TrialLabel(study, trial.number);
  auto parameters = EncodeParameters(trial.parameters);
  HPTUNE_RETURN_IF_ERROR(InRecord(parameters.status(), label));
  statement.BindText(3, *parameters).BindText(4, ToString(trial.state));
  if (trial.final_measurement) {
    auto final_measurement = EncodeMeasurement(*trial.final_measurement);
    HPTUNE_RETURN_IF_ERROR(InRecord(final_measurement.status(), label));
    statement.BindText(5, *final_measurement);
  } else {
    statement.BindNull(5);
  }
  statement.BindInt(6, trial.stopped_early ? 1 : 0)
      .BindText(7, trial.reason)
      .BindText(8, trial.client_id)
      .BindText(9, trial.origin)
      .BindInt(10, ToUnixMicros(trial.create_time))
      .BindOptionalInt(11, OptionalMicros(trial.start_time))
      .BindOptionalInt(12, OptionalMicros(trial.end_time))
      .BindInt(13, trial.attempt)
      .BindInt(14, trial.drained_attempts)
      .BindInt(15, trial.lease_seconds)
      .BindOptionalInt(16, OptionalMicros(trial.heartbeat_time));
  return absl::OkStatus();
}

absl::Status InsertMeasurementRow(SqliteConnection& db, std::string_view study,
                                  int64_t number, int64_t seq,
                                  const Measurement& m) {
  auto metrics = EncodeMetrics(m.metrics);
  HPTUNE_RETURN_IF_ERROR(InRecord(metrics.status(), TrialLabel(study, number)));
  HPTUNE_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO measurements (study, trial_number, "
                 "seq, step, time, metrics_json, attempt) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  insert.BindText(1, study)
      .BindInt(2, number)
      .BindInt(3, seq)
      .BindInt(4, m.step)
      .BindInt(5, ToUnixMicros(m.time))
      .BindText(6, *metrics)
      .BindInt(7, m.attempt);
  HPTUNE_RETURN_IF_ERROR(insert.Run());
  // The owner's usage (Store::GetUserUsage), in the row's transaction.
  HPTUNE_ASSIGN_OR_RETURN(
      Statement count,
      db.Prepare("UPDATE studies SET measurement_bytes = measurement_bytes + "
                 "?2 WHERE name = ?1"));
  count.BindText(1, study).BindInt(
      2, kMeasurementRowBytes + static_cast<int64_t>(metrics->size()));
  return count.Run();
}

absl::StatusOr<Measurement> ReadMeasurement(const Statement& row,
                                            std::string_view study,
                                            int64_t number) {
  // Columns: step, time, metrics_json, attempt.
  Measurement m;
  m.step = row.ColumnInt(0);
  m.time = FromUnixMicros(row.ColumnInt(1));
  auto metrics = DecodeMetrics(row.ColumnText(2));
  HPTUNE_RETURN_IF_ERROR(InRecord(metrics.status(), TrialLabel(study, number)));
  m.metrics = *std::move(metrics);
  m.attempt = static_cast<int>(row.ColumnInt(3));
  return m;
}

// --- jobs ---

constexpr char kJobColumns[] =
    "job_id, training_input_json, study_name, state, error_message, "
    "create_time, start_time, end_time, slurm_json, labels_json, owner_uid, "
    "owner_gid";

absl::StatusOr<JobRecord> ReadJob(const Statement& row) {
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
absl::Status BindJob(Statement& statement, const JobRecord& job) {
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

// --- studies ---

absl::StatusOr<bool> StudyExists(SqliteConnection& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(Statement select,
                          db.Prepare("SELECT 1 FROM studies WHERE name = ?1"));
  select.BindText(1, name);
  return select.Step();
}

absl::StatusOr<std::optional<Timestamp>> SelectStudyCreateTime(
    SqliteConnection& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT create_time FROM studies WHERE name = ?1"));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return FromUnixMicros(select.ColumnInt(0));
}

absl::StatusOr<std::optional<StudyRecord>> SelectStudy(SqliteConnection& db,
                                                       std::string_view name) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kStudyColumns, " FROM studies WHERE name = ?1");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return ReadStudy(select);
}

absl::StatusOr<std::vector<StudyRecord>> SelectStudies(SqliteConnection& db) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kStudyColumns, " FROM studies ORDER BY id");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  std::vector<StudyRecord> studies;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, ReadStudy(select));
    studies.push_back(std::move(study));
  }
  return studies;
}

absl::Status InsertStudy(SqliteConnection& db, const StudyRecord& study) {
  static const std::string kSql =
      absl::StrCat("INSERT INTO studies (", kStudyColumns,
                   ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  HPTUNE_ASSIGN_OR_RETURN(Statement insert, db.Prepare(kSql.c_str()));
  insert.BindText(1, study.name)
      .BindText(2, StudySpecToJson(study.spec))
      .BindText(3, ToString(study.state))
      .BindText(4, study.reason)
      .BindInt(5, static_cast<int64_t>(study.seed))
      .BindInt(6, ToUnixMicros(study.create_time))
      .BindText(7, study.spec.custom_algorithm)
      .BindInt(8, study.resumed_trials)
      .BindInt(9, study.owner_uid);
  return insert.Run();
}

absl::StatusOr<UserUsage> SelectUserUsage(SqliteConnection& db, int64_t uid) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT count(*), COALESCE(SUM(measurement_bytes), 0) "
                 "FROM studies WHERE owner_uid = ?1"));
  select.BindInt(1, uid);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  UserUsage usage{.uid = uid};
  if (row) {
    usage.studies = select.ColumnInt(0);
    usage.measurement_bytes = select.ColumnInt(1);
  }
  return usage;
}

absl::StatusOr<std::optional<int64_t>> SelectStudyOwner(SqliteConnection& db,
                                                        std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT owner_uid FROM studies WHERE name = ?1"));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return select.ColumnInt(0);
}

absl::Status UpdateStudyState(SqliteConnection& db, std::string_view name,
                              StudyState state, std::string_view reason) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement update,
      db.Prepare("UPDATE studies SET state = ?2, reason = ?3 WHERE name = ?1"));
  update.BindText(1, name).BindText(2, ToString(state)).BindText(3, reason);
  return update.Run();
}

absl::Status DeleteStudyRow(SqliteConnection& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(Statement remove,
                          db.Prepare("DELETE FROM studies WHERE name = ?1"));
  remove.BindText(1, name);
  return remove.Run();
}

// --- trials and measurements ---

absl::StatusOr<int64_t> SelectLastTrialNumber(SqliteConnection& db,
                                              std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare(
          "SELECT COALESCE(MAX(number), 0) FROM trials WHERE study = ?1"));
  select.BindText(1, study);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  return row ? select.ColumnInt(0) : 0;
}

absl::Status InsertTrial(SqliteConnection& db, std::string_view study,
                         const Trial& trial) {
  {
    static const std::string kSql = absl::StrCat(
        "INSERT INTO trials (study, ", kTrialColumns,
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
        "?14, ?15, ?16)");
    HPTUNE_ASSIGN_OR_RETURN(Statement insert, db.Prepare(kSql.c_str()));
    insert.BindText(1, study).BindInt(2, trial.number);
    HPTUNE_RETURN_IF_ERROR(BindTrialFields(insert, study, trial));
    HPTUNE_RETURN_IF_ERROR(insert.Run());
  }
  for (size_t i = 0; i < trial.measurements.size(); ++i) {
    HPTUNE_RETURN_IF_ERROR(InsertMeasurementRow(db, study, trial.number,
                                                static_cast<int64_t>(i) + 1,
                                                trial.measurements[i]));
  }
  return absl::OkStatus();
}

absl::Status UpdateTrialRow(SqliteConnection& db, std::string_view study,
                            const Trial& trial) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement update,
      db.Prepare("UPDATE trials SET parameters_json = ?3, state = ?4, "
                 "final_measurement_json = ?5, stopped_early = ?6, "
                 "reason = ?7, client_id = ?8, origin = ?9, create_time = ?10, "
                 "start_time = ?11, end_time = ?12, attempt = ?13, "
                 "drained_attempts = ?14, lease_seconds = ?15, "
                 "heartbeat_time = ?16 "
                 "WHERE study = ?1 AND number = ?2"));
  update.BindText(1, study).BindInt(2, trial.number);
  HPTUNE_RETURN_IF_ERROR(BindTrialFields(update, study, trial));
  return update.Run();
}

absl::StatusOr<std::optional<Trial>> SelectTrialRow(SqliteConnection& db,
                                                    std::string_view study,
                                                    int64_t number) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kTrialColumns,
                   " FROM trials WHERE study = ?1 AND number = ?2");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  select.BindText(1, study).BindInt(2, number);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  HPTUNE_ASSIGN_OR_RETURN(Trial trial, ReadTrial(select, study));
  return trial;
}

absl::StatusOr<std::vector<Measurement>> SelectMeasurements(
    SqliteConnection& db, std::string_view study, int64_t number,
    int64_t skip) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT step, time, metrics_json, attempt FROM "
                 "measurements WHERE study = ?1 AND "
                 "trial_number = ?2 AND seq > ?3 ORDER BY seq"));
  select.BindText(1, study).BindInt(2, number).BindInt(3, skip);
  std::vector<Measurement> measurements;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(Measurement m,
                            ReadMeasurement(select, study, number));
    measurements.push_back(std::move(m));
  }
  return measurements;
}

absl::StatusOr<std::optional<Trial>> SelectTrial(SqliteConnection& db,
                                                 std::string_view study,
                                                 int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> trial,
                          SelectTrialRow(db, study, number));
  if (!trial) return std::nullopt;
  HPTUNE_ASSIGN_OR_RETURN(trial->measurements,
                          SelectMeasurements(db, study, number, 0));
  return trial;
}

absl::StatusOr<std::optional<TrialState>> SelectTrialState(
    SqliteConnection& db, std::string_view study, int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT state FROM trials WHERE study = ?1 AND "
                 "number = ?2"));
  select.BindText(1, study).BindInt(2, number);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  const std::string text = select.ColumnText(0);
  HPTUNE_ASSIGN_OR_RETURN(
      TrialState state, ParseState(ParseTrialState(text), text,
                                   [&] { return TrialLabel(study, number); }));
  return state;
}

absl::StatusOr<std::vector<TrialStatus>> SelectTrialStatuses(
    SqliteConnection& db, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select, db.Prepare("SELECT number, state, end_time FROM trials "
                                   "WHERE study = ?1 ORDER BY number"));
  select.BindText(1, study);
  std::vector<TrialStatus> statuses;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    TrialStatus status;
    status.number = select.ColumnInt(0);
    const std::string state = select.ColumnText(1);
    HPTUNE_ASSIGN_OR_RETURN(status.state,
                            ParseState(ParseTrialState(state), state, [&] {
                              return TrialLabel(study, status.number);
                            }));
    status.end_time = OptionalTime(select.ColumnOptionalInt(2));
    statuses.push_back(status);
  }
  return statuses;
}

absl::StatusOr<std::vector<Trial>> SelectTrialRows(SqliteConnection& db,
                                                   std::string_view study) {
  std::vector<Trial> trials;
  static const std::string kSql =
      absl::StrCat("SELECT ", kTrialColumns,
                   " FROM trials WHERE study = ?1 ORDER BY number");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  select.BindText(1, study);
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(Trial trial, ReadTrial(select, study));
    trials.push_back(std::move(trial));
  }
  return trials;
}

absl::StatusOr<std::vector<Trial>> SelectTrials(SqliteConnection& db,
                                                std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          SelectTrialRows(db, study));
  // One pass over all measurements of the study; numbers are dense from 1,
  // so trial n sits at index n - 1.
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT step, time, metrics_json, attempt, trial_number "
                 "FROM measurements WHERE study = ?1 "
                 "ORDER BY trial_number, seq"));
  select.BindText(1, study);
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    const int64_t number = select.ColumnInt(4);
    if (number < 1 || number > static_cast<int64_t>(trials.size()) ||
        trials[number - 1].number != number) {
      return absl::DataLossError(absl::StrCat(
          StudyLabel(study), ": trial numbers are not dense at ", number));
    }
    HPTUNE_ASSIGN_OR_RETURN(Measurement m,
                            ReadMeasurement(select, study, number));
    trials[number - 1].measurements.push_back(std::move(m));
  }
  return trials;
}

absl::Status AppendMeasurement(SqliteConnection& db, std::string_view study,
                               int64_t number, const Measurement& measurement) {
  int64_t last_seq = 0;
  {
    HPTUNE_ASSIGN_OR_RETURN(
        Statement select,
        db.Prepare("SELECT COALESCE(MAX(seq), 0) FROM measurements "
                   "WHERE study = ?1 AND trial_number = ?2"));
    select.BindText(1, study).BindInt(2, number);
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (row) last_seq = select.ColumnInt(0);
  }
  return InsertMeasurementRow(db, study, number, last_seq + 1, measurement);
}

// --- designer state ---

absl::Status UpsertDesignerState(SqliteConnection& db, std::string_view study,
                                 std::string_view state) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement upsert,
      db.Prepare("INSERT INTO designer_state (study, state) VALUES (?1, ?2) "
                 "ON CONFLICT (study) DO UPDATE SET state = excluded.state"));
  upsert.BindText(1, study).BindBlob(2, state);
  return upsert.Run();
}

absl::StatusOr<std::string> SelectDesignerState(SqliteConnection& db,
                                                std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT state FROM designer_state WHERE study = ?1"));
  select.BindText(1, study);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::string();
  return select.ColumnBlob(0);
}

// --- jobs ---

absl::StatusOr<bool> JobExists(SqliteConnection& db, std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(Statement select,
                          db.Prepare("SELECT 1 FROM jobs WHERE job_id = ?1"));
  select.BindText(1, job_id);
  return select.Step();
}

absl::StatusOr<std::optional<JobRecord>> SelectJob(SqliteConnection& db,
                                                   std::string_view job_id) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE job_id = ?1");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  select.BindText(1, job_id);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return ReadJob(select);
}

absl::StatusOr<std::vector<JobRecord>> SelectJobs(SqliteConnection& db) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kJobColumns, " FROM jobs ORDER BY id");
  HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare(kSql.c_str()));
  std::vector<JobRecord> jobs;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(JobRecord job, ReadJob(select));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::Status InsertJob(SqliteConnection& db, const JobRecord& job) {
  static const std::string kSql = absl::StrCat(
      "INSERT INTO jobs (", kJobColumns,
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  HPTUNE_ASSIGN_OR_RETURN(Statement insert, db.Prepare(kSql.c_str()));
  HPTUNE_RETURN_IF_ERROR(BindJob(insert, job));
  return insert.Run();
}

absl::Status UpdateJobRow(SqliteConnection& db, const JobRecord& job) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement update,
      db.Prepare(
          "UPDATE jobs SET training_input_json = ?2, study_name = ?3, "
          "state = ?4, error_message = ?5, create_time = ?6, "
          "start_time = ?7, end_time = ?8, slurm_json = ?9, labels_json = ?10, "
          "owner_uid = ?11, owner_gid = ?12 WHERE job_id = ?1"));
  HPTUNE_RETURN_IF_ERROR(BindJob(update, job));
  return update.Run();
}

// --- events ---

absl::Status InsertEvent(SqliteConnection& db, const Event& event) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement insert,
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

absl::StatusOr<std::vector<Event>> SelectEvents(SqliteConnection& db,
                                                int64_t after_id, int limit) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
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

}  // namespace hptune::store::internal
