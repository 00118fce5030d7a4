// A trial workload for concurrency tests: what one engine worker does to a
// study, repeated. Shared by the in-process concurrency tests and the
// store_writer helper that child processes run. Thread-safe as the Store is.
#ifndef HPTUNE_TESTS_STORE_STORE_WORKLOAD_H_
#define HPTUNE_TESTS_STORE_STORE_WORKLOAD_H_

#include <string>

#include "absl/status/status.h"
#include "hptune/store/store.h"

namespace hptune::store::test {

// `trials` times: adds a REQUESTED trial handed to `client_id`, makes it
// ACTIVE, adds `measurements` measurements (steps 1, 2, ...) and completes it
// SUCCEEDED with the last one as its final measurement. Stops at the first
// error and returns it.
[[nodiscard]] absl::Status RunTrialWorkload(Store& store,
                                            const std::string& study,
                                            const std::string& client_id,
                                            int trials, int measurements);

}  // namespace hptune::store::test

#endif  // HPTUNE_TESTS_STORE_STORE_WORKLOAD_H_
