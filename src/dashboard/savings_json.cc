#include "src/dashboard/savings_json.h"

#include <cmath>
#include <optional>
#include <vector>

#include "hptune/core/savings.h"

namespace hptune::dashboard {

nlohmann::json SavingsJson(const StudySnapshot& snapshot) {
  std::vector<const Trial*> trials;
  trials.reserve(snapshot.trials.size());
  for (const auto& trial : snapshot.trials) {
    if (trial != nullptr) trials.push_back(trial.get());
  }
  const std::optional<StoppingSavings> s = ShownStoppingSavings(
      trials, snapshot.study.spec.enable_early_stopping, snapshot.footprint);
  if (!s) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (const SavingsCount& c : SavingsCounts(*s)) out[c.snake_name] = c.value;
  for (const SavingsField& f : SavingsEstimates(*s)) {
    out[f.snake_name] = f.value && std::isfinite(*f.value)
                            ? nlohmann::json(*f.value)
                            : nlohmann::json(nullptr);
  }
  out["summary"] = SavingsText(*s);
  return out;
}

}  // namespace hptune::dashboard
