#include "src/dashboard/study_json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "src/dashboard/objective.h"
#include "src/dashboard/savings_json.h"
#include "src/dashboard/thinning.h"
#include "src/dashboard/trial_query.h"
#include "src/dashboard/view_json.h"

namespace hptune::dashboard {
namespace {

Json Number(std::optional<double> x) {
  if (!x || !std::isfinite(*x)) return nullptr;
  return *x;
}

Json Time(const std::optional<Timestamp>& t) {
  if (!t) return nullptr;
  return FormatRfc3339(*t);
}

Json Value(const ParameterValue& value) {
  if (value.is_string()) return value.AsString();
  if (value.is_integer()) return value.AsInteger();
  return Number(value.AsDouble());
}

// Finished with a value: what the history and the points plots show.
bool HasResult(const Trial& trial, const StudySpec& spec) {
  return IsTerminal(trial.state) && FiniteObjective(trial, spec).has_value();
}

// What runs, as `hptune validate` says it (algorithms/registry.cc: an
// unspecified algorithm is Gaussian process BO).
std::string AlgorithmName(Algorithm algorithm) {
  if (algorithm == Algorithm::kUnspecified) return "Gaussian process BO";
  return std::string(ToString(algorithm));
}

template <typename Visit>
void ForEachTrial(const StudySnapshot& snapshot, Visit visit) {
  for (const auto& trial : snapshot.trials) {
    if (trial != nullptr) visit(*trial);
  }
}

}  // namespace

bool HasConstraints(const StudySpec& spec) {
  for (const MetricSpec& m : spec.AllMetrics()) {
    if (m.is_constraint()) return true;
  }
  return false;
}

Json StudySummaryJson(const StudySnapshot& snapshot,
                      const SummaryAnswers& answers) {
  const StudyRecord& study = snapshot.study;
  const StudySpec& spec = study.spec;
  Json counts = {{"REQUESTED", 0}, {"ACTIVE", 0},     {"STOPPING", 0},
                 {"SUCCEEDED", 0}, {"INFEASIBLE", 0}, {"FAILED", 0}};
  int64_t stopped_early = 0;
  ForEachTrial(snapshot, [&](const Trial& trial) {
    // Every state counts, CANCELLED and those added later included.
    const std::string state(ToString(trial.state));
    counts[state] = counts.value(state, int64_t{0}) + 1;
    if (trial.stopped_early) ++stopped_early;
  });
  counts["total"] = snapshot.trials.size();
  counts["stopped_early"] = stopped_early;
  Json job = nullptr;
  if (snapshot.job) {
    job = {{"id", snapshot.job->job_id},
           {"state", std::string(ToString(snapshot.job->state))},
           {"labels", snapshot.job->labels},
           {"error", snapshot.job->error_message}};
  }
  // As the read side shows it (read::StudyAsShown, from the snapshot's
  // job): a study its job left ACTIVE by failing or being cancelled says so.
  const StudyRecord shown =
      snapshot.job ? WithJobOutcome(study, *snapshot.job) : study;
  return {{"name", study.name},
          {"state", std::string(ToString(shown.state))},
          {"state_reason", shown.reason},
          {"metric", spec.metric_tag()},
          {"goal", std::string(ToString(spec.goal()))},
          {"job", job},
          {"max_trials", study.TrialBudget()},
          {"max_parallel_trials", spec.max_parallel_trials},
          {"counts", counts},
          {"progress", ProgressJson(snapshot)},
          {"best", answers.best
                       ? Json{{"trial", answers.best->number},
                              {"value", Number(answers.best->FinalObjective(
                                            spec.metric_tag()))}}
                       : Json(nullptr)},
          {"optimal", answers.optimal ? Json(*answers.optimal) : Json(nullptr)},
          {"early_stopping_savings", SavingsJson(answers.savings)},
          {"create_time", FormatRfc3339(study.create_time)}};
}

std::vector<std::string> ExtraMetrics(const StudySnapshot& snapshot) {
  std::set<std::string, std::less<>> known, extra;
  for (const MetricSpec& m : snapshot.study.spec.AllMetrics()) {
    known.insert(m.id);
  }
  known.insert(snapshot.study.spec.metric_tag());
  ForEachTrial(snapshot, [&](const Trial& trial) {
    if (!trial.final_measurement) return;
    for (const auto& [tag, value] : trial.final_measurement->metrics) {
      if (!known.contains(tag)) extra.insert(tag);
    }
  });
  return {extra.begin(), extra.end()};
}

std::vector<std::string> MetricColumns(const StudySpec& spec,
                                       const std::vector<std::string>& extra) {
  std::vector<std::string> columns;
  for (const MetricSpec& m : spec.AllMetrics()) {
    if (m.id != spec.metric_tag()) columns.push_back(m.id);
  }
  columns.insert(columns.end(), extra.begin(), extra.end());
  return columns;
}

Json StudyDetailJson(const StudySnapshot& snapshot,
                     const SummaryAnswers& answers) {
  Json detail = StudySummaryJson(snapshot, answers);
  const StudySpec& spec = snapshot.study.spec;
  Json params = Json::array();
  for (const ParameterSpec& p : spec.search_space.parameters()) {
    Json param = {{"name", p.name},
                  {"type", std::string(ToString(p.type))},
                  {"scale", std::string(ToString(p.scale))}};
    if (p.type == ParameterType::kDouble || p.type == ParameterType::kInteger) {
      param["min"] = p.min_value;
      param["max"] = p.max_value;
    } else if (p.type == ParameterType::kDiscrete) {
      param["values"] = p.discrete_values;
      param["min"] = p.discrete_values.front();
      param["max"] = p.discrete_values.back();
    } else {
      param["categories"] = p.categorical_values;
    }
    // A conditional parameter: its parent and the values that activate it.
    // Trials where it is inactive have no value for it.
    if (p.condition) {
      param["parent"] = p.condition->parent;
      Json values = Json::array();
      for (const std::string& v : p.condition->categorical_values) {
        values.push_back(v);
      }
      for (int64_t v : p.condition->int_values) values.push_back(v);
      for (double v : p.condition->discrete_values) values.push_back(v);
      param["parent_values"] = std::move(values);
    }
    params.push_back(std::move(param));
  }
  detail["params"] = std::move(params);
  Json metrics = Json::array();
  for (const MetricSpec& m : spec.AllMetrics()) {
    metrics.push_back({{"metric", m.id},
                       {"goal", std::string(ToString(m.goal))},
                       {"threshold", Number(m.safety_threshold)}});
  }
  // Every metric, objectives and constraints (threshold not null).
  detail["metrics"] = std::move(metrics);
  detail["extra_metrics"] = ExtraMetrics(snapshot);
  detail["reason"] = snapshot.study.reason;
  detail["early_stopping"] = spec.enable_early_stopping;
  detail["early_stopping_rule"] =
      spec.enable_early_stopping ? Json(spec.EffectiveStoppingRule()) : Json();
  detail["algorithm"] = spec.custom_algorithm.empty()
                            ? AlgorithmName(spec.algorithm)
                            : spec.custom_algorithm;
  detail["config"] =
      snapshot.job ? Json(snapshot.job->training_input_json) : Json(nullptr);
  return detail;
}

Json TrialRowJson(const Trial& trial, const StudySpec& spec) {
  Json params = Json::object();
  for (const auto& [name, value] : trial.parameters)
    params[name] = Value(value);
  Json metrics = Json::object();
  if (trial.final_measurement) {
    for (const auto& [tag, value] : trial.final_measurement->metrics) {
      metrics[tag] = Number(value);
    }
  }
  std::optional<int> slot = TrialSlot(trial);
  Json row = {{"number", trial.number},
              {"state", std::string(ToString(trial.state))},
              {"value", Number(FiniteObjective(trial, spec))},
              {"params", std::move(params)},
              {"metrics", std::move(metrics)},
              {"stopped_early", trial.stopped_early},
              {"reason", trial.reason},
              {"attempt", trial.attempt},
              {"slot", slot ? Json(*slot) : Json(nullptr)},
              {"start_time", Time(trial.start_time)},
              {"end_time", Time(trial.end_time)}};
  // The latest intermediate measurement (the cache keeps it for a running
  // trial): how far it got and where its objective stands.
  if (!trial.measurements.empty()) {
    const Measurement& last = trial.measurements.back();
    row["last_step"] = last.step;
    row["last_value"] = Number(last.Get(spec.metric_tag()));
  }
  // A study with constraints: whether the trial's result meets them (only
  // a SUCCEEDED trial with every metric is judged).
  if (HasConstraints(spec) && FinalMetricValues(spec, trial)) {
    row["feasible"] = IsFeasibleResult(spec, trial);
  }
  return row;
}

Json HistoryJson(const StudySnapshot& snapshot, size_t max_points) {
  const StudySpec& spec = snapshot.study.spec;
  std::vector<int64_t> numbers;
  std::vector<double> values, best;
  std::vector<bool> stopped;
  Json active = Json::array(), failed = Json::array();
  ForEachTrial(snapshot, [&](const Trial& trial) {
    if (trial.state == TrialState::kActive ||
        trial.state == TrialState::kStopping) {
      active.push_back(trial.number);
    } else if (trial.state == TrialState::kFailed) {
      failed.push_back(trial.number);
    }
    if (!HasResult(trial, spec)) return;
    const double value = *FiniteObjective(trial, spec);
    numbers.push_back(trial.number);
    values.push_back(value);
    stopped.push_back(trial.stopped_early);
    best.push_back(best.empty() || spec.IsBetter(value, best.back())
                       ? value
                       : best.back());
  });
  Json points = Json::array();
  const std::vector<size_t> kept = ThinHistory(values, best, max_points);
  for (size_t i : kept) {
    Json point = {
        {"trial", numbers[i]}, {"value", values[i]}, {"best", best[i]}};
    if (stopped[i]) point["stopped_early"] = true;
    points.push_back(std::move(point));
  }
  return {{"total", values.size()},
          {"downsampled", kept.size() < values.size()},
          {"points", std::move(points)},
          {"active", std::move(active)},
          {"failed", std::move(failed)}};
}

Json PointsJson(const StudySnapshot& snapshot, size_t max_points) {
  const StudySpec& spec = snapshot.study.spec;
  std::vector<const Trial*> trials;
  std::vector<double> values;
  ForEachTrial(snapshot, [&](const Trial& trial) {
    if (!HasResult(trial, spec)) return;
    trials.push_back(&trial);
    values.push_back(*FiniteObjective(trial, spec));
  });
  Json names = Json::array();
  for (const ParameterSpec& p : spec.search_space.parameters()) {
    names.push_back(p.name);
  }
  const std::vector<size_t> kept =
      SampleBestAndSpread(values, spec.goal() == Goal::kMaximize, max_points);
  Json rows = Json::array();
  for (size_t i : kept) {
    const Trial& trial = *trials[i];
    Json x = Json::array();
    for (const ParameterSpec& p : spec.search_space.parameters()) {
      auto it = trial.parameters.find(p.name);
      x.push_back(it == trial.parameters.end() ? Json(nullptr)
                                               : Value(it->second));
    }
    rows.push_back({{"trial", trial.number},
                    {"state", std::string(ToString(trial.state))},
                    {"value", values[i]},
                    {"x", std::move(x)}});
  }
  return {{"params", std::move(names)},
          {"total", values.size()},
          {"downsampled", kept.size() < values.size()},
          {"trials", std::move(rows)}};
}

Json CurveJson(const Trial& trial, const StudySpec& spec,
               const std::vector<Measurement>& measurements,
               size_t max_points) {
  // The curve of the last attempt, as the early-stopping rule sees it.
  int last_attempt = 0;
  for (const Measurement& m : measurements) {
    last_attempt = std::max(last_attempt, m.attempt);
  }
  std::vector<std::pair<int64_t, double>> curve;
  for (const Measurement& m : measurements) {
    std::optional<double> value = m.Get(spec.metric_tag());
    if (m.attempt == last_attempt && value && std::isfinite(*value)) {
      curve.emplace_back(m.step, *value);
    }
  }
  Json points = Json::array();
  for (size_t i : EvenlySpread(curve.size(), max_points)) {
    points.push_back({curve[i].first, curve[i].second});
  }
  Json stop_step = nullptr;
  if (trial.stopped_early && !curve.empty()) stop_step = curve.back().first;
  return {{"trial", trial.number},
          {"state", std::string(ToString(trial.state))},
          {"stopped_early", trial.stopped_early},
          {"stop_step", stop_step},
          {"points", std::move(points)}};
}

Json TimelineJson(const StudySnapshot& snapshot, size_t max_trials,
                  Timestamp now) {
  std::vector<const Trial*> started;
  ForEachTrial(snapshot, [&](const Trial& trial) {
    if (trial.start_time) started.push_back(&trial);
  });
  const size_t skip =
      started.size() > max_trials ? started.size() - max_trials : 0;
  Json trials = Json::array();
  for (size_t i = skip; i < started.size(); ++i) {
    const Trial& trial = *started[i];
    std::optional<int> slot = TrialSlot(trial);
    trials.push_back({{"trial", trial.number},
                      {"slot", slot ? Json(*slot) : Json(nullptr)},
                      {"state", std::string(ToString(trial.state))},
                      {"start_time", Time(trial.start_time)},
                      {"end_time", Time(trial.end_time)},
                      {"attempt", trial.attempt},
                      {"stopped_early", trial.stopped_early}});
    // An asked trial has no slot: its client, when it gave one, is its lane.
    if (!slot && !trial.client_id.empty()) {
      trials.back()["client"] = trial.client_id;
    }
  }
  return {{"lanes", snapshot.study.spec.max_parallel_trials},
          {"now", FormatRfc3339(now)},
          {"total", started.size()},
          {"trials", std::move(trials)}};
}

Json TrialDetailJson(const Trial& trial, const StudySpec& spec,
                     size_t max_measurements) {
  Json detail = TrialRowJson(trial, spec);
  if (trial.final_measurement) {
    detail["final_measurement"] = {{"step", trial.final_measurement->step},
                                   {"metrics", Json::object()}};
    for (const auto& [tag, value] : trial.final_measurement->metrics) {
      detail["final_measurement"]["metrics"][tag] = Number(value);
    }
  } else {
    detail["final_measurement"] = nullptr;
  }
  Json measurements = Json::array();
  const size_t skip = trial.measurements.size() > max_measurements
                          ? trial.measurements.size() - max_measurements
                          : 0;
  for (size_t i = skip; i < trial.measurements.size(); ++i) {
    const Measurement& m = trial.measurements[i];
    Json metrics = Json::object();
    for (const auto& [tag, value] : m.metrics) metrics[tag] = Number(value);
    measurements.push_back({{"step", m.step},
                            {"time", FormatRfc3339(m.time)},
                            {"attempt", m.attempt},
                            {"metrics", std::move(metrics)}});
  }
  detail["measurements"] = std::move(measurements);
  detail["measurements_total"] = trial.measurements.size();
  detail["client_id"] = trial.client_id;
  detail["origin"] = trial.origin;
  detail["create_time"] = FormatRfc3339(trial.create_time);
  return detail;
}

}  // namespace hptune::dashboard
