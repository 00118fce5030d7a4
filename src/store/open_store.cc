#include "hptune/store/open_store.h"

#include <utility>

#include "hptune/core/status.h"
#include "src/store/memory_store.h"
#include "src/store/sqlite_store.h"

namespace hptune::store {

absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, Clock& clock, SqliteStoreOptions options) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                          SqliteStore::Open(path, clock, options));
  return std::unique_ptr<Store>(std::move(store));
}

std::unique_ptr<Store> NewMemoryStore(Clock& clock) {
  return std::make_unique<MemoryStore>(clock);
}

}  // namespace hptune::store
