// The trials table's CSV export (GET /api/studies/S/trials.csv,
// docs/dashboard.md), its columns named as `hptune trials list --format
// csv`'s (src/cli/trial_table.cc), so one script reads both. Used by the
// study routes. Pure; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_TRIALS_CSV_H_
#define HPTUNE_SRC_DASHBOARD_TRIALS_CSV_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::dashboard {

// `trials` as CSV (RFC 4180 quoting, a formula-like cell defused): trialId,
// state, one column per parameter, then `objective` (or, when the spec
// lists its metrics, one column per metric), one per `extra` metric, then
// `feasible` when the study has constraints and `optimal` (in `optimal`)
// with several objectives, stoppedEarly, startTime, endTime. A name taken
// by an earlier column gets a prefix: hyperparameters.NAME, metrics.NAME.
std::string TrialsCsv(const std::vector<const Trial*>& trials,
                      const StudySpec& spec,
                      const std::vector<std::string>& extra,
                      const std::set<int64_t>& optimal);

// The export's file name: STUDY-trials.EXTENSION, each byte of the study's
// name outside [A-Za-z0-9._-] made '_' (it goes in a header).
std::string ExportFileName(std::string_view study, std::string_view extension);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_TRIALS_CSV_H_
