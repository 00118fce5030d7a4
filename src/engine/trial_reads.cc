// TuningEngine's reads of trials and their leases: every read first ends
// the trials whose lease lapsed, and a client's heartbeat renews its own.
#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "src/engine/leases.h"
#include "src/engine/trial_history.h"

namespace hptune::engine {

absl::StatusOr<Trial> TuningEngine::GetTrial(std::string_view study,
                                             int64_t trial) {
  HPTUNE_ASSIGN_OR_RETURN(Trial read, store_.GetTrial(study, trial));
  std::vector<Trial> one = {std::move(read)};
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, one, nullptr));
  return std::move(one.front());
}

absl::StatusOr<std::vector<Trial>> TuningEngine::ListTrials(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_.ListTrials(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  return trials;
}

absl::StatusOr<std::vector<Trial>> TuningEngine::ListTrialSummaries(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  return trials;
}

absl::StatusOr<std::vector<Trial>> TuningEngine::RenewLeases(
    std::string_view study, std::string_view client_id) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          history_->Summaries(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  const Timestamp now = clock_.Now();
  std::vector<Trial> renewed;
  for (const Trial& t : trials) {
    if (t.client_id != client_id || IsTerminal(t.state) ||
        t.lease_seconds == 0) {
      continue;
    }
    // Checked again in the transaction: another call may have ended it.
    HPTUNE_ASSIGN_OR_RETURN(
        Trial u, store_.UpdateTrial(study, t.number, [&](Trial& u) {
          if (!IsTerminal(u.state) && !LeaseLapsed(u, now)) {
            RenewLease(u, u.lease_seconds, now);
          }
          return absl::OkStatus();
        }));
    if (IsTerminal(u.state) || u.heartbeat_time != now) continue;
    u.measurements.clear();
    renewed.push_back(std::move(u));
  }
  return renewed;
}

absl::Status TuningEngine::EndLapsedLeases(std::string_view study_name,
                                           std::vector<Trial>& trials,
                                           const StudyLock* lock) {
  const Timestamp now = clock_.Now();
  bool ended = false;
  for (Trial& t : trials) {
    if (!LeaseLapsed(t, now)) continue;
    HPTUNE_ASSIGN_OR_RETURN(
        Trial u, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
          return LeaseLapsed(u, now) ? EndLapsedTrial(u, now)
                                     : absl::OkStatus();
        }));
    if (t.measurements.empty()) u.measurements.clear();  // A summary.
    t = std::move(u);
    ended = true;
  }
  if (!ended || lock != nullptr) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return absl::OkStatus();
}

}  // namespace hptune::engine
