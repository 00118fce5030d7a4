#include "src/store/schema.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/status.h"
#include "src/store/legacy_study_spec.h"

namespace hptune::store::internal {
namespace {

// Migration steps: step i takes the schema from version i to version i + 1.
// Append new steps; never edit a released one (files in the field ran it).
//
// Conventions: times are INTEGER unix microseconds (exact); a study's spec
// is its canonical config JSON (StudySpecToJson), parameter assignments and
// metrics are JSON text (see record_codec.h); trials and
// measurements hang off their study by name with ON DELETE CASCADE, so
// DeleteStudy is one statement. Jobs and events name studies without a
// foreign key: a job outlives its study's deletion, and the event log is
// history. STRICT makes SQLite reject a value of the wrong type.
// Migrations() lists the steps in order.

// 0 -> 1: the initial schema.
constexpr char kInitialSchema[] = R"sql(
CREATE TABLE studies (
  id INTEGER PRIMARY KEY,  -- creation order
  name TEXT NOT NULL UNIQUE,
  spec_json TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT NOT NULL,
  seed INTEGER NOT NULL,  -- the uint64 seed's bits
  create_time INTEGER NOT NULL
) STRICT;

CREATE TABLE trials (
  study TEXT NOT NULL REFERENCES studies(name) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  parameters_json TEXT NOT NULL,
  state TEXT NOT NULL,
  final_measurement_json TEXT,  -- NULL when none
  stopped_early INTEGER NOT NULL,
  reason TEXT NOT NULL,
  client_id TEXT NOT NULL,
  origin TEXT NOT NULL,
  create_time INTEGER NOT NULL,
  start_time INTEGER,
  end_time INTEGER,
  PRIMARY KEY (study, number)
) STRICT, WITHOUT ROWID;

CREATE TABLE measurements (
  study TEXT NOT NULL,
  trial_number INTEGER NOT NULL,
  seq INTEGER NOT NULL,  -- 1, 2, ... in report order within the trial
  step INTEGER NOT NULL,
  time INTEGER NOT NULL,
  metrics_json TEXT NOT NULL,
  PRIMARY KEY (study, trial_number, seq),
  FOREIGN KEY (study, trial_number) REFERENCES trials(study, number)
    ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE designer_state (
  study TEXT PRIMARY KEY REFERENCES studies(name) ON DELETE CASCADE,
  state BLOB NOT NULL
) STRICT;

CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,  -- creation order
  job_id TEXT NOT NULL UNIQUE,
  training_input_json TEXT NOT NULL,
  study_name TEXT NOT NULL,
  state TEXT NOT NULL,
  error_message TEXT NOT NULL,
  create_time INTEGER NOT NULL,
  start_time INTEGER,
  end_time INTEGER
) STRICT;

-- AUTOINCREMENT: ids are never reused, so a watcher resuming after an id
-- never misses or repeats an event.
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  kind TEXT NOT NULL,
  study TEXT NOT NULL,
  job_id TEXT NOT NULL,
  trial_number INTEGER NOT NULL,
  detail TEXT NOT NULL
) STRICT;
)sql";

// 1 -> 2: a job's own sbatch options (JSON, record_codec.h).
constexpr char kJobSlurmOptions[] = R"sql(
ALTER TABLE jobs ADD COLUMN slurm_json TEXT NOT NULL DEFAULT '{}';
)sql";

// 2 -> 3: a job's labels (JSON, record_codec.h).
constexpr char kJobLabels[] = R"sql(
ALTER TABLE jobs ADD COLUMN labels_json TEXT NOT NULL DEFAULT '{}';
)sql";

// 3 -> 4: attempts (Trial::attempt, Measurement::attempt); 0 for what
// was stored before: unknown.
constexpr char kAttempts[] = R"sql(
ALTER TABLE trials ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN drained_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
)sql";

// 4 -> 5: who submitted a job (JobOwner); -1 for what was stored
// before: the runner's own user.
constexpr char kJobOwners[] = R"sql(
ALTER TABLE jobs ADD COLUMN owner_uid INTEGER NOT NULL DEFAULT -1;
ALTER TABLE jobs ADD COLUMN owner_gid INTEGER NOT NULL DEFAULT -1;
)sql";

