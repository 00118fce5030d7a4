#include "src/dashboard/pareto_json.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "src/dashboard/thinning.h"

namespace hptune::dashboard {

using Json = nlohmann::json;

Json ParetoJson(const StudySnapshot& snapshot, size_t max_points,
                const std::set<int64_t>& optimal_numbers) {
  const StudySpec& spec = snapshot.study.spec;
  const std::vector<MetricSpec> all = spec.AllMetrics();
  Json objectives = Json::array(), constraints = Json::array();
  std::vector<size_t> objective_columns;
  for (size_t i = 0; i < all.size(); ++i) {
    const Json metric = {{"metric", all[i].id},
                         {"goal", std::string(ToString(all[i].goal))}};
    if (all[i].is_constraint()) {
      Json c = metric;
      c["threshold"] = *all[i].safety_threshold;
      constraints.push_back(std::move(c));
    } else {
      objectives.push_back(metric);
      objective_columns.push_back(i);
    }
  }
  // The trials with every metric, its objectives finite.
  struct Row {
    const Trial* trial;
    std::vector<double> values;  // The objectives', as reported.
    bool feasible;
  };
  std::vector<Row> rows;
  for (const auto& trial : snapshot.trials) {
    if (trial == nullptr) continue;
    std::optional<std::vector<double>> values = FinalMetricValues(spec, *trial);
    if (!values) continue;
    Row row{trial.get(), {}, IsFeasibleResult(spec, *trial)};
    bool finite = true;
    for (size_t c : objective_columns) {
      finite = finite && std::isfinite((*values)[c]);
      row.values.push_back((*values)[c]);
    }
    if (!finite) continue;
    rows.push_back(std::move(row));
  }
  std::vector<bool> optimal(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    optimal[i] = optimal_numbers.contains(rows[i].trial->number);
  }
  // Every optimal trial, then the others evenly spread.
  std::vector<size_t> others;
  std::vector<size_t> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    (optimal[i] ? kept : others).push_back(i);
  }
  const size_t room = max_points > kept.size() ? max_points - kept.size() : 0;
  for (size_t j : EvenlySpread(others.size(), room)) kept.push_back(others[j]);
  std::sort(kept.begin(), kept.end());
  Json trials = Json::array();
  int64_t optimal_count = 0;
  for (size_t i : kept) {
    optimal_count += optimal[i] ? 1 : 0;
    trials.push_back({{"trial", rows[i].trial->number},
                      {"values", rows[i].values},
                      {"feasible", rows[i].feasible},
                      {"optimal", optimal[i]}});
  }
  return {{"objectives", std::move(objectives)},
          {"constraints", std::move(constraints)},
          {"total", rows.size()},
          {"optimal", optimal_count},
          {"downsampled", kept.size() < rows.size()},
          {"trials", std::move(trials)}};
}

}  // namespace hptune::dashboard
