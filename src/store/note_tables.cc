#include "src/store/note_tables.h"

#include <string>

#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "src/store/postgres_connection.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

template <typename Db>
absl::Status UpsertNote(Db& db, std::string_view study, int64_t trial,
                        std::string_view text, const NoteEdit& edit) {
  {
    HPTUNE_ASSIGN_OR_RETURN(
        auto upsert,
        db.Prepare("INSERT INTO notes (study, trial, text) VALUES (?1, ?2, ?3) "
                   "ON CONFLICT (study, trial) DO UPDATE SET text = ?3"));
    upsert.BindText(1, study).BindInt(2, trial).BindText(3, text);
    HPTUNE_RETURN_IF_ERROR(upsert.Run());
  }
  HPTUNE_ASSIGN_OR_RETURN(
      auto audit,
      db.Prepare("INSERT INTO note_edits (study, trial, time, peer, client, "
                 "bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  audit.BindText(1, study)
      .BindInt(2, trial)
      .BindInt(3, ToUnixMicros(edit.time))
      .BindText(4, edit.peer)
      .BindText(5, edit.client)
      .BindInt(6, edit.bytes);
  return audit.Run();
}

template <typename Db>
absl::StatusOr<Note> SelectNote(Db& db, std::string_view study, int64_t trial) {
  Note note;
  {
    HPTUNE_ASSIGN_OR_RETURN(
        auto select,
        db.Prepare("SELECT text FROM notes WHERE study = ?1 AND trial = ?2"));
    select.BindText(1, study).BindInt(2, trial);
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (row) note.text = select.ColumnText(0);
  }
  HPTUNE_ASSIGN_OR_RETURN(
      auto edits, db.Prepare("SELECT time, peer, client, bytes FROM note_edits "
                             "WHERE study = ?1 AND trial = ?2 ORDER BY id"));
  edits.BindText(1, study).BindInt(2, trial);
  for (;;) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, edits.Step());
    if (!row) break;
    note.edits.push_back(NoteEdit{.time = FromUnixMicros(edits.ColumnInt(0)),
                                  .peer = edits.ColumnText(1),
                                  .client = edits.ColumnText(2),
                                  .bytes = edits.ColumnInt(3)});
  }
  return note;
}

// Both stores' connections (store_tables.h).
#define HPTUNE_INSTANTIATE_TABLES(Db)                                      \
  template absl::Status UpsertNote<Db>(Db&, std::string_view, int64_t,     \
                                       std::string_view, const NoteEdit&); \
  template absl::StatusOr<Note> SelectNote<Db>(Db&, std::string_view, int64_t);
HPTUNE_INSTANTIATE_TABLES(SqliteConnection)
HPTUNE_INSTANTIATE_TABLES(PgConnection)
#undef HPTUNE_INSTANTIATE_TABLES

}  // namespace hptune::store::internal
