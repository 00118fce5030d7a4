// The dashboard's JSON answers about studies and trials (docs/dashboard.md:
// StudySummary, StudyDetail, TrialRow, History, Points, Curves, Timeline,
// TrialDetail), built from a StudySnapshot, what the store read and the
// read side's answers (hptune/read/study_answers.h). Values that are not
// finite become null. Used by DashboardServer. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_STUDY_JSON_H_
#define HPTUNE_SRC_DASHBOARD_STUDY_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hptune/core/savings.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "nlohmann/json.hpp"
#include "src/dashboard/study_cache.h"

namespace hptune::dashboard {

using Json = nlohmann::json;

// What a study's summary shows of the read side's answers.
struct SummaryAnswers {
  std::optional<Trial> best;               // StudyAnswers::BestTrial
  std::optional<StoppingSavings> savings;  // StudyAnswers::Savings
  // With several objectives: how many trials are optimal (OptimalTrials).
  std::optional<int64_t> optimal;
};

// Whether a metric of the spec is a constraint (has a safety threshold).
bool HasConstraints(const StudySpec& spec);

Json StudySummaryJson(const StudySnapshot& snapshot,
                      const SummaryAnswers& answers);
// The metrics a study's trials report beyond its spec's (a trainer's extra
// metrics: "accuracy_std"), from their final measurements, by name.
std::vector<std::string> ExtraMetrics(const StudySnapshot& snapshot);
// The table's metric columns besides the primary metric's: the spec's other
// metrics (objectives, then constraints), then `extra`.
std::vector<std::string> MetricColumns(const StudySpec& spec,
                                       const std::vector<std::string>& extra);
Json StudyDetailJson(const StudySnapshot& snapshot,
                     const SummaryAnswers& answers);
Json TrialRowJson(const Trial& trial, const StudySpec& spec);

Json HistoryJson(const StudySnapshot& snapshot, size_t max_points);
Json PointsJson(const StudySnapshot& snapshot, size_t max_points);
// One curve: `measurements` are the trial's intermediate measurements.
Json CurveJson(const Trial& trial, const StudySpec& spec,
               const std::vector<Measurement>& measurements, size_t max_points);
Json TimelineJson(const StudySnapshot& snapshot, size_t max_trials,
                  Timestamp now);
// `trial` with its measurements (the last `max_measurements`).
Json TrialDetailJson(const Trial& trial, const StudySpec& spec,
                     size_t max_measurements);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_STUDY_JSON_H_
