// StoredReports: which of a trainer's reports a trial has stored already.
//
// A trial's metric files are read again from their start whenever the
// process reading them is not the one that read them first: a runner that
// reattaches to replicas a dead runner left running (Slurm), and the crash
// recovery that stores what a dead runner had not read yet
// (src/jobs/trial_recovery.h). Both hand what they read to TakeUnstored, the
// one place that decides which reports are new.
//
// The rule: a report is already stored when a stored measurement has the
// same step and metrics and, when the report carries its own time (every
// hypertune-file report and timestamped stdout lines), the same time. A
// report without a time (a plain stdout line, stamped when stored) matches
// on step and metrics alone. Each stored measurement matches at most one
// report, so a trainer that printed the same line twice keeps both.
//
// Thread-compatible value type.
#ifndef HPTUNE_LAUNCH_STORED_REPORTS_H_
#define HPTUNE_LAUNCH_STORED_REPORTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/measurement.h"

namespace hptune::launch {

class StoredReports {
 public:
  StoredReports() = default;
  explicit StoredReports(const std::vector<Measurement>& stored);

  // The reports, in order, that match no stored measurement; a matched
  // stored measurement is used up.
  std::vector<Measurement> TakeUnstored(std::vector<Measurement> reports);

 private:
  using Key = std::pair<int64_t, std::map<std::string, double>>;
  // The times of the stored measurements with each step and metrics.
  std::map<Key, std::vector<Timestamp>> stored_;
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_STORED_REPORTS_H_
