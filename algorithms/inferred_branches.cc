#include "hptune/algorithms/inferred_branches.h"

#include <algorithm>
#include <string>
#include <utility>

namespace hptune::algorithms {
namespace {

// Trials whose missing parameters are branches not taken: a client
// completed them and named what it did not suggest. Others may hold every
// root a designer proposed (failed, cancelled, pending), or lack what an
// objective that raised never reached (infeasible).
bool LeftOutWhatItDidNotSuggest(const Trial& t) {
  return t.state == TrialState::kSucceeded;
}

// Where `values` (q's values where the child is present) activate it.
ParentCondition ConditionOn(const ParameterSpec& q,
                            const std::vector<ParameterValue>& values) {
  ParentCondition condition{.parent = q.name};
  for (const ParameterValue& v : values) {
    switch (q.type) {
      case ParameterType::kCategorical:
        condition.categorical_values.push_back(v.AsString());
        break;
      case ParameterType::kInteger:
        condition.int_values.push_back(v.AsInteger());
        break;
      default:
        condition.discrete_values.push_back(v.AsDouble());
    }
  }
  std::ranges::sort(condition.categorical_values);
  std::ranges::sort(condition.int_values);
  std::ranges::sort(condition.discrete_values);
  return condition;
}

// The condition on `q` that explains `p` over `trials` (InferBranches), or
// nullopt.
std::optional<ParentCondition> Explains(
    const ParameterSpec& q, const ParameterSpec& p,
    const std::vector<const Trial*>& trials) {
  if (q.type == ParameterType::kDouble) return std::nullopt;
  std::vector<ParameterValue> on;   // q's values where p is present.
  std::vector<ParameterValue> off;  // And where it is not.
  bool lacked_since_joining = false;
  for (const Trial* t : trials) {
    const bool has_p = t->parameters.contains(p.name);
    lacked_since_joining |= !has_p && t->number >= p.first_trial;
    auto q_value = t->parameters.find(q.name);
    if (q_value == t->parameters.end()) {
      if (has_p) return std::nullopt;
      continue;
    }
    std::vector<ParameterValue>& side = has_p ? on : off;
    if (std::ranges::find(side, q_value->second) == side.end()) {
      side.push_back(q_value->second);
    }
  }
  if (on.empty() || off.empty() || !lacked_since_joining) return std::nullopt;
  for (const ParameterValue& v : off) {
    if (std::ranges::find(on, v) != on.end()) return std::nullopt;
  }
  return ConditionOn(q, on);
}

}  // namespace

std::optional<SearchSpace> InferBranches(const SearchSpace& space,
                                         const std::vector<Trial>& ended) {
  const auto joined_later = [](const ParameterSpec& p) {
    return p.first_trial > 0 && !p.condition;
  };
  if (std::ranges::none_of(space.parameters(), joined_later)) {
    return std::nullopt;  // Every study with a config.
  }
  std::vector<const Trial*> evidence;
  for (const Trial& t : ended) {
    if (LeftOutWhatItDidNotSuggest(t)) evidence.push_back(&t);
  }
  if (evidence.empty()) return std::nullopt;
  std::vector<ParameterSpec> parameters = space.parameters();
  bool inferred = false;
  for (size_t i = 0; i < parameters.size(); ++i) {
    ParameterSpec& p = parameters[i];
    if (!joined_later(p)) continue;
    for (size_t j = 0; j < i; ++j) {
      std::optional<ParentCondition> condition =
          Explains(parameters[j], p, evidence);
      if (!condition) continue;
      p.condition = *std::move(condition);
      p.first_trial = 0;  // A child: its condition says where it is.
      inferred = true;
      break;
    }
  }
  if (!inferred) return std::nullopt;
  return SearchSpace(std::move(parameters));
}

void KeepActiveParameters(const SearchSpace& space,
                          std::vector<Trial>& trials) {
  const auto& parameters = space.parameters();
  for (Trial& t : trials) {
    const std::vector<bool> active = space.ActiveMask(t.parameters);
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (!active[i]) t.parameters.erase(parameters[i].name);
    }
  }
}

}  // namespace hptune::algorithms
