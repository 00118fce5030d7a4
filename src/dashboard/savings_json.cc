#include "src/dashboard/savings_json.h"

#include <cmath>

namespace hptune::dashboard {

nlohmann::json SavingsJson(const std::optional<StoppingSavings>& s) {
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
