#include "hptune/core/trial.h"

#include "hptune/core/status.h"

namespace hptune {

absl::Status Trial::TransitionTo(TrialState to, Timestamp now) {
  HPTUNE_RETURN_IF_ERROR(CheckTrialTransition(state, to));
  state = to;
  if (to == TrialState::kActive && !start_time) start_time = now;
  if (IsTerminal(to)) end_time = now;
  return absl::OkStatus();
}

std::optional<double> Trial::FinalObjective(const std::string& metric) const {
  if (!final_measurement) return std::nullopt;
  return final_measurement->Get(metric);
}

std::optional<int64_t> Trial::LastStep() const {
  if (final_measurement) return final_measurement->step;
  if (!measurements.empty()) return measurements.back().step;
  return std::nullopt;
}

}  // namespace hptune
