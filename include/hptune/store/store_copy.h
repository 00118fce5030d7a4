// CopyStore: a whole store copied into another, empty one, by URL: SQLite
// to PostgreSQL, back, or SQLite to SQLite. What `hptune store migrate` runs;
// composition roots call it, nothing else does.
//
// Every table is copied row by row, every column as stored: the same study
// and job ids, trial numbers, times, event ids, designer-state bytes, notes
// and their edits, usage counters. New rows of the copy continue after the
// copied ids. Each side is opened through OpenStore first, so an older schema
// is migrated (a newer one refused, naming its version). The source is read
// in one snapshot while its runner lease is held as a server's (a running
// `hptune serve` refuses the copy with the lease's message); the target is
// written in one transaction holding its write lock, after checking it holds
// nothing: a failure leaves it empty. Messages name the stores by their
// printable URLs (PrintableStoreUrl: never a password). Thread-compatible:
// one call at a time per pair of stores.
#ifndef HPTUNE_STORE_STORE_COPY_H_
#define HPTUNE_STORE_STORE_COPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"

namespace hptune::store {

// How many rows of one table were copied.
struct CopiedTable {
  std::string table;  // "studies", "trials", "measurements", ...
  int64_t rows = 0;
  bool operator==(const CopiedTable&) const = default;
};

// Copies store `from_url` into store `to_url` (store URLs, open_store.h),
// and returns the rows copied per table, in copy order. InvalidArgument for
// "memory:" on either side (it keeps nothing to copy, or nothing copied) or
// the same URL twice; NotFound for a SQLite source file that does not exist;
// FailedPrecondition naming the target and what it holds when it is not
// empty; Unavailable when a runner holds either store's lease; OpenStore's
// errors for a store it cannot open. `sqlite.env` (required for a SQLite
// side) takes the runner lease's lock files; `clock` is OpenStore's.
absl::StatusOr<std::vector<CopiedTable>> CopyStore(const std::string& from_url,
                                                   const std::string& to_url,
                                                   Clock& clock,
                                                   SqliteStoreOptions sqlite);

}  // namespace hptune::store

#endif  // HPTUNE_STORE_STORE_COPY_H_
