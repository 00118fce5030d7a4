// What early stopping saved a study, as the dashboard's StudySummary gives
// it (`early_stopping_savings`, docs/dashboard.md): the read side's answer
// (read::StudyAnswers::Savings), which `hptune run` and `hptune jobs
// describe` show too. Used by StudySummaryJson. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_
#define HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_

#include <optional>

#include "hptune/core/savings.h"
#include "nlohmann/json.hpp"

namespace hptune::dashboard {

// null when the study does not stop trials early and none was stopped;
// else {"trials_stopped", "trials_run_to_end", "steps_run",
// "full_trial_steps", "steps_saved", "trial_seconds_saved",
// "replica_seconds_saved", "gpu_seconds_saved", "share_saved", "summary"},
// an unknown number null.
nlohmann::json SavingsJson(const std::optional<StoppingSavings>& savings);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_SAVINGS_JSON_H_
