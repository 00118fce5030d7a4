// Which trials' learning curves the curves view draws: the best N and the
// running ones, all, the stopped-early ones, the running ones, or those the
// page selected (docs/dashboard.md, Curves). Parsed from the URL's
// parameters with errors naming the parameter and the value. Used by
// study_routes.cc. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_CURVE_CHOICE_H_
#define HPTUNE_SRC_DASHBOARD_CURVE_CHOICE_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/dashboard/study_cache.h"
#include "src/dashboard/trial_query.h"

namespace hptune::dashboard {

enum class CurveSelect { kBest, kAll, kStopped, kRunning, kSelected };

struct CurveChoice {
  CurveSelect select = CurveSelect::kBest;
  size_t max_trials = 50;
  std::set<int64_t> trials;  // kSelected: the trial numbers asked for.
};

// The most trials one answer draws, and the most a selection may name.
inline constexpr size_t kMaxCurveTrials = 1000;

// select = best (default) | all | stopped | running | selected, max_trials
// (1..1000, default 50), trials = comma-separated numbers (selected only,
// required there).
absl::StatusOr<CurveChoice> ParseCurveChoice(const QueryParams& params);

std::string_view ToString(CurveSelect select);

struct CurvePick {
  std::vector<const Trial*> trials;  // By number.
  size_t matching = 0;               // How many trials the selection matched.
};

// best: the best `max_trials` finished trials with a value, and every
// running one. Otherwise the matching trials that started (all, stopped:
// stopped early, running: ACTIVE or STOPPING, selected: those named); above
// `max_trials`, an even spread of them by number, first and last kept.
CurvePick PickCurveTrials(const StudySnapshot& snapshot,
                          const CurveChoice& choice);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_CURVE_CHOICE_H_
