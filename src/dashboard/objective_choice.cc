#include "src/dashboard/objective_choice.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hptune::dashboard {

absl::StatusOr<std::optional<StudySnapshot>> ChooseObjective(
    const StudySnapshot& snapshot, const QueryParams& params) {
  const StudySpec& spec = snapshot.study.spec;
  auto it = params.find("objective");
  if (it == params.end() || it->second == spec.metric_tag()) {
    return std::nullopt;
  }
  std::string names;
  for (const MetricSpec& m : spec.Objectives()) {
    absl::StrAppend(&names, names.empty() ? "" : ", ", m.id);
    if (m.id != it->second) continue;
    // The chosen objective first: SetMetrics makes it metric_tag and goal.
    std::vector<MetricSpec> metrics = {m};
    for (const MetricSpec& other : spec.AllMetrics()) {
      if (other.id != m.id) metrics.push_back(other);
    }
    StudySnapshot chosen = snapshot;
    chosen.study.spec.SetMetrics(std::move(metrics));
    return chosen;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("objective \"", it->second.substr(0, 256),
                   "\": not an objective of study \"", snapshot.study.name,
                   "\" (its objectives: ", names, ")"));
}

}  // namespace hptune::dashboard
