// The trial state machine: the only place that says which trial state changes
// are legal.
//
// The engine drives trials through it, the stores enforce it inside their
// transactions, and the API layers map it to Vizier's and AI Platform's names.
// Pure functions; thread-safe.
//
//   REQUESTED ──► ACTIVE ──► STOPPING ──► ended
//       │            └──────────────────► ended
//       └──► ended (e.g. a user's trial created with its result)
//   ended = SUCCEEDED | INFEASIBLE | FAILED | CANCELLED (final)
#ifndef HPTUNE_CORE_TRIAL_STATE_H_
#define HPTUNE_CORE_TRIAL_STATE_H_

#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace hptune {

enum class TrialState {
  kRequested,  // Suggested; not started (AI Platform: QUEUED).
  kActive,     // Running or handed to a client (AI Platform: RUNNING).
  kStopping,   // Asked to stop (early stopping, cancel); replicas winding down.
  kSucceeded,  // Completed with a result (possibly stopped early).
  kInfeasible,  // Completed; the point cannot be evaluated (a client said so).
  kFailed,      // Completed; the training job failed after its retries.
  kCancelled,   // Completed; its job was cancelled before it finished.
};

// Vizier's names: "REQUESTED", "ACTIVE", "STOPPING", "SUCCEEDED",
// "INFEASIBLE", plus hptune's "FAILED" and "CANCELLED".
std::string_view ToString(TrialState state);
std::optional<TrialState> ParseTrialState(std::string_view text);

// AI Platform's trial state names: QUEUED, RUNNING, SUCCEEDED, FAILED,
// CANCELLED (STOPPING shows as RUNNING; INFEASIBLE as FAILED).
std::string_view ToAiPlatformString(TrialState state);

bool IsTerminal(TrialState state);

// OK when `from` -> `to` is legal; FailedPrecondition naming both otherwise.
// Staying in the same state is not a transition and is an error too.
[[nodiscard]] absl::Status CheckTrialTransition(TrialState from, TrialState to);

}  // namespace hptune

#endif  // HPTUNE_CORE_TRIAL_STATE_H_
