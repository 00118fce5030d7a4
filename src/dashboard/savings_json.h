// What early stopping saved a study, as the dashboard's StudySummary gives
// it (`early_stopping_savings`, docs/dashboard.md): ComputeStoppingSavings
// (hptune/core/savings.h) over the snapshot's trials and its job's
// footprint, the computation `hptune run` and `hptune jobs describe` show
// too. Used by StudySummaryJson. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_
#define HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_

#include "nlohmann/json.hpp"
#include "src/dashboard/study_cache.h"

namespace hptune::dashboard {

// null when the study does not stop trials early and none was stopped;
// else {"trials_stopped", "trials_run_to_end", "steps_run",
// "full_trial_steps", "steps_saved", "trial_seconds_saved",
// "replica_seconds_saved", "gpu_seconds_saved", "share_saved", "summary"},
// an unknown number null.
nlohmann::json SavingsJson(const StudySnapshot& snapshot);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_
