#include "src/engine/curve_cache.h"

#include <iterator>
#include <utility>

#include "hptune/core/status.h"

namespace hptune::engine {

CurveCache::CurveCache(store::Store& store, size_t max_measurements)
    : store_(store), max_measurements_(max_measurements) {}

absl::Status CurveCache::WithCurves(
    const StudyRecord& study, const std::set<int64_t>& only,
    absl::FunctionRef<absl::Status(const std::vector<Trial>&)> use) {
  ASSIGN_OR_RETURN(std::vector<store::TrialStatus> statuses,
                   store_.ListTrialStatuses(study.name));
  std::lock_guard lock(mutex_);
  auto [it, inserted] = studies_.try_emplace(study.name);
  StudyCurves& curves = it->second;
  if (!inserted && curves.create_time != study.create_time) {
    for (const auto& [number, curve] : curves.by_trial) {
      cached_measurements_ -= curve.measurements.size();
    }
    curves.by_trial.clear();
  }
  curves.create_time = study.create_time;

  // Read first, lend after: an error from the store leaves every curve in
  // place.
  std::vector<const store::TrialStatus*> wanted;
  for (const store::TrialStatus& status : statuses) {
    if (status.state == TrialState::kSucceeded ||
        (status.state == TrialState::kActive &&
         (only.empty() || only.contains(status.number)))) {
      wanted.push_back(&status);
    }
  }
  for (const store::TrialStatus* status : wanted) {
    Curve& curve = curves.by_trial[status->number];
    if (curve.end_time.has_value() && curve.end_time == status->end_time) {
      continue;  // Ended when last read: complete.
    }
    ASSIGN_OR_RETURN(std::vector<Measurement> added,
                     store_.ListMeasurements(
                         study.name, status->number,
                         static_cast<int64_t>(curve.measurements.size())));
    cached_measurements_ += added.size();
    curve.measurements.insert(curve.measurements.end(),
                              std::make_move_iterator(added.begin()),
                              std::make_move_iterator(added.end()));
    if (status->state == TrialState::kSucceeded) {
      curve.end_time = status->end_time;
    }
  }

  std::vector<Trial> trials;
  trials.reserve(wanted.size());
  for (const store::TrialStatus* status : wanted) {
    Trial trial;
    trial.number = status->number;
    trial.state = status->state;
    trial.end_time = status->end_time;
    trial.measurements =
        std::move(curves.by_trial[status->number].measurements);
    trials.push_back(std::move(trial));
  }
  const absl::Status result = use(trials);
  for (Trial& trial : trials) {
    curves.by_trial[trial.number].measurements = std::move(trial.measurements);
  }
  if (cached_measurements_ > max_measurements_) {
    studies_.clear();
    cached_measurements_ = 0;
  }
  return result;
}

}  // namespace hptune::engine
