#include "hptune/read/study_changes.h"

#include <limits>
#include <vector>

#include "hptune/core/status.h"

namespace hptune::read {
namespace {

constexpr int kEventPage = 5000;

}  // namespace

absl::StatusOr<int64_t> LastEventId(store::Store& store) {
  int64_t low = 0;  // An id at or below the last (0: none yet).
  int64_t high = std::numeric_limits<int64_t>::max() / 2;  // Above the last.
  while (high - low > 1) {
    const int64_t mid = low + (high - low) / 2;
    HPTUNE_ASSIGN_OR_RETURN(std::vector<store::Event> after,
                            store.ListEvents(mid - 1, 1));
    if (after.empty()) {
      high = mid;
    } else {
      low = after.front().id;
    }
  }
  return low;
}

absl::StatusOr<std::set<std::string>> StudyChanges::Read() {
  std::set<std::string> studies;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<store::Event> events,
                            store_.ListEvents(event_id_, kEventPage));
    for (const store::Event& event : events) {
      event_id_ = event.id;
      if (!event.study.empty()) studies.insert(event.study);
      if (!event.job_id.empty()) studies.insert(event.job_id);
    }
    if (events.size() < kEventPage) return studies;
  }
}

}  // namespace hptune::read
