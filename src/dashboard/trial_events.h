// Each trial's history from the store's event log: replica starts, exits and
// restarts, and state changes, for the trial page and the timeline's restart
// marks. The Store can list events only in id order, so this reads the whole
// log once, a bounded number of pages per call (a large database is indexed
// in the background while pages already answer), then follows it.
// Used by DashboardServer. Thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_TRIAL_EVENTS_H_
#define HPTUNE_SRC_DASHBOARD_TRIAL_EVENTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "hptune/core/time.h"
#include "hptune/store/store.h"

namespace hptune::dashboard {

struct TrialEvent {
  Timestamp time{};
  std::string kind;  // "replica" or "trial_state".
  std::string detail;
};

class TrialEvents {
 public:
  // Reads at most `max_pages` pages of events; returns whether it has
  // reached the end of the log.
  absl::StatusOr<bool> Advance(store::Store& store, int max_pages);
  std::vector<TrialEvent> Of(const std::string& study, int64_t trial) const;
  // Replica restarts of each trial of `study` that had any.
  std::map<int64_t, int> Restarts(const std::string& study) const;
  bool caught_up() const;

 private:
  static constexpr size_t kMaxPerTrial = 1000;
  mutable Mutex mu_;
  int64_t event_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool caught_up_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::pair<std::string, int64_t>, std::vector<TrialEvent>> events_
      ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, int64_t>, int> restarts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_TRIAL_EVENTS_H_
