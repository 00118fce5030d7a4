#include "hptune/core/study.h"

#include <algorithm>
#include <array>

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

std::optional<Trial> BestTrial(const StudySpec& spec,
                               const std::vector<Trial>& trials) {
  const Trial* best = nullptr;
  std::optional<double> best_value;
  for (const Trial& t : trials) {
    if (t.state != TrialState::kSucceeded) continue;
    std::optional<double> value = t.FinalObjective(spec.metric_tag);
    if (value && (!best || spec.IsBetter(*value, *best_value))) {
      best = &t;
      best_value = value;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace hptune
