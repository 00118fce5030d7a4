#include "hptune/core/study.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
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
constexpr NameTable<Algorithm, 5> kAlgorithms = {{
    {Algorithm::kUnspecified, "ALGORITHM_UNSPECIFIED"},
    {Algorithm::kGridSearch, "GRID_SEARCH"},
    {Algorithm::kRandomSearch, "RANDOM_SEARCH"},
    {Algorithm::kQuasiRandomSearch, "QUASI_RANDOM_SEARCH"},
    {Algorithm::kMultiFidelityGp, "MULTI_FIDELITY_GP"},
}};
constexpr NameTable<MeasurementSelection, 3> kMeasurementSelections = {{
    {MeasurementSelection::kLast, "LAST_MEASUREMENT"},
    {MeasurementSelection::kBest, "BEST_MEASUREMENT"},
    {MeasurementSelection::kLast, "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED"},
}};
constexpr NameTable<StudyState, 4> kStudyStates = {{
    {StudyState::kActive, "ACTIVE"},
    {StudyState::kCompleted, "COMPLETED"},
    {StudyState::kFailed, "FAILED"},
    {StudyState::kCancelled, "CANCELLED"},
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
std::string_view ToString(MeasurementSelection selection) {
  return NameOf(kMeasurementSelections, selection);
}
std::optional<MeasurementSelection> ParseMeasurementSelection(
    std::string_view text) {
  return ValueOf(kMeasurementSelections, text);
}
std::string_view ToString(StudyState state) {
  return NameOf(kStudyStates, state);
}
std::optional<StudyState> ParseStudyState(std::string_view text) {
  return ValueOf(kStudyStates, text);
}

std::string StudyRecord::DescribeBudget() const {
  std::string text = "maxTrials (" + std::to_string(spec.max_trials);
  if (resumed_trials > 0) {
    text += " beyond " + std::to_string(resumed_trials) + " resumed";
  }
  return text + ")";
}

const std::string& EarlyStoppingSettings::EffectiveStoppingRule() const {
  static const std::string* const kDefault =
      new std::string(kDefaultStoppingRule);
  return early_stopping_rule.empty() ? *kDefault : early_stopping_rule;
}

int Budget::EffectiveMaxFailedTrials() const {
  if (max_failed_trials > 0) return max_failed_trials;
  // In 64 bits: an unvalidated spec's max_trials may be near INT_MAX.
  const int64_t quarter = (static_cast<int64_t>(max_trials) + 3) / 4;
  return static_cast<int>(
      std::min<int64_t>(max_trials, std::max<int64_t>(3, quarter)));
}

bool MetricSpec::IsSafe(double value) const {
  if (!safety_threshold) return true;
  return goal == Goal::kMaximize ? value >= *safety_threshold
                                 : value <= *safety_threshold;
}

void Problem::SetSingleMetric(std::string tag, Goal goal) {
  metrics_ = {MetricSpec{.id = std::move(tag), .goal = goal}};
  metrics_listed_ = false;
}

void Problem::SetMetrics(std::vector<MetricSpec> list) {
  metrics_ = std::move(list);
  metrics_listed_ = true;
}

const MetricSpec& Problem::PrimaryMetric() const {
  static const MetricSpec* const kDefault =
      new MetricSpec{.id = std::string(kDefaultMetricTag)};
  for (const MetricSpec& m : metrics_) {
    if (!m.is_constraint()) return m;
  }
  return *kDefault;
}

std::vector<MetricSpec> Problem::Objectives() const {
  std::vector<MetricSpec> out;
  for (const MetricSpec& m : metrics_) {
    if (!m.is_constraint()) out.push_back(m);
  }
  return out;
}

std::vector<MetricSpec> Problem::Constraints() const {
  std::vector<MetricSpec> out;
  for (const MetricSpec& m : metrics_) {
    if (m.is_constraint()) out.push_back(m);
  }
  return out;
}

std::optional<std::vector<double>> FinalMetricValues(const Problem& problem,
                                                     const Trial& trial) {
  if (trial.state != TrialState::kSucceeded) return std::nullopt;
  std::vector<double> values;
  for (const MetricSpec& m : problem.AllMetrics()) {
    std::optional<double> value = trial.FinalObjective(m.id);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

bool IsFeasibleResult(const Problem& problem, const Trial& trial) {
  std::optional<std::vector<double>> values = FinalMetricValues(problem, trial);
  if (!values) return false;
  const std::vector<MetricSpec> metrics = problem.AllMetrics();
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (!std::isfinite((*values)[i]) || !metrics[i].IsSafe((*values)[i])) {
      return false;
    }
  }
  return true;
}

namespace {

// The index of BestTrial's trial in `trials`.
std::optional<size_t> BestIndex(const Problem& problem,
                                const std::vector<const Trial*>& trials) {
  std::optional<size_t> best;
  std::optional<double> best_value;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (!IsFeasibleResult(problem, *trials[i])) continue;
    std::optional<double> value =
        trials[i]->FinalObjective(problem.metric_tag());
    if (value && (!best || problem.IsBetter(*value, *best_value))) {
      best = i;
      best_value = value;
    }
  }
  return best;
}

std::vector<const Trial*> Pointers(const std::vector<Trial>& trials) {
  std::vector<const Trial*> pointers;
  pointers.reserve(trials.size());
  for (const Trial& t : trials) pointers.push_back(&t);
  return pointers;
}

}  // namespace

std::optional<Trial> BestTrial(const Problem& problem,
                               const std::vector<Trial>& trials) {
  std::optional<size_t> best = BestIndex(problem, Pointers(trials));
  if (!best) return std::nullopt;
  return trials[*best];
}

std::vector<size_t> OptimalTrialIndices(
    const Problem& problem, const std::vector<const Trial*>& trials) {
  const std::vector<MetricSpec> objectives = problem.Objectives();
  if (objectives.size() <= 1) {
    std::optional<size_t> best = BestIndex(problem, trials);
    if (!best) return {};
    return {*best};
  }
  std::vector<size_t> feasible;
  std::vector<std::vector<double>> points;  // Maximised.
  for (size_t i = 0; i < trials.size(); ++i) {
    if (!IsFeasibleResult(problem, *trials[i])) continue;
    std::vector<double> point;
    for (const MetricSpec& m : objectives) {
      const double value = *trials[i]->FinalObjective(m.id);
      point.push_back(m.goal == Goal::kMaximize ? value : -value);
    }
    feasible.push_back(i);
    points.push_back(std::move(point));
  }
  // Every point has objectives.size() finite entries: no error is possible.
  std::vector<size_t> optimal;
  for (size_t i : ParetoFront(points).value_or(std::vector<size_t>{})) {
    optimal.push_back(feasible[i]);
  }
  return optimal;
}

std::vector<Trial> OptimalTrials(const Problem& problem,
                                 const std::vector<Trial>& trials) {
  std::vector<Trial> optimal;
  for (size_t i : OptimalTrialIndices(problem, Pointers(trials))) {
    optimal.push_back(trials[i]);
  }
  return optimal;
}

}  // namespace hptune
