// The dashboard's Pareto answer (docs/dashboard.md: Pareto): every trial
// with a final value of each metric, its objective values, whether it
// meets the constraints and whether it is optimal (on the Pareto front of
// the feasible results: the read side's optimal trials, as
// ListOptimalTrials gives them), for the Pareto front plot. Used by
// DashboardServer. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_PARETO_JSON_H_
#define HPTUNE_SRC_DASHBOARD_PARETO_JSON_H_

#include <cstddef>
#include <cstdint>
#include <set>

#include "nlohmann/json.hpp"
#include "src/dashboard/study_cache.h"

namespace hptune::dashboard {

// At most `max_points` trials: every optimal one, then the others evenly
// spread by trial number ("downsampled" says whether any was left out).
// `optimal`: the numbers of the study's optimal trials.
nlohmann::json ParetoJson(const StudySnapshot& snapshot, size_t max_points,
                          const std::set<int64_t>& optimal);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_PARETO_JSON_H_
