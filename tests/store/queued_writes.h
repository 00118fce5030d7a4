// The check both stores' group commits (src/store/write_queue.h) pass:
// writes that queue while a commit runs go into the next commit together,
// each in a savepoint, and each gets its own answer. Used by
// sqlite_concurrency_test and postgres_store_test. Not thread-safe.
#ifndef HPTUNE_TESTS_STORE_QUEUED_WRITES_H_
#define HPTUNE_TESTS_STORE_QUEUED_WRITES_H_

#include <cstddef>
#include <functional>

#include "hptune/store/store.h"

namespace hptune::store::test {

// On an empty `store`: a write holds the commit while six more queue
// behind it (`waiting` counts the store's queued writes), one of them made
// to fail late by `fail_designer_state_inserts` (which makes every insert
// into designer_state fail from then on). The ones that fail get their own
// error and leave no trace; the others are kept.
void ExpectQueuedWritesEachGetTheirOwnAnswer(
    Store& store, const std::function<size_t()>& waiting,
    const std::function<void()>& fail_designer_state_inserts);

}  // namespace hptune::store::test

#endif  // HPTUNE_TESTS_STORE_QUEUED_WRITES_H_
