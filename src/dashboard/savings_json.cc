#include "src/dashboard/savings_json.h"

#include <cmath>
#include <optional>
#include <vector>

#include "hptune/core/savings.h"

namespace hptune::dashboard {
namespace {

nlohmann::json OrNull(const std::optional<double>& x) {
  if (!x || !std::isfinite(*x)) return nullptr;
  return *x;
}

}  // namespace

nlohmann::json SavingsJson(const StudySnapshot& snapshot) {
  std::vector<const Trial*> trials;
  trials.reserve(snapshot.trials.size());
  bool any_stopped = false;
  for (const auto& trial : snapshot.trials) {
    if (trial == nullptr) continue;
    trials.push_back(trial.get());
    any_stopped = any_stopped || trial->stopped_early;
  }
  if (!any_stopped && !snapshot.study.spec.enable_early_stopping) {
    return nullptr;
  }
  const StoppingSavings s = ComputeStoppingSavings(trials, snapshot.footprint);
  return {{"trials_stopped", s.trials_stopped},
          {"trials_run_to_end", s.trials_run_to_end},
          {"steps_run", s.steps_run},
          {"full_trial_steps", OrNull(s.full_steps)},
          {"steps_saved", OrNull(s.steps_saved)},
          {"trial_seconds_saved", OrNull(s.trial_seconds_saved)},
          {"replica_seconds_saved", OrNull(s.replica_seconds_saved)},
          {"gpu_seconds_saved", OrNull(s.gpu_seconds_saved)},
          {"share_saved", OrNull(s.share_saved)},
          {"summary", SavingsText(s)}};
}

}  // namespace hptune::dashboard