// 5 -> 6: a study's spec in its canonical config form, and the trials
// it resumed in a column of their own; ConvertLegacyStudySpecs
// rewrites what was stored before.
constexpr char kCanonicalSpecs[] = R"sql(
ALTER TABLE studies ADD COLUMN custom_algorithm TEXT NOT NULL DEFAULT '';
ALTER TABLE studies ADD COLUMN resumed_trials INTEGER NOT NULL DEFAULT 0;
)sql";

// 6 -> 7: ask/tell leases (Trial::lease_seconds, heartbeat_time); none
// for what was stored before.
constexpr char kTrialLeases[] = R"sql(
ALTER TABLE trials ADD COLUMN lease_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN heartbeat_time INTEGER;
)sql";

// 7 -> 8: notes on studies (trial 0) and trials (Store::SetNote), and an
// audit row per save.
constexpr char kNotes[] = R"sql(
CREATE TABLE notes (
  study TEXT NOT NULL REFERENCES studies(name) ON DELETE CASCADE,
  trial INTEGER NOT NULL,  -- 0: the study's own
  text TEXT NOT NULL,
  PRIMARY KEY (study, trial)
) STRICT;
CREATE TABLE note_edits (
  id INTEGER PRIMARY KEY,
  study TEXT NOT NULL REFERENCES studies(name) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  time INTEGER NOT NULL,
  peer TEXT NOT NULL,
  client TEXT NOT NULL,
  bytes INTEGER NOT NULL
) STRICT;
CREATE INDEX note_edits_by_note ON note_edits (study, trial, id);
)sql";

// 8 -> 9: who made each study (StudyRecord::owner_uid: its job's owner
// where a job names it, else none) and the bytes of its measurements
// (Store::GetUserUsage), counted once here and kept as rows are added.
constexpr char kStudyOwners[] = R"sql(
ALTER TABLE studies ADD COLUMN owner_uid INTEGER NOT NULL DEFAULT -1;
ALTER TABLE studies ADD COLUMN measurement_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE studies SET owner_uid = COALESCE(
  (SELECT owner_uid FROM jobs WHERE jobs.study_name = studies.name
   ORDER BY jobs.id DESC LIMIT 1), -1);
UPDATE studies SET measurement_bytes = (
  SELECT COALESCE(SUM(32 + length(CAST(metrics_json AS BLOB))), 0)
  FROM measurements WHERE measurements.study = studies.name);
CREATE INDEX studies_by_owner ON studies (owner_uid);
)sql";
static_assert(kMeasurementRowBytes == 32, "kStudyOwners counts 32 a row");

const std::vector<std::string>& Migrations() {
  static const auto* const kMigrations = new std::vector<std::string>{
      kInitialSchema,  kJobSlurmOptions, kJobLabels, kAttempts,   kJobOwners,
      kCanonicalSpecs, kTrialLeases,     kNotes,     kStudyOwners};
  return *kMigrations;
}

// The step whose stored data C++ converts, after its SQL.
constexpr int64_t kCanonicalSpecStep = 5;

struct FileIdentity {
  int64_t application_id = 0;
  int64_t user_version = 0;
  int64_t schema_objects = 0;  // Tables, indexes, ... in sqlite_master.
};

absl::StatusOr<FileIdentity> ReadIdentity(SqliteConnection& connection) {
  // One statement, so one snapshot: read one at a time, the three could
  // straddle another process's migration (an empty sqlite_master, then its
  // user_version) and a file being created look like a foreign one.
  // The first read of a file that is not SQLite fails here with NOTADB.
  static constexpr char kSql[] =
      "SELECT (SELECT count(*) FROM sqlite_master),"
      " (SELECT application_id FROM pragma_application_id),"
      " (SELECT user_version FROM pragma_user_version)";
  HPTUNE_ASSIGN_OR_RETURN(Statement statement, connection.Prepare(kSql));
  HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
  if (!row) {
    return absl::InternalError(absl::StrCat("sqlite store \"",
                                            connection.path(), "\": ", kSql,
                                            " returned no row"));
  }
  FileIdentity identity;
  identity.schema_objects = statement.ColumnInt(0);
  identity.application_id = statement.ColumnInt(1);
  identity.user_version = statement.ColumnInt(2);
  return identity;
}

