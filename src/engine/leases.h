// Leases of ask/tell trials: when a trial handed to a client has lapsed,
// and what renewing one does. Internal to the engine (TuningEngine's
// SuggestTrials, RenewLeases, GetTrial, ListTrials); pure functions,
// thread-safe.
//
// Why leases: a client killed without a word (SIGKILL, a lost host) would
// otherwise hold its trials ACTIVE, and their maxParallelTrials slots, for
// ever. Its trials carry Trial::lease_seconds and the time of its last
// heartbeat; once the lease lapses the engine ends them as FAILED, as
// Optuna's fail_stale_trials does (docs/api.md, "Leases").
#ifndef HPTUNE_SRC_ENGINE_LEASES_H_
#define HPTUNE_SRC_ENGINE_LEASES_H_

#include "absl/status/status.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"

namespace hptune::engine {

// Whether `trial` is pending under a lease whose client has sent no
// heartbeat for longer than the lease, at `now`.
bool LeaseLapsed(const Trial& trial, Timestamp now);

// Ends a trial for which LeaseLapsed holds as FAILED, with a reason naming
// the client and how long it was silent.
absl::Status EndLapsedTrial(Trial& trial, Timestamp now);

// Gives a pending trial a lease of `lease_seconds` (0: none) from `now`.
void RenewLease(Trial& trial, int lease_seconds, Timestamp now);

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_LEASES_H_
