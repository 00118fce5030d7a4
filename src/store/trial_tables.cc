// The trials and measurements tables (sqlite_tables.h): a trial's row, its
// learning curve, and the counts the store's hot paths read.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/record_codec.h"
#include "src/store/store_tables.h"
#include "src/store/table_rows.h"

namespace hptune::store::internal {
namespace {

constexpr char kTrialColumns[] =
    "number, parameters_json, state, final_measurement_json, stopped_early, "
    "reason, client_id, origin, create_time, start_time, end_time, attempt, "
    "drained_attempts, lease_seconds, heartbeat_time";

template <typename Row>
absl::StatusOr<Trial> ReadTrial(const Row& row, std::string_view study) {
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
template <typename Row>
absl::Status BindTrialFields(Row& statement, std::string_view study,
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

template <typename Db>
absl::Status InsertMeasurementRow(Db& db, std::string_view study,
                                  int64_t number, int64_t seq,
                                  const Measurement& m) {
  auto metrics = EncodeMetrics(m.metrics);
  HPTUNE_RETURN_IF_ERROR(InRecord(metrics.status(), TrialLabel(study, number)));
  HPTUNE_ASSIGN_OR_RETURN(
      auto insert, db.Prepare("INSERT INTO measurements (study, trial_number, "
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
      auto count,
      db.Prepare("UPDATE studies SET measurement_bytes = measurement_bytes + "
                 "?2 WHERE name = ?1"));
  count.BindText(1, study).BindInt(
      2, kMeasurementRowBytes + static_cast<int64_t>(metrics->size()));
  return count.Run();
}

template <typename Row>
absl::StatusOr<Measurement> ReadMeasurement(const Row& row,
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

}  // namespace

// --- trials and measurements ---

template <typename Db>
absl::StatusOr<int64_t> SelectLastTrialNumber(Db& db, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
      db.Prepare(
          "SELECT COALESCE(MAX(number), 0) FROM trials WHERE study = ?1"));
  select.BindText(1, study);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  return row ? select.ColumnInt(0) : 0;
}

template <typename Db>
absl::Status InsertTrial(Db& db, std::string_view study, const Trial& trial) {
  {
    static const std::string kSql = absl::StrCat(
        "INSERT INTO trials (study, ", kTrialColumns,
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
        "?14, ?15, ?16)");
    HPTUNE_ASSIGN_OR_RETURN(auto insert, db.Prepare(kSql.c_str()));
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

template <typename Db>
absl::Status UpdateTrialRow(Db& db, std::string_view study,
                            const Trial& trial) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto update,
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

template <typename Db>
absl::StatusOr<std::optional<Trial>> SelectTrialRow(Db& db,
                                                    std::string_view study,
                                                    int64_t number) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kTrialColumns,
                   " FROM trials WHERE study = ?1 AND number = ?2");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  select.BindText(1, study).BindInt(2, number);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  HPTUNE_ASSIGN_OR_RETURN(Trial trial, ReadTrial(select, study));
  return trial;
}

template <typename Db>
absl::StatusOr<std::vector<Measurement>> SelectMeasurements(
    Db& db, std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select, db.Prepare("SELECT step, time, metrics_json, attempt FROM "
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

template <typename Db>
absl::StatusOr<std::optional<Trial>> SelectTrial(Db& db, std::string_view study,
                                                 int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> trial,
                          SelectTrialRow(db, study, number));
  if (!trial) return std::nullopt;
  HPTUNE_ASSIGN_OR_RETURN(trial->measurements,
                          SelectMeasurements(db, study, number, 0));
  return trial;
}

template <typename Db>
absl::StatusOr<std::optional<TrialState>> SelectTrialState(
    Db& db, std::string_view study, int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select, db.Prepare("SELECT state FROM trials WHERE study = ?1 AND "
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

template <typename Db>
absl::StatusOr<std::optional<TrialStatuses>> SelectTrialStatuses(
    Db& db, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
      db.Prepare("SELECT s.create_time, t.number, t.state, t.end_time "
                 "FROM studies AS s LEFT JOIN trials AS t ON t.study = s.name "
                 "WHERE s.name = ?1 ORDER BY t.number"));
  select.BindText(1, study);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  TrialStatuses statuses{.study_create_time =
                             FromUnixMicros(select.ColumnInt(0))};
  // A study without trials is one row whose trial columns are null.
  while (row && !select.ColumnIsNull(1)) {
    TrialStatus status;
    status.number = select.ColumnInt(1);
    const std::string state = select.ColumnText(2);
    HPTUNE_ASSIGN_OR_RETURN(status.state,
                            ParseState(ParseTrialState(state), state, [&] {
                              return TrialLabel(study, status.number);
                            }));
    status.end_time = OptionalTime(select.ColumnOptionalInt(3));
    statuses.trials.push_back(status);
    HPTUNE_ASSIGN_OR_RETURN(row, select.Step());
  }
  return statuses;
}

template <typename Db>
absl::StatusOr<std::vector<Trial>> SelectTrialRows(Db& db,
                                                   std::string_view study) {
  std::vector<Trial> trials;
  static const std::string kSql =
      absl::StrCat("SELECT ", kTrialColumns,
                   " FROM trials WHERE study = ?1 ORDER BY number");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  select.BindText(1, study);
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(Trial trial, ReadTrial(select, study));
    trials.push_back(std::move(trial));
  }
  return trials;
}

template <typename Db>
absl::StatusOr<std::vector<Trial>> SelectTrials(Db& db,
                                                std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          SelectTrialRows(db, study));
  // One pass over all measurements of the study; numbers are dense from 1,
  // so trial n sits at index n - 1.
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
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

template <typename Db>
absl::Status AppendMeasurement(Db& db, std::string_view study, int64_t number,
                               const Measurement& measurement) {
  int64_t last_seq = 0;
  {
    HPTUNE_ASSIGN_OR_RETURN(
        auto select,
        db.Prepare("SELECT COALESCE(MAX(seq), 0) FROM measurements "
                   "WHERE study = ?1 AND trial_number = ?2"));
    select.BindText(1, study).BindInt(2, number);
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (row) last_seq = select.ColumnInt(0);
  }
  return InsertMeasurementRow(db, study, number, last_seq + 1, measurement);
}

// Both stores' connections (store_tables.h).
#define HPTUNE_INSTANTIATE_TABLES(Db)                                         \
  template absl::StatusOr<int64_t> SelectLastTrialNumber<Db>(                 \
      Db&, std::string_view);                                                 \
  template absl::Status InsertTrial<Db>(Db&, std::string_view, const Trial&); \
  template absl::Status UpdateTrialRow<Db>(Db&, std::string_view,             \
                                           const Trial&);                     \
  template absl::StatusOr<std::optional<Trial>> SelectTrialRow<Db>(           \
      Db&, std::string_view, int64_t);                                        \
  template absl::StatusOr<std::optional<Trial>> SelectTrial<Db>(              \
      Db&, std::string_view, int64_t);                                        \
  template absl::StatusOr<std::vector<Trial>> SelectTrialRows<Db>(            \
      Db&, std::string_view);                                                 \
  template absl::StatusOr<std::optional<TrialStatuses>>                       \
  SelectTrialStatuses<Db>(Db&, std::string_view);                             \
  template absl::StatusOr<std::optional<TrialState>> SelectTrialState<Db>(    \
      Db&, std::string_view, int64_t);                                        \
  template absl::StatusOr<std::vector<Measurement>> SelectMeasurements<Db>(   \
      Db&, std::string_view, int64_t, int64_t);                               \
  template absl::StatusOr<std::vector<Trial>> SelectTrials<Db>(               \
      Db&, std::string_view);                                                 \
  template absl::Status AppendMeasurement<Db>(Db&, std::string_view, int64_t, \
                                              const Measurement&);
HPTUNE_INSTANTIATE_TABLES(SqliteConnection)
HPTUNE_INSTANTIATE_TABLES(PgConnection)
#undef HPTUNE_INSTANTIATE_TABLES

}  // namespace hptune::store::internal
