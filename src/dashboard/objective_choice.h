// The `objective` query parameter of a study's plot answers (History, Edf,
// Rank, Points, Importance: docs/dashboard.md): a study of several
// objectives is viewed through the one named, as if it were its first
// (its goal too); the first objective when absent. Used by the study and
// view routes. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_OBJECTIVE_CHOICE_H_
#define HPTUNE_SRC_DASHBOARD_OBJECTIVE_CHOICE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "src/dashboard/study_cache.h"
#include "src/dashboard/trial_query.h"

namespace hptune::dashboard {

// `snapshot` seen through the objective `params` names: nullopt when it is
// the study's first (use `snapshot` itself), else a copy whose spec has that
// objective first (the trials are shared, not copied). InvalidArgument
// naming the parameter and the study's objectives for any other name.
absl::StatusOr<std::optional<StudySnapshot>> ChooseObjective(
    const StudySnapshot& snapshot, const QueryParams& params);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_OBJECTIVE_CHOICE_H_
