#include "hptune/core/trial_state.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace hptune {
namespace {

struct StateNames {
  TrialState state;
  std::string_view name;
  std::string_view ai_platform_name;
};
constexpr std::array<StateNames, 7> kNames = {{
    {TrialState::kRequested, "REQUESTED", "QUEUED"},
    {TrialState::kActive, "ACTIVE", "RUNNING"},
    {TrialState::kStopping, "STOPPING", "RUNNING"},
    {TrialState::kSucceeded, "SUCCEEDED", "SUCCEEDED"},
    {TrialState::kInfeasible, "INFEASIBLE", "FAILED"},
    {TrialState::kFailed, "FAILED", "FAILED"},
    {TrialState::kCancelled, "CANCELLED", "CANCELLED"},
}};

}  // namespace

std::string_view ToString(TrialState state) {
  for (const auto& n : kNames) {
    if (n.state == state) return n.name;
  }
  return "UNKNOWN";
}

std::optional<TrialState> ParseTrialState(std::string_view text) {
  for (const auto& n : kNames) {
    if (n.name == text) return n.state;
  }
  return std::nullopt;
}

std::string_view ToAiPlatformString(TrialState state) {
  for (const auto& n : kNames) {
    if (n.state == state) return n.ai_platform_name;
  }
  return "STATE_UNSPECIFIED";
}

bool IsTerminal(TrialState state) {
  switch (state) {
    case TrialState::kRequested:
    case TrialState::kActive:
    case TrialState::kStopping:
      return false;
    case TrialState::kSucceeded:
    case TrialState::kInfeasible:
    case TrialState::kFailed:
    case TrialState::kCancelled:
      return true;
  }
  return false;
}

absl::Status CheckTrialTransition(TrialState from, TrialState to) {
  bool legal = false;
  switch (from) {
    case TrialState::kRequested:
      legal = to == TrialState::kActive || IsTerminal(to);
      break;
    case TrialState::kActive:
      legal = to == TrialState::kStopping || IsTerminal(to);
      break;
    case TrialState::kStopping:
      legal = IsTerminal(to);
      break;
    default:  // Terminal states are final.
      legal = false;
  }
  if (legal) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("trial cannot go from ", std::string(ToString(from)), " to ",
                   std::string(ToString(to)),
                   IsTerminal(from) ? " (it has already ended)" : ""));
}

}  // namespace hptune
