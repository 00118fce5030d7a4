// The trials table's query: which trials (states, parameter and value
// ranges), in which order, which page; parsed from the URL's parameters with
// errors naming the parameter and the value (docs/dashboard.md, TrialRow).
// Used by DashboardServer for the table and its CSV/JSON exports. Pure;
// thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_TRIAL_QUERY_H_
#define HPTUNE_SRC_DASHBOARD_TRIAL_QUERY_H_

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::dashboard {

using QueryParams = std::map<std::string, std::string>;

// INVALID_ARGUMENT naming a query parameter, its value (the first 200
// bytes) and why it was refused.
absl::Status BadQueryValue(std::string_view name, std::string_view value,
                           std::string_view why);

enum class TrialSort {
  kNumber,
  kValue,
  kState,
  kStartTime,
  kEndTime,
  kParam,
  kMetric
};

struct TrialQuery {
  int64_t offset = 0;
  int64_t limit = 50;
  TrialSort sort = TrialSort::kNumber;
  std::string sort_param;   // kParam only.
  std::string sort_metric;  // kMetric only: a final measurement's metric.
  bool descending = false;
  std::set<TrialState> states;  // Empty: every state.
  std::map<std::string, std::pair<double, double>> param_ranges;
  std::map<std::string, std::set<std::string>> param_categories;
  std::optional<std::pair<double, double>> value_range;
  // Final measurement metric -> inclusive range; a trial without the metric
  // does not match.
  std::map<std::string, std::pair<double, double>> metric_ranges;
};

inline constexpr int64_t kMaxPageSize = 1000;
// The longest metric name a query may name (sort=metric:NAME, where).
inline constexpr size_t kMaxMetricName = 256;

// `max_limit` bounds `limit` (the exports take every trial).
absl::StatusOr<TrialQuery> ParseTrialQuery(const QueryParams& params,
                                           const StudySpec& spec,
                                           int64_t max_limit = kMaxPageSize);

// The trials that match, in the query's order (all of them; the caller
// pages). Trials without a value (or without the sorted metric) sort last
// both ways. Only the first `sorted` need be in order (a page's offset +
// limit): the rest follow in no particular order, which spares sorting
// 100,000 trials for a page of 50.
std::vector<const Trial*> SelectTrials(
    const std::vector<std::shared_ptr<const Trial>>& trials,
    const StudySpec& spec, const TrialQuery& query,
    size_t sorted = std::numeric_limits<size_t>::max());

// The slot k of a job's trial (client "<job>/slot-<k>"); none otherwise.
std::optional<int> TrialSlot(const Trial& trial);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_TRIAL_QUERY_H_
