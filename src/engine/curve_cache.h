// CurveCache: the learning curves the median stopping rules read, kept in
// memory between checks and extended from the store. Internal to the engine
// (TuningEngine::CheckEarlyStopping); thread-safe.
//
// Clients check early stopping after every measurement, so a check must not
// cost a whole curve: each one reads the study's trial statuses (no
// parameters, no measurements) and, per curve it needs, only the
// measurements reported since the last check (Store::ListMeasurements with
// the count already read to skip), which extend the cached LearningCurve.
// That is sound because the store only appends measurements: a trial's first
// k never change while its study lives. The study's spec never changes
// either, so it is read once. A study deleted and created again under the
// same name has another create_time, and is read afresh.
#ifndef HPTUNE_SRC_ENGINE_CURVE_CACHE_H_
#define HPTUNE_SRC_ENGINE_CURVE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/measurement.h"
#include "hptune/core/mutex.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::engine {

class CurveCache {
 public:
  // Above `max_points` cached curve points the cache is emptied (and
  // refilled by later checks), which bounds its memory at about 24 bytes a
  // point.
  CurveCache(store::Store& store, size_t max_points);

  // Calls `use` with the study's spec and the curves of its metric of its
  // SUCCEEDED trials and of its ACTIVE trials in `only` (every ACTIVE one
  // when empty), in number order, as the store has them now. Both are lent:
  // valid during the call only. Checks of one process take turns. NotFound
  // for an unknown study; Aborted when it is deleted and created again
  // during the check.
  [[nodiscard]] absl::Status WithCurves(
      std::string_view study, const std::set<int64_t>& only,
      absl::FunctionRef<absl::Status(const StudySpec&,
                                     std::span<const algorithms::TrialCurve>)>
          use);
  // The same, first asking `wants` with the study's spec (from the cache,
  // with no curve read) whether to read the curves; when it says no, `use`
  // is not called. The engine builds the study's policy there, and only a
  // curve rule needs the curves.
  [[nodiscard]] absl::Status WithCurves(
      std::string_view study, const std::set<int64_t>& only,
      absl::FunctionRef<bool(const StudySpec&)> wants,
      absl::FunctionRef<absl::Status(const StudySpec&,
                                     std::span<const algorithms::TrialCurve>)>
          use);

 private:
  struct Curve {
    algorithms::LearningCurve curve;
    int64_t measurements_read = 0;
    // Set once the trial has ended: its curve is then complete.
    std::optional<Timestamp> end_time;
  };
  struct StudyCurves {
    Timestamp create_time{};
    std::optional<StudySpec> spec;  // Of the study created at create_time.
    std::map<int64_t, Curve> by_trial;
  };

  // The cached spec and curves of the study named `study` created at
  // `create_time`, emptied when the name belonged to another.
  absl::StatusOr<StudyCurves*> CurvesOf(std::string_view study,
                                        Timestamp create_time)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Empties `curves`.
  void Forget(StudyCurves& curves) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Extends `cached` with `reported`, the measurements after those it has
  // read, and keeps count of them.
  void Extend(Curve& cached, std::span<const Measurement> reported,
              const std::string& metric) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  store::Store& store_;
  const size_t max_points_;
  Mutex mutex_;
  std::map<std::string, StudyCurves, std::less<>> studies_
      ABSL_GUARDED_BY(mutex_);
  size_t cached_points_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_CURVE_CACHE_H_
