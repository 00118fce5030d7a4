#include "src/dashboard/trial_events.h"

#include "hptune/core/status.h"

namespace hptune::dashboard {
namespace {
constexpr int kPage = 10000;
}  // namespace

absl::StatusOr<bool> TrialEvents::Advance(store::Store& store, int max_pages) {
  int64_t after;
  {
    MutexLock lock(&mu_);
    after = event_id_;
  }
  for (int page = 0; page < max_pages; ++page) {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<store::Event> events,
                            store.ListEvents(after, kPage));
    MutexLock lock(&mu_);
    for (const store::Event& event : events) {
      after = event.id;
      if (event.trial_number <= 0 ||
          (event.kind != "replica" && event.kind != "trial_state")) {
        continue;
      }
      const auto key = std::pair(event.study, event.trial_number);
      if (event.kind == "replica" &&
          event.detail.find("; restart ") != std::string::npos) {
        ++restarts_[key];
      }
      std::vector<TrialEvent>& list = events_[key];
      if (list.size() < kMaxPerTrial) {
        list.push_back({event.time, event.kind, event.detail});
      }
    }
    event_id_ = after;
    if (events.size() < kPage) {
      caught_up_ = true;
      return true;
    }
  }
  return false;
}

std::vector<TrialEvent> TrialEvents::Of(const std::string& study,
                                        int64_t trial) const {
  MutexLock lock(&mu_);
  auto it = events_.find({study, trial});
  return it == events_.end() ? std::vector<TrialEvent>{} : it->second;
}

std::map<int64_t, int> TrialEvents::Restarts(const std::string& study) const {
  MutexLock lock(&mu_);
  std::map<int64_t, int> restarts;
  for (auto it = restarts_.lower_bound({study, 0});
       it != restarts_.end() && it->first.first == study; ++it) {
    restarts[it->first.second] = it->second;
  }
  return restarts;
}

bool TrialEvents::caught_up() const {
  MutexLock lock(&mu_);
  return caught_up_;
}

}  // namespace hptune::dashboard
