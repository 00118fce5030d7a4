// The dashboard's JSON answers of its comparison views (docs/dashboard.md:
// Progress, Edf, Rank): each trial's state counted once for the progress
// bar, the EDF of the objective, and the points of the rank plot. Built
// from a StudySnapshot. Used by StudySummaryJson and the view routes
// (view_routes.h). Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_VIEW_JSON_H_
#define HPTUNE_SRC_DASHBOARD_VIEW_JSON_H_

#include <cstddef>

#include "nlohmann/json.hpp"
#include "src/dashboard/study_cache.h"

namespace hptune::dashboard {

// {"SUCCEEDED", "STOPPED_EARLY", "INFEASIBLE", "FAILED", "CANCELLED",
// "RUNNING", "PENDING", "finished"}: every trial in exactly one of the
// first seven (a SUCCEEDED trial stopped early in STOPPED_EARLY, ACTIVE
// and STOPPING in RUNNING, REQUESTED in PENDING); `finished` counts the
// terminal ones.
nlohmann::json ProgressJson(const StudySnapshot& snapshot);

// {"metric", "goal", "total", "distinct", "downsampled", "points": [[value,
// fraction]...]}: the EDF (edf.h) of the finished trials' objective, at most
// `max_points` points.
nlohmann::json EdfJson(const StudySnapshot& snapshot, size_t max_points);

// Points (PointsJson) with each trial's "rank": 1 for the best value among
// every finished trial with a value (ties share a rank), whatever the
// thinning kept.
nlohmann::json RankJson(const StudySnapshot& snapshot, size_t max_points);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_VIEW_JSON_H_
