#include "src/engine/trial_history.h"

#include <utility>

#include "hptune/core/status.h"
#include "hptune/core/trial_state.h"

namespace hptune::engine {
namespace {

// With more trials than this to read, and more than half of the study's,
// one ListTrialSummaries is cheaper than a read per trial.
constexpr size_t kReadOneByOneUpTo = 32;

// `now`: a store::TrialStatus (Read's test) or a Trial (Keep's: one Read
// did not read anew is the kept one).
template <typename Now>
bool Unchanged(const Trial& kept, const Now& now) {
  return kept.state == now.state && kept.end_time == now.end_time;
}

}  // namespace

TrialHistory::TrialHistory(store::Store& store, size_t max_trials)
    : store_(store), max_trials_(max_trials) {}

TrialHistory::StudyTrials& TrialHistory::TrialsOf(std::string_view study) {
  MutexLock lock(&mutex_);
  auto it = studies_.find(study);
  if (it == studies_.end()) it = studies_.try_emplace(std::string(study)).first;
  return it->second;
}

absl::StatusOr<std::vector<Trial>> TrialHistory::Summaries(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(store::TrialStatuses statuses,
                          store_.ListTrialStatuses(study));
  StudyTrials& kept = TrialsOf(study);
  MutexLock lock(&kept.mutex);
  if (kept.create_time != statuses.study_create_time) {
    Drop(kept);
    kept.create_time = statuses.study_create_time;
  }
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          Read(study, statuses, kept));
  Keep(kept, trials);
  return trials;
}

absl::StatusOr<std::vector<Trial>> TrialHistory::Read(
    std::string_view study, const store::TrialStatuses& statuses,
    StudyTrials& kept) {
  size_t to_read = 0;
  for (const store::TrialStatus& status : statuses.trials) {
    auto it = kept.ended.find(status.number);
    to_read += it == kept.ended.end() || !Unchanged(it->second, status);
  }
  if (to_read > kReadOneByOneUpTo && 2 * to_read > statuses.trials.size()) {
    return store_.ListTrialSummaries(study);
  }
  std::vector<Trial> trials;
  trials.reserve(statuses.trials.size());
  for (const store::TrialStatus& status : statuses.trials) {
    auto it = kept.ended.find(status.number);
    if (it != kept.ended.end() && Unchanged(it->second, status)) {
      trials.push_back(it->second);
      continue;
    }
    HPTUNE_ASSIGN_OR_RETURN(Trial trial,
                            store_.GetTrialSummary(study, status.number));
    trials.push_back(std::move(trial));
  }
  return trials;
}

void TrialHistory::Keep(StudyTrials& kept, const std::vector<Trial>& trials) {
  for (const Trial& trial : trials) {
    if (!IsTerminal(trial.state)) continue;
    auto [it, added] = kept.ended.try_emplace(trial.number, trial);
    if (!added) {
      if (!Unchanged(it->second, trial)) it->second = trial;
    } else if (++kept_trials_ > max_trials_) {
      Drop(kept);
      return;
    }
  }
}

void TrialHistory::Drop(StudyTrials& kept) {
  kept_trials_ -= kept.ended.size();
  kept.ended.clear();
}

void TrialHistory::Forget(std::string_view study) {
  StudyTrials& kept = TrialsOf(study);
  MutexLock lock(&kept.mutex);
  Drop(kept);
}

}  // namespace hptune::engine
