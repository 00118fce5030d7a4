#include "src/engine/leases.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "hptune/core/trial_state.h"
#include "hptune/engine/engine.h"

namespace hptune::engine {

bool LeaseLapsed(const Trial& trial, Timestamp now) {
  if (trial.lease_seconds <= 0 || !trial.heartbeat_time) return false;
  if (trial.state != TrialState::kActive &&
      trial.state != TrialState::kStopping) {
    return false;
  }
  return now - *trial.heartbeat_time >
         std::chrono::seconds(trial.lease_seconds);
}

absl::Status EndLapsedTrial(Trial& trial, Timestamp now) {
  const auto silent = std::chrono::duration_cast<std::chrono::seconds>(
      now - *trial.heartbeat_time);
  trial.reason = absl::StrCat("no heartbeat from client \"", trial.client_id,
                              "\" for ", silent.count(), " s (its lease is ",
                              trial.lease_seconds, " s)");
  return trial.TransitionTo(TrialState::kFailed, now);
}

void RenewLease(Trial& trial, int lease_seconds, Timestamp now) {
  trial.lease_seconds = lease_seconds;
  trial.heartbeat_time =
      lease_seconds > 0 ? std::optional<Timestamp>(now) : std::nullopt;
}

}  // namespace hptune::engine
