#include "src/engine/curve_cache.h"

#include <utility>

#include "absl/strings/str_cat.h"
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

absl::StatusOr<CurveCache::StudyCurves*> CurveCache::CurvesOf(
    std::string_view study, Timestamp create_time) {
  auto [it, inserted] = studies_.try_emplace(std::string(study));
  StudyCurves& curves = it->second;
  if (!inserted && curves.create_time != create_time) {
    Forget(curves);
    curves.spec.reset();
  }
  if (!curves.spec.has_value()) {
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
    if (record.create_time != create_time) {
      return absl::AbortedError(absl::StrCat(
          "study \"", std::string(study),
          "\" was deleted and created again while its trials were being "
          "checked; check again"));
    }
    curves.spec = std::move(record.spec);
    curves.create_time = create_time;
  }
  return &curves;
}

void CurveCache::Extend(Curve& cached, std::span<const Measurement> reported,
                        const std::string& metric) {
  const size_t before = cached.curve.points().size();
  cached.curve.Extend(reported, metric);
  cached.measurements_read += static_cast<int64_t>(reported.size());
  cached_points_ += cached.curve.points().size() - before;
}

absl::Status CurveCache::WithCurves(
    std::string_view study, const std::set<int64_t>& only,
    absl::FunctionRef<absl::Status(const StudySpec&,
                                   std::span<const algorithms::TrialCurve>)>
        use) {
  return WithCurves(
      study, only, [](const StudySpec&) { return true; }, use);
}

absl::Status CurveCache::WithCurves(
    std::string_view study, const std::set<int64_t>& only,
    absl::FunctionRef<bool(const StudySpec&)> wants,
    absl::FunctionRef<absl::Status(const StudySpec&,
                                   std::span<const algorithms::TrialCurve>)>
        use) {
  HPTUNE_ASSIGN_OR_RETURN(store::TrialStatuses statuses,
                          store_.ListTrialStatuses(study));
  MutexLock lock(&mutex_);
  HPTUNE_ASSIGN_OR_RETURN(StudyCurves * curves,
                          CurvesOf(study, statuses.study_create_time));
  if (!wants(*curves->spec)) return absl::OkStatus();
  const std::string& metric = curves->spec->metric_tag();
  std::vector<algorithms::TrialCurve> lent;
  for (const store::TrialStatus& status : statuses.trials) {
    if (status.state != TrialState::kSucceeded &&
        (status.state != TrialState::kActive ||
         (!only.empty() && !only.contains(status.number)))) {
      continue;
    }
    auto [entry, added] = curves->by_trial.try_emplace(
        status.number,
        Curve{.curve = algorithms::LearningCurve(status.number)});
    Curve& cached = entry->second;
    if (!cached.end_time.has_value() || cached.end_time != status.end_time) {
      // An error here leaves every curve whole: a curve is extended only by
      // a read that succeeded.
      HPTUNE_ASSIGN_OR_RETURN(
          std::vector<Measurement> reported,
          store_.ListMeasurements(study, status.number,
                                  cached.measurements_read));
      Extend(cached, reported, metric);
      if (status.state == TrialState::kSucceeded) {
        cached.end_time = status.end_time;
      }
    }
    lent.push_back({.state = status.state, .curve = &cached.curve});
  }
  const absl::Status result = use(*curves->spec, lent);
  if (cached_points_ > max_points_) {
    studies_.clear();
    cached_points_ = 0;
  }
  return result;
}

}  // namespace hptune::engine
