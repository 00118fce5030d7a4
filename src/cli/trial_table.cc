#include "src/cli/trial_table.h"

#include <charconv>
#include <set>

#include "hptune/core/config.h"
#include "nlohmann/json.hpp"

namespace hptune::cli {
namespace {

std::string FormatNumber(double v) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, result.ptr);
}

}  // namespace

std::string MetricsText(const StudySpec& spec) {
  std::string text;
  for (const MetricSpec& m : spec.AllMetrics()) {
    if (!text.empty()) text += ", ";
    text += std::string(ToString(m.goal)) + " " + m.id;
    if (m.safety_threshold) {
      text += std::string(" (constraint: ") +
              (m.goal == Goal::kMaximize ? ">= " : "<= ") +
              FormatNumber(*m.safety_threshold) + ")";
    }
  }
  return text;
}

Table TrialsTable(const StudySpec& spec, const std::vector<Trial>& trials,
                  const std::set<int64_t>& optimal) {
  static const std::set<std::string> kFixed = {
      "trialId",      "state",  "objective", "step",
      "stoppedEarly", "origin", "reason"};
  Table table;
  table.header = {"trialId", "state"};
  for (const auto& p : spec.search_space.parameters()) {
    table.header.push_back(kFixed.contains(p.name) ? "hyperparameters." + p.name
                                                   : p.name);
  }
  const bool listed = spec.metrics_listed();
  std::set<std::string> taken = kFixed;
  for (const auto& p : spec.search_space.parameters()) taken.insert(p.name);
  if (listed) {
    for (const MetricSpec& m : spec.AllMetrics()) {
      table.header.push_back(taken.contains(m.id) ? "metrics." + m.id : m.id);
    }
    table.header.push_back("optimal");
  } else {
    table.header.push_back("objective");
  }
  for (const char* column : {"step", "stoppedEarly", "origin", "reason"}) {
    table.header.push_back(column);
  }
  for (const Trial& t : trials) {
    std::vector<std::string> row = {std::to_string(t.number),
                                    std::string(ToString(t.state))};
    for (const auto& p : spec.search_space.parameters()) {
      auto it = t.parameters.find(p.name);
      row.push_back(it == t.parameters.end() ? "" : it->second.ToString());
    }
    if (listed) {
      for (const MetricSpec& m : spec.AllMetrics()) {
        auto value = t.FinalObjective(m.id);
        row.push_back(value ? FormatNumber(*value) : "");
      }
      row.push_back(optimal.contains(t.number) ? "*" : "");
    } else {
      auto objective = t.FinalObjective(spec.metric_tag());
      row.push_back(objective ? FormatNumber(*objective) : "");
    }
    row.push_back(
        t.final_measurement ? std::to_string(t.final_measurement->step) : "");
    row.push_back(t.stopped_early ? "true" : "false");
    row.push_back(t.origin);
    row.push_back(t.reason);
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string TrialsJson(const StudySpec& spec, const std::vector<Trial>& trials,
                       const std::set<int64_t>& optimal) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const bool listed = spec.metrics_listed();
  for (const Trial& t : trials) {
    nlohmann::ordered_json trial;
    trial["trialId"] = std::to_string(t.number);
    trial["state"] = std::string(ToString(t.state));
    nlohmann::ordered_json hyperparameters = nlohmann::ordered_json::object();
    for (const auto& p : spec.search_space.parameters()) {
      auto it = t.parameters.find(p.name);
      if (it != t.parameters.end())
        hyperparameters[p.name] = it->second.ToString();
    }
    trial["hyperparameters"] = std::move(hyperparameters);
    if (auto objective = t.FinalObjective(spec.metric_tag())) {
      trial["finalMetric"] = {
          {"trainingStep", std::to_string(t.final_measurement->step)},
          {"objectiveValue", *objective}};
    }
    if (listed) {
      nlohmann::ordered_json values = nlohmann::ordered_json::object();
      for (const MetricSpec& m : spec.AllMetrics()) {
        if (auto value = t.FinalObjective(m.id)) values[m.id] = *value;
      }
      if (!values.empty()) trial["finalMetrics"] = std::move(values);
      trial["isOptimal"] = optimal.contains(t.number);
    }
    trial["isTrialStoppedEarly"] = t.stopped_early;
    if (t.start_time) trial["startTime"] = FormatRfc3339(*t.start_time);
    if (t.end_time) trial["endTime"] = FormatRfc3339(*t.end_time);
    trial["origin"] = t.origin;
    if (t.attempt != 0) trial["attempt"] = t.attempt;
    if (!t.reason.empty()) trial["reason"] = t.reason;
    if (!t.measurements.empty()) {
      nlohmann::ordered_json curve = nlohmann::ordered_json::array();
      for (const Measurement& m : t.measurements) {
        nlohmann::ordered_json point = {{"step", std::to_string(m.step)},
                                        {"time", FormatRfc3339(m.time)},
                                        {"metrics", m.metrics}};
        if (m.attempt != 0) point["attempt"] = m.attempt;
        curve.push_back(std::move(point));
      }
      trial["measurements"] = std::move(curve);
    }
    out.push_back(std::move(trial));
  }
  return out.dump(2);
}

void PrintTrials(const StudySpec& spec, const std::vector<Trial>& trials,
                 const std::set<int64_t>& optimal, OutputFormat format,
                 std::ostream& out) {
  if (format == OutputFormat::kJson) {
    out << TrialsJson(spec, trials, optimal) << "\n";
    return;
  }
  if (format == OutputFormat::kVertex) {
    out << VertexTrialsJson(trials, &spec.search_space) << "\n";
    return;
  }
  Table table = TrialsTable(spec, trials, optimal);
  // Scripts read CSV's fixed columns; a reader needs no empty ones.
  if (format == OutputFormat::kTable) {
    table = WithoutEmptyColumns(table, {"stoppedEarly", "reason"});
  }
  PrintTable(table, format, out);
}

Table StudiesTable(const std::vector<StudyRecord>& studies,
                   const std::vector<std::vector<Trial>>& trials,
                   const std::vector<std::vector<Trial>>& optimal) {
  Table table;
  table.header = {"name",   "state",  "algorithm", "goal",
                  "metric", "trials", "best"};
  for (size_t i = 0; i < studies.size(); ++i) {
    const StudyRecord& s = studies[i];
    std::string goals, metrics, best_text;
    for (const MetricSpec& m : s.spec.AllMetrics()) {
      goals += (goals.empty() ? "" : ",") + std::string(ToString(m.goal));
      metrics += (metrics.empty() ? "" : ",") + m.id;
    }
    // With one objective, the one optimal trial is the best.
    if (s.spec.Objectives().size() > 1) {
      const size_t n = optimal[i].size();
      if (n > 0) best_text = std::to_string(n) + " optimal";
    } else if (!optimal[i].empty()) {
      const Trial& best = optimal[i].front();
      best_text = FormatNumber(*best.FinalObjective(s.spec.metric_tag())) +
                  " (trial " + std::to_string(best.number) + ")";
    }
    table.rows.push_back({s.name, std::string(ToString(s.state)),
                          std::string(ToString(s.spec.algorithm)), goals,
                          metrics,
                          std::to_string(trials[i].size()) + "/" +
                              std::to_string(s.TrialBudget()),
                          best_text});
  }
  return table;
}

}  // namespace hptune::cli
