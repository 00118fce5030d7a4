// A trial's objective as the dashboard's views show it: the final value of
// the study's metric when it is finite, else none (an infinite or NaN value
// is plotted nowhere). Used by the study, curve and view answers. Pure;
// thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_OBJECTIVE_H_
#define HPTUNE_SRC_DASHBOARD_OBJECTIVE_H_

#include <cmath>
#include <optional>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::dashboard {

inline std::optional<double> FiniteObjective(const Trial& trial,
                                             const StudySpec& spec) {
  std::optional<double> value = trial.FinalObjective(spec.metric_tag());
  if (value && !std::isfinite(*value)) return std::nullopt;
  return value;
}

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_OBJECTIVE_H_
