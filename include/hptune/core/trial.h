// A trial: one evaluation of one point of a study's search space.
//
// Created by the engine from a designer's suggestion (or by a user), run by a
// launcher or a client, persisted by a Store. Value type; thread-compatible.
#ifndef HPTUNE_CORE_TRIAL_H_
#define HPTUNE_CORE_TRIAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/measurement.h"
#include "hptune/core/search_space.h"
#include "hptune/core/time.h"
#include "hptune/core/trial_state.h"

namespace hptune {

struct Trial {
  int64_t number = 0;  // 1, 2, 3, ... dense within a study; set by the Store.
  ParameterAssignment parameters;
  TrialState state = TrialState::kRequested;
  std::vector<Measurement> measurements;  // Intermediate, in report order.
  std::optional<Measurement> final_measurement;
  bool stopped_early = false;
  // Why it failed, is infeasible, or ended without a final measurement.
  std::string reason;
  // The ask/tell client the trial was handed to ("" for none).
  std::string client_id;
  // Which designer made it and how ("grid[12]", "random", "user"), for audits.
  std::string origin;
  Timestamp create_time{};
  std::optional<Timestamp> start_time;  // Set on entering ACTIVE.
  std::optional<Timestamp> end_time;    // Set on entering a terminal state.
  // Attempts a runner started (the current one's number; 0: none), and how
  // many of them a server's drain ended: those do not count against the
  // trial's retries. See docs/trainer.md, "Re-runs".
  int attempt = 0;
  int drained_attempts = 0;
  // The lease of an ask/tell trial (docs/api.md, "Leases"): while it is
  // ACTIVE or STOPPING, the engine ends it as FAILED once lease_seconds
  // pass after heartbeat_time without a heartbeat from its client. 0: no
  // lease (a runner's trials, a client that asked for none).
  int lease_seconds = 0;
  std::optional<Timestamp> heartbeat_time;

  // Moves to `to` if the state machine allows it, stamping start_time on
  // ACTIVE and end_time on a terminal state.
  [[nodiscard]] absl::Status TransitionTo(TrialState to, Timestamp now);

  // The final measurement's value of `metric`, if any.
  std::optional<double> FinalObjective(const std::string& metric) const;
  // The step of its last report: the final measurement's, else the latest
  // intermediate one's; nullopt when it reported none.
  std::optional<int64_t> LastStep() const;

  bool operator==(const Trial&) const = default;
};

}  // namespace hptune

#endif  // HPTUNE_CORE_TRIAL_H_
