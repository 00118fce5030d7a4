#include "src/engine/curve_cache.h"

#include <utility>

#include "hptune/core/status.h"

namespace hptune::engine {

CurveCache::CurveCache(store::Store& store, size_t max_points)
    : store_(store), max_points_(max_points) {}

void CurveCache::Forget(StudyCurves& curves) {
  for (const auto& [number, cached] : curves.by_trial) {
    cached_points_ -= cached.curve.points().size();
  }
  curves.by_trial.clear();
}

CurveCache::StudyCurves& CurveCache::CurvesOf(const StudyRecord& study) {
  auto [it, inserted] = studies_.try_emplace(study.name);
  StudyCurves& curves = it->second;
  if (!inserted && (curves.create_time != study.create_time ||
                    curves.metric != study.spec.metric_tag)) {
    Forget(curves);
  }
  curves.create_time = study.create_time;
  curves.metric = study.spec.metric_tag;
  return curves;
}

void CurveCache::Extend(Curve& cached, std::span<const Measurement> reported,
                        const std::string& metric) {
  const size_t before = cached.curve.points().size();
  cached.curve.Extend(reported, metric);
  cached.measurements_read += static_cast<int64_t>(reported.size());
  cached_points_ += cached.curve.points().size() - before;
}

absl::Status CurveCache::WithCurves(
    const StudyRecord& study, const std::set<int64_t>& only,
    absl::FunctionRef<absl::Status(std::span<const algorithms::TrialCurve>)>
        use) {
  ASSIGN_OR_RETURN(std::vector<store::TrialStatus> statuses,
                   store_.ListTrialStatuses(study.name));
  const std::string& metric = study.spec.metric_tag;
  std::lock_guard lock(mutex_);
  StudyCurves& curves = CurvesOf(study);
  std::vector<algorithms::TrialCurve> lent;
  for (const store::TrialStatus& status : statuses) {
    if (status.state != TrialState::kSucceeded &&
        (status.state != TrialState::kActive ||
         (!only.empty() && !only.contains(status.number)))) {
      continue;
    }
    auto [entry, added] = curves.by_trial.try_emplace(
        status.number,
        Curve{.curve = algorithms::LearningCurve(status.number)});
    Curve& cached = entry->second;
    if (!cached.end_time.has_value() || cached.end_time != status.end_time) {
      // An error here leaves every curve whole: a curve is extended only by
      // a read that succeeded.
      ASSIGN_OR_RETURN(std::vector<Measurement> reported,
                       store_.ListMeasurements(study.name, status.number,
                                               cached.measurements_read));
      Extend(cached, reported, metric);
      if (status.state == TrialState::kSucceeded) {
        cached.end_time = status.end_time;
      }
    }
    lent.push_back({.state = status.state, .curve = &cached.curve});
  }
  const absl::Status result = use(lent);
  if (cached_points_ > max_points_) {
    studies_.clear();
    cached_points_ = 0;
  }
  return result;
}

}  // namespace hptune::engine
