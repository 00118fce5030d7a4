// CurveCache: the learning curves the median stopping rules read, kept in
// memory between checks and extended from the store. Internal to the engine
// (TuningEngine::CheckEarlyStopping); thread-safe.
//
// Clients check early stopping after every measurement, so a check must not
// cost a whole curve: each one reads the study's trial statuses (no
// parameters, no measurements) and, per curve it needs, only the
// measurements reported since the last check (Store::ListMeasurements with
// the cached count to skip). That is sound because the store only appends
// measurements: a trial's first k never change while its study lives. A
// study deleted and created again under the same name has another
// create_time, and its curves are read afresh.
#ifndef HPTUNE_SRC_ENGINE_CURVE_CACHE_H_
#define HPTUNE_SRC_ENGINE_CURVE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hptune/core/measurement.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::engine {

class CurveCache {
 public:
  // Above `max_measurements` cached measurements the cache is emptied (and
  // refilled by later checks), which bounds its memory at about 100 bytes a
  // measurement.
  CurveCache(store::Store& store, size_t max_measurements);

  // Calls `use` with the study's SUCCEEDED trials and its ACTIVE trials in
  // `only` (every ACTIVE one when empty), in number order, each with number,
  // state, end time and intermediate measurements as the store has them now
  // (other fields unset). The trials are lent, not copied: valid during the
  // call only. Checks of one process take turns.
  absl::Status WithCurves(
      const StudyRecord& study, const std::set<int64_t>& only,
      absl::FunctionRef<absl::Status(const std::vector<Trial>&)> use);

 private:
  struct Curve {
    std::vector<Measurement> measurements;
    // Set once the trial has ended: its curve is then complete.
    std::optional<Timestamp> end_time;
  };
  struct StudyCurves {
    Timestamp create_time{};
    std::map<int64_t, Curve> by_trial;
  };

  store::Store& store_;
  const size_t max_measurements_;
  std::mutex mutex_;
  std::map<std::string, StudyCurves, std::less<>> studies_;
  size_t cached_measurements_ = 0;
};

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_CURVE_CACHE_H_