// OK for an hptune database this build can read, or an empty file.
absl::Status CheckIdentity(const std::string& path,
                           const FileIdentity& identity) {
  const bool empty = identity.application_id == 0 &&
                     identity.user_version == 0 && identity.schema_objects == 0;
  if (empty) return absl::OkStatus();
  if (identity.application_id != kApplicationId) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "sqlite store \"%s\": not an hptune database (application_id "
        "0x%08x, expected 0x%08x; %d schema objects)",
        path, identity.application_id, kApplicationId,
        identity.schema_objects));
  }
  if (identity.user_version > CurrentSchemaVersion()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "sqlite store \"", path, "\": schema version ", identity.user_version,
        " is newer than this hptune supports (", CurrentSchemaVersion(),
        "); open it with a newer hptune"));
  }
  return absl::OkStatus();
}

absl::Status Migrate(SqliteConnection& connection) {
  return connection.InTransaction(TransactionMode::kWrite, [&] {
    // Read again under the write lock: another process may have migrated
    // the file since the check outside the transaction.
    HPTUNE_ASSIGN_OR_RETURN(FileIdentity identity, ReadIdentity(connection));
    HPTUNE_RETURN_IF_ERROR(CheckIdentity(connection.path(), identity));
    const auto& steps = Migrations();
    for (int64_t v = identity.user_version; v < CurrentSchemaVersion(); ++v) {
      HPTUNE_RETURN_IF_ERROR(connection.Exec(steps[v]));
      if (v == kCanonicalSpecStep) {
        HPTUNE_RETURN_IF_ERROR(ConvertLegacyStudySpecs(connection));
      }
    }
    // Both pragmas write the database header, inside this transaction.
    return connection.Exec(
        absl::StrCat("PRAGMA application_id = ", kApplicationId,
                     "; PRAGMA user_version = ", CurrentSchemaVersion(), ";"));
  });
}

}  // namespace

int CurrentSchemaVersion() { return static_cast<int>(Migrations().size()); }

absl::Status PrepareDatabase(SqliteConnection& connection) {
  // Connection settings; they cannot change inside a transaction.
  // synchronous=NORMAL in WAL mode: a commit is written to the WAL (the OS
  // has it) before COMMIT returns, so it survives any crash of the process,
  // SIGKILL included; only the fsync is left to checkpoints, so an OS crash
  // or power loss may lose the last commits, never corrupt the file. FULL
  // would fsync every commit (every measurement) for that last case.
  // wal_autocheckpoint=0: SqliteStore checkpoints on a thread of its own
  // (wal_checkpointer.h), never inside a commit.
  HPTUNE_RETURN_IF_ERROR(
      connection.Exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
                      "PRAGMA wal_autocheckpoint = 0;"));

  FileIdentity identity;
  HPTUNE_RETURN_IF_ERROR(connection.RetryWhileBusy([&]() -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(identity, ReadIdentity(connection));
    return absl::OkStatus();
  }));
  HPTUNE_RETURN_IF_ERROR(CheckIdentity(connection.path(), identity));

  // WAL: readers never block the writer and a writer never blocks readers;
  // the mode is stored in the file, so this is a no-op after the first open.
  std::string journal_mode;
  HPTUNE_RETURN_IF_ERROR(connection.RetryWhileBusy([&]() -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(Statement statement,
                            connection.Prepare("PRAGMA journal_mode = WAL"));
    HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
    journal_mode = row ? statement.ColumnText(0) : "";
    return absl::OkStatus();
  }));
  if (journal_mode != "wal") {
    return absl::FailedPreconditionError(
        absl::StrCat("sqlite store \"", connection.path(),
                     "\": cannot use WAL journal mode (got \"", journal_mode,
                     "\"); is the file on a network file system?"));
  }

  if (identity.user_version == CurrentSchemaVersion()) return absl::OkStatus();
  return Migrate(connection);
}

}  // namespace hptune::store::internal
