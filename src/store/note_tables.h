// Row access for notes (schema.cc, step 7 -> 8): a note's text by study
// and trial (0: the study's), and its audit rows, for SqliteStore and
// PostgresStore (templates over the connection, as in store_tables.h).
//
// Called only inside a transaction of the store, which
// checks the study and trial exist; these functions only move data. Not
// thread-safe (works on one connection).
#ifndef HPTUNE_SRC_STORE_NOTE_TABLES_H_
#define HPTUNE_SRC_STORE_NOTE_TABLES_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/store/store.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

// Replaces the text and appends `edit` as an audit row.
template <typename Db>
[[nodiscard]] absl::Status UpsertNote(Db& db, std::string_view study,
                                      int64_t trial, std::string_view text,
                                      const NoteEdit& edit);
// An empty Note when there is none.
template <typename Db>
absl::StatusOr<Note> SelectNote(Db& db, std::string_view study, int64_t trial);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_NOTE_TABLES_H_
