#include "src/dashboard/view_json.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "src/dashboard/edf.h"
#include "src/dashboard/objective.h"
#include "src/dashboard/study_json.h"

namespace hptune::dashboard {
namespace {

// The objective of a finished trial, when finite: what the history, the
// points and the EDF show.
std::optional<double> FinishedObjective(const Trial& trial,
                                        const StudySpec& spec) {
  if (!IsTerminal(trial.state)) return std::nullopt;
  return FiniteObjective(trial, spec);
}

std::vector<double> FinishedObjectives(const StudySnapshot& snapshot) {
  std::vector<double> values;
  for (const auto& trial : snapshot.trials) {
    if (trial == nullptr) continue;
    if (auto v = FinishedObjective(*trial, snapshot.study.spec)) {
      values.push_back(*v);
    }
  }
  return values;
}

const char* ProgressKey(const Trial& trial) {
  switch (trial.state) {
    case TrialState::kRequested:
      return "PENDING";
    case TrialState::kActive:
    case TrialState::kStopping:
      return "RUNNING";
    case TrialState::kSucceeded:
      return trial.stopped_early ? "STOPPED_EARLY" : "SUCCEEDED";
    case TrialState::kInfeasible:
      return "INFEASIBLE";
    case TrialState::kFailed:
      return "FAILED";
    case TrialState::kCancelled:
      return "CANCELLED";
  }
  return "FAILED";
}

}  // namespace

nlohmann::json ProgressJson(const StudySnapshot& snapshot) {
  nlohmann::json progress = {
      {"SUCCEEDED", 0}, {"STOPPED_EARLY", 0}, {"INFEASIBLE", 0}, {"FAILED", 0},
      {"CANCELLED", 0}, {"RUNNING", 0},       {"PENDING", 0}};
  int64_t finished = 0;
  for (const auto& trial : snapshot.trials) {
    if (trial == nullptr) continue;
    const char* key = ProgressKey(*trial);
    progress[key] = progress[key].get<int64_t>() + 1;
    if (IsTerminal(trial->state)) ++finished;
  }
  progress["finished"] = finished;
  return progress;
}

nlohmann::json EdfJson(const StudySnapshot& snapshot, size_t max_points) {
  const StudySpec& spec = snapshot.study.spec;
  const Edf edf = EmpiricalDistribution(
      FinishedObjectives(snapshot), spec.goal() == Goal::kMaximize, max_points);
  nlohmann::json points = nlohmann::json::array();
  for (const EdfPoint& p : edf.points) {
    points.push_back({p.value, p.fraction});
  }
  return {{"metric", spec.metric_tag()},
          {"goal", std::string(ToString(spec.goal()))},
          {"total", edf.total},
          {"distinct", edf.distinct},
          {"downsampled", edf.points.size() < edf.distinct},
          {"points", std::move(points)}};
}

nlohmann::json RankJson(const StudySnapshot& snapshot, size_t max_points) {
  nlohmann::json points = PointsJson(snapshot, max_points);
  std::vector<double> sorted = FinishedObjectives(snapshot);
  std::sort(sorted.begin(), sorted.end());
  const bool maximize = snapshot.study.spec.goal() == Goal::kMaximize;
  for (nlohmann::json& trial : points["trials"]) {
    const double value = trial["value"].get<double>();
    // 1 + how many values are strictly better.
    const size_t better =
        maximize ? sorted.end() -
                       std::upper_bound(sorted.begin(), sorted.end(), value)
                 : std::lower_bound(sorted.begin(), sorted.end(), value) -
                       sorted.begin();
    trial["rank"] = better + 1;
  }
  return points;
}

}  // namespace hptune::dashboard
