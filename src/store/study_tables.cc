// The studies and designer_state tables (sqlite_tables.h): a study's row
// and the state its designer saved.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"
#include "src/store/postgres_connection.h"
#include "src/store/record_codec.h"
#include "src/store/spec_cache.h"
#include "src/store/store_tables.h"
#include "src/store/table_rows.h"

namespace hptune::store::internal {
namespace {

constexpr char kStudyColumns[] =
    "name, spec_json, state, reason, seed, create_time, custom_algorithm, "
    "resumed_trials, owner_uid";

// The spec a spec_json column holds (StudySpecToJson's form); DataLoss when
// it does not read back. Decoded once per text and connection (`cache`).
absl::StatusOr<StudySpec> ReadStoredSpec(StudySpecCache& cache,
                                         std::string_view text) {
  absl::StatusOr<StudySpec> spec = cache.Decode(text, DecodeStoredStudySpec);
  if (!spec.ok()) {
    return absl::DataLossError(absl::StrCat("cannot read stored study spec: ",
                                            spec.status().message()));
  }
  return spec;
}

template <typename Row>
absl::StatusOr<StudyRecord> ReadStudy(StudySpecCache& cache, const Row& row) {
  StudyRecord study;
  study.name = row.ColumnText(0);
  const std::string label = StudyLabel(study.name);
  auto spec = ReadStoredSpec(cache, row.ColumnText(1));
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

}  // namespace

// --- studies ---

template <typename Db>
absl::StatusOr<bool> StudyExists(Db& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(auto select,
                          db.Prepare("SELECT 1 FROM studies WHERE name = ?1"));
  select.BindText(1, name);
  return select.Step();
}

template <typename Db>
absl::StatusOr<std::optional<StudyRecord>> SelectStudy(Db& db,
                                                       std::string_view name) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kStudyColumns, " FROM studies WHERE name = ?1");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return ReadStudy(db.spec_cache(), select);
}

template <typename Db>
absl::StatusOr<std::vector<StudyRecord>> SelectStudies(Db& db) {
  static const std::string kSql =
      absl::StrCat("SELECT ", kStudyColumns, " FROM studies ORDER BY id");
  HPTUNE_ASSIGN_OR_RETURN(auto select, db.Prepare(kSql.c_str()));
  std::vector<StudyRecord> studies;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study,
                            ReadStudy(db.spec_cache(), select));
    studies.push_back(std::move(study));
  }
  return studies;
}

template <typename Db>
absl::Status InsertStudy(Db& db, const StudyRecord& study) {
  static const std::string kSql =
      absl::StrCat("INSERT INTO studies (", kStudyColumns,
                   ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  HPTUNE_ASSIGN_OR_RETURN(auto insert, db.Prepare(kSql.c_str()));
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

template <typename Db>
absl::StatusOr<UserUsage> SelectUserUsage(Db& db, int64_t uid) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
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

template <typename Db>
absl::StatusOr<std::optional<int64_t>> SelectStudyOwner(Db& db,
                                                        std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select, db.Prepare("SELECT owner_uid FROM studies WHERE name = ?1"));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::nullopt;
  return select.ColumnInt(0);
}

template <typename Db>
absl::Status UpdateStudyState(Db& db, std::string_view name, StudyState state,
                              std::string_view reason) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto update,
      db.Prepare("UPDATE studies SET state = ?2, reason = ?3 WHERE name = ?1"));
  update.BindText(1, name).BindText(2, ToString(state)).BindText(3, reason);
  return update.Run();
}

template <typename Db>
absl::Status UpdateStudySpec(Db& db, std::string_view name,
                             const StudySpec& spec) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto update,
      db.Prepare("UPDATE studies SET spec_json = ?2 WHERE name = ?1"));
  update.BindText(1, name).BindText(2, StudySpecToJson(spec));
  return update.Run();
}

template <typename Db>
absl::Status DeleteStudyRow(Db& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(auto remove,
                          db.Prepare("DELETE FROM studies WHERE name = ?1"));
  remove.BindText(1, name);
  return remove.Run();
}

// --- designer state ---

template <typename Db>
absl::Status UpsertDesignerState(Db& db, std::string_view study,
                                 std::string_view state) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto upsert,
      db.Prepare("INSERT INTO designer_state (study, state) VALUES (?1, ?2) "
                 "ON CONFLICT (study) DO UPDATE SET state = excluded.state"));
  upsert.BindText(1, study).BindBlob(2, state);
  return upsert.Run();
}

template <typename Db>
absl::StatusOr<std::string> SelectDesignerState(Db& db,
                                                std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(
      auto select,
      db.Prepare("SELECT state FROM designer_state WHERE study = ?1"));
  select.BindText(1, study);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::string();
  return select.ColumnBlob(0);
}

// Both stores' connections (store_tables.h).
#define HPTUNE_INSTANTIATE_TABLES(Db)                                       \
  template absl::StatusOr<bool> StudyExists<Db>(Db&, std::string_view);     \
  template absl::StatusOr<std::optional<StudyRecord>> SelectStudy<Db>(      \
      Db&, std::string_view);                                               \
  template absl::StatusOr<std::vector<StudyRecord>> SelectStudies<Db>(Db&); \
  template absl::Status InsertStudy<Db>(Db&, const StudyRecord&);           \
  template absl::StatusOr<UserUsage> SelectUserUsage<Db>(Db&, int64_t);     \
  template absl::StatusOr<std::optional<int64_t>> SelectStudyOwner<Db>(     \
      Db&, std::string_view);                                               \
  template absl::Status UpdateStudyState<Db>(Db&, std::string_view,         \
                                             StudyState, std::string_view); \
  template absl::Status UpdateStudySpec<Db>(Db&, std::string_view,          \
                                            const StudySpec&);              \
  template absl::Status DeleteStudyRow<Db>(Db&, std::string_view);          \
  template absl::Status UpsertDesignerState<Db>(Db&, std::string_view,      \
                                                std::string_view);          \
  template absl::StatusOr<std::string> SelectDesignerState<Db>(             \
      Db&, std::string_view);
HPTUNE_INSTANTIATE_TABLES(SqliteConnection)
HPTUNE_INSTANTIATE_TABLES(PgConnection)
#undef HPTUNE_INSTANTIATE_TABLES

}  // namespace hptune::store::internal
