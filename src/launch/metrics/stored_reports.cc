#include "hptune/launch/stored_reports.h"

#include <algorithm>

namespace hptune::launch {

StoredReports::StoredReports(const std::vector<Measurement>& stored) {
  for (const Measurement& m : stored) {
    stored_[{m.step, m.metrics}].push_back(m.time);
  }
}

std::vector<Measurement> StoredReports::TakeUnstored(
    std::vector<Measurement> reports) {
  std::vector<Measurement> unstored;
  for (Measurement& report : reports) {
    auto same = stored_.find({report.step, report.metrics});
    if (same != stored_.end()) {
      std::vector<Timestamp>& times = same->second;
      // Timestamp{} is a report the reader could not date.
      auto time = report.time == Timestamp{}
                      ? times.begin()
                      : std::find(times.begin(), times.end(), report.time);
      if (time != times.end()) {
        times.erase(time);
        if (times.empty()) stored_.erase(same);
        continue;
      }
    }
    unstored.push_back(std::move(report));
  }
  return unstored;
}

}  // namespace hptune::launch
