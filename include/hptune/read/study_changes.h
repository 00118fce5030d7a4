// StudyChanges: which studies the store's event log names since the last
// look, for readers that keep what they computed of a study until it
// changes (CachedStudyAnswers, the dashboard's study cache). Every change
// of a study, of its trials (a new trial, a new state, a measurement) and
// of its job is an event naming it (store.h).
//
// Thread-compatible: one caller at a time.
#ifndef HPTUNE_READ_STUDY_CHANGES_H_
#define HPTUNE_READ_STUDY_CHANGES_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/store/store.h"

namespace hptune::read {

// The id of the store's last event (0 when none). The Store has no call for
// it; ids increase, so a binary search over ListEvents(after, 1) finds it in
// about 63 indexed reads.
absl::StatusOr<int64_t> LastEventId(store::Store& store);

class StudyChanges {
 public:
  // Follows `store`'s log from after event `event_id`; `store` must outlive
  // this.
  StudyChanges(store::Store& store, int64_t event_id)
      : store_(store), event_id_(event_id) {}

  // The studies named since the previous call: by an event's study, or by
  // its job ID for a job's event (a job's study is named by its job ID).
  absl::StatusOr<std::set<std::string>> Read();
  // The last event read.
  int64_t event_id() const { return event_id_; }

 private:
  store::Store& store_;
  int64_t event_id_;
};

}  // namespace hptune::read

#endif  // HPTUNE_READ_STUDY_CHANGES_H_
