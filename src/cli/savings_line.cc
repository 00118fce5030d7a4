#include "src/cli/savings_line.h"

#include <cmath>

#include "nlohmann/json.hpp"

namespace hptune::cli {

std::string SavingsLine(const StoppingSavings& savings) {
  return "early stopping: " + SavingsText(savings);
}

std::string WithSavingsJson(const std::string& job_json,
                            const std::optional<StoppingSavings>& savings) {
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson job = OrderedJson::parse(job_json);
  OrderedJson field = nullptr;
  if (savings) {
    field = OrderedJson::object();
    for (const SavingsCount& c : SavingsCounts(*savings)) {
      field[c.camel_name] = c.value;
    }
    for (const SavingsField& f : SavingsEstimates(*savings)) {
      field[f.camel_name] = f.value && std::isfinite(*f.value)
                                ? OrderedJson(*f.value)
                                : OrderedJson(nullptr);
    }
    field["summary"] = SavingsText(*savings);
  }
  job["earlyStoppingSavings"] = std::move(field);
  return job.dump(2);
}

}  // namespace hptune::cli
