#include "hptune/core/study.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "hptune/core/pareto.h"

namespace hptune {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "UNKNOWN";
}

template <typename E, size_t N>
std::optional<E> ValueOf(const NameTable<E, N>& table, std::string_view text) {
  for (const auto& [v, name] : table) {
    if (name == text) return v;
  }
  return std::nullopt;
}

constexpr NameTable<Goal, 2> kGoals = {{
    {Goal::kMaximize, "MAXIMIZE"},
    {Goal::kMinimize, "MINIMIZE"},
}};
constexpr NameTable<Algorithm, 4> kAlgorithms = {{
    {Algorithm::kUnspecified, "ALGORITHM_UNSPECIFIED"},
    {Algorithm::kGridSearch, "GRID_SEARCH"},
    {Algorithm::kRandomSearch, "RANDOM_SEARCH"},
    {Algorithm::kQuasiRandomSearch, "QUASI_RANDOM_SEARCH"},
}};
constexpr NameTable<StudyState, 2> kStudyStates = {{
    {StudyState::kActive, "ACTIVE"},
    {StudyState::kCompleted, "COMPLETED"},
}};

}  // namespace

std::string_view ToString(Goal goal) { return NameOf(kGoals, goal); }
std::optional<Goal> ParseGoal(std::string_view text) {
  return ValueOf(kGoals, text);
}
std::string_view ToString(Algorithm algorithm) {
  return NameOf(kAlgorithms, algorithm);
}
std::optional<Algorithm> ParseAlgorithm(std::string_view text) {
  return ValueOf(kAlgorithms, text);
}
std::string_view ToString(StudyState state) {
  return NameOf(kStudyStates, state);
}
std::optional<StudyState> ParseStudyState(std::string_view text) {
  return ValueOf(kStudyStates, text);
}

int StudySpec::EffectiveMaxFailedTrials() const {
  if (max_failed_trials > 0) return max_failed_trials;
  int quarter = (max_trials + 3) / 4;
  return std::min(max_trials, std::max(3, quarter));
}

bool MetricSpec::IsSafe(double value) const {
  if (!safety_threshold) return true;
  return goal == Goal::kMaximize ? value >= *safety_threshold
                                 : value <= *safety_threshold;
}

void StudySpec::SetMetrics(std::vector<MetricSpec> list) {
  metrics = std::move(list);
  for (const MetricSpec& m : metrics) {
    if (m.is_constraint()) continue;
    metric_tag = m.id;
    goal = m.goal;
    break;
  }
}

std::vector<MetricSpec> StudySpec::AllMetrics() const {
  if (!metrics.empty()) return metrics;
  return {MetricSpec{.id = metric_tag, .goal = goal}};
}

std::vector<MetricSpec> StudySpec::Objectives() const {
  std::vector<MetricSpec> out;
  for (MetricSpec& m : AllMetrics()) {
    if (!m.is_constraint()) out.push_back(std::move(m));
  }
  return out;
}

std::vector<MetricSpec> StudySpec::Constraints() const {
  std::vector<MetricSpec> out;
  for (const MetricSpec& m : metrics) {
    if (m.is_constraint()) out.push_back(m);
  }
  return out;
}

std::optional<std::vector<double>> FinalMetricValues(const StudySpec& spec,
                                                     const Trial& trial) {
  if (trial.state != TrialState::kSucceeded) return std::nullopt;
  std::vector<double> values;
  for (const MetricSpec& m : spec.AllMetrics()) {
    std::optional<double> value = trial.FinalObjective(m.id);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

bool IsFeasibleResult(const StudySpec& spec, const Trial& trial) {
  std::optional<std::vector<double>> values = FinalMetricValues(spec, trial);
  if (!values) return false;
  const std::vector<MetricSpec> metrics = spec.AllMetrics();
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (!std::isfinite((*values)[i]) || !metrics[i].IsSafe((*values)[i])) {
      return false;
    }
  }
  return true;
}

std::optional<Trial> BestTrial(const StudySpec& spec,
                               const std::vector<Trial>& trials) {
  const Trial* best = nullptr;
  std::optional<double> best_value;
  for (const Trial& t : trials) {
    if (!IsFeasibleResult(spec, t)) continue;
    std::optional<double> value = t.FinalObjective(spec.metric_tag);
    if (value && (!best || spec.IsBetter(*value, *best_value))) {
      best = &t;
      best_value = value;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::vector<Trial> OptimalTrials(const StudySpec& spec,
                                 const std::vector<Trial>& trials) {
  const std::vector<MetricSpec> objectives = spec.Objectives();
  if (objectives.size() <= 1) {
    std::optional<Trial> best = BestTrial(spec, trials);
    if (!best) return {};
    return {*std::move(best)};
  }
  std::vector<const Trial*> feasible;
  std::vector<std::vector<double>> points;  // Maximised.
  for (const Trial& t : trials) {
    if (!IsFeasibleResult(spec, t)) continue;
    std::vector<double> point;
    for (const MetricSpec& m : objectives) {
      const double value = *t.FinalObjective(m.id);
      point.push_back(m.goal == Goal::kMaximize ? value : -value);
    }
    feasible.push_back(&t);
    points.push_back(std::move(point));
  }
  // Every point has objectives.size() finite entries: no error is possible.
  std::vector<size_t> front =
      ParetoFront(points).value_or(std::vector<size_t>{});
  std::vector<Trial> optimal;
  for (size_t i : front) optimal.push_back(*feasible[i]);
  return optimal;
}

}  // namespace hptune
