// TuningEngine's side of a trial's results: intermediate measurements
// (checked, then admitted), completing a trial with its final measurement,
// and a trial's other ends (infeasible, failed, cancelled, stopped early).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hptune/core/job.h"
#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "src/engine/engine_common.h"

namespace hptune::engine {
namespace {

// A reported measurement as stored: stamped now when it has no time, then
// checked.
absl::Status StampAndValidate(Clock& clock, Measurement& measurement) {
  if (measurement.time == Timestamp{}) measurement.time = clock.Now();
  return ValidateMeasurement(measurement);
}

// True when `m` reports every one of `metrics`.
bool HasAll(const Measurement& m, const std::vector<MetricSpec>& metrics) {
  return std::all_of(metrics.begin(), metrics.end(), [&](const MetricSpec& s) {
    return m.metrics.contains(s.id);
  });
}

// A trial's result when it is completed without a final measurement: of the
// intermediate measurements of its last attempt (an attempt that did not end
// is no result), those that report every one of `metrics`, else those that
// report the first (the primary metric); of them the last, or with
// kBest the one with the best primary value (the earlier on ties).
std::optional<Measurement> SelectedMeasurement(
    const Trial& trial, const Problem& problem,
    const std::vector<MetricSpec>& metrics) {
  const std::string& primary = metrics.front().id;
  const bool best =
      problem.measurement_selection == MeasurementSelection::kBest;
  const Measurement* chosen = nullptr;
  const Measurement* chosen_with_all = nullptr;
  const auto better = [&](const Measurement* current, const Measurement& m) {
    if (current == nullptr) return true;
    if (!best) return false;  // Walking back: the first seen is the last.
    const double value = m.metrics.at(primary);
    const double kept = current->metrics.at(primary);
    return metrics.front().goal == Goal::kMaximize ? value >= kept
                                                   : value <= kept;
  };
  for (auto it = trial.measurements.rbegin(); it != trial.measurements.rend();
       ++it) {
    if (it->attempt < trial.attempt) break;
    if (!it->metrics.contains(primary)) continue;
    if (better(chosen, *it)) chosen = &*it;
    if (HasAll(*it, metrics) && better(chosen_with_all, *it)) {
      chosen_with_all = &*it;
    }
  }
  if (chosen_with_all != nullptr) return *chosen_with_all;
  if (chosen != nullptr) return *chosen;
  return std::nullopt;
}

// The first of `metrics` that `m` has no value of.
const MetricSpec* MissingMetric(const Measurement& m,
                                const std::vector<MetricSpec>& metrics) {
  for (const MetricSpec& metric : metrics) {
    if (!m.metrics.contains(metric.id)) return &metric;
  }
  return nullptr;
}

}  // namespace

absl::Status TuningEngine::AddMeasurement(std::string_view study, int64_t trial,
                                          Measurement measurement) {
  HPTUNE_RETURN_IF_ERROR(StampAndValidate(clock_, measurement));
  if (admit_measurement_) {
    HPTUNE_RETURN_IF_ERROR(admit_measurement_(study, measurement));
  }
  return store_.AddMeasurement(study, trial, measurement);
}

void TuningEngine::AddMeasurementAsync(std::string_view study, int64_t trial,
                                       Measurement measurement,
                                       std::function<void(absl::Status)> done) {
  absl::Status valid = StampAndValidate(clock_, measurement);
  if (valid.ok() && admit_measurement_) {
    valid = admit_measurement_(study, measurement);
  }
  if (!valid.ok()) {
    done(valid);
    return;
  }
  store_.AddMeasurementAsync(study, trial, measurement, std::move(done));
}

absl::StatusOr<Trial> TuningEngine::CompleteTrial(
    std::string_view study_name, int64_t number,
    std::optional<Measurement> final) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  if (final) {
    if (final->time == Timestamp{}) final->time = clock_.Now();
    HPTUNE_RETURN_IF_ERROR(ValidateMeasurement(*final));
  }
  // The primary metric first: a report is a line that carries it.
  std::vector<MetricSpec> metrics = study.spec.Objectives();
  for (MetricSpec& m : study.spec.Constraints()) metrics.push_back(m);
  if (final) {
    if (const MetricSpec* missing = MissingMetric(*final, metrics)) {
      return absl::InvalidArgumentError(
          absl::StrCat("trial ", number, ": the final measurement has no ",
                       "value of the study's metric ", Quoted(missing->id)));
    }
  }
  Timestamp now = clock_.Now();
  HPTUNE_ASSIGN_OR_RETURN(
      Trial trial,
      store_.UpdateTrial(study_name, number, [&](Trial& t) -> absl::Status {
        std::optional<Measurement> result =
            final ? final : SelectedMeasurement(t, study.spec, metrics);
        t.final_measurement = result;
        if (!result) {
          // A job's one run (RunStudyOf) asks for no metric: none is missing.
          if (!IsOneRunStudy(study.spec)) {
            t.reason = absl::StrCat("the trial reported no value of metric ",
                                    Quoted(metrics.front().id));
          }
        } else if (const MetricSpec* missing =
                       MissingMetric(*result, metrics)) {
          t.reason = absl::StrCat(
              "the trial's last report of ", Quoted(metrics.front().id),
              " has no value of metric ", Quoted(missing->id),
              ": it is not a feasible result");
        }
        return t.TransitionTo(TrialState::kSucceeded, now);
      }));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return trial;
}

absl::StatusOr<Trial> TuningEngine::MarkTrialInfeasible(
    std::string_view study, int64_t trial, std::string_view reason) {
  return EndTrial(study, trial, TrialState::kInfeasible, reason);
}

absl::StatusOr<Trial> TuningEngine::MarkTrialFailed(std::string_view study,
                                                    int64_t trial,
                                                    std::string_view reason) {
  return EndTrial(study, trial, TrialState::kFailed, reason);
}

absl::StatusOr<Trial> TuningEngine::MarkTrialStarted(std::string_view study,
                                                     int64_t trial,
                                                     Timestamp started) {
  return store_.UpdateTrial(study, trial, [&](Trial& t) {
    if (t.state == TrialState::kActive) t.start_time = started;
    return absl::OkStatus();
  });
}

absl::StatusOr<Trial> TuningEngine::MarkTrialCancelled(
    std::string_view study, int64_t trial, std::string_view reason) {
  return EndTrial(study, trial, TrialState::kCancelled, reason);
}

absl::StatusOr<Trial> TuningEngine::StopTrial(std::string_view study,
                                              int64_t number,
                                              std::string_view reason) {
  Timestamp now = clock_.Now();
  return store_.UpdateTrial(study, number, [&](Trial& t) {
    t.stopped_early = true;
    t.reason = std::string(reason);
    return t.TransitionTo(TrialState::kStopping, now);
  });
}

absl::StatusOr<Trial> TuningEngine::EndTrial(std::string_view study_name,
                                             int64_t number, TrialState state,
                                             std::string_view reason) {
  if (reason.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", number, ": a reason is required to mark it ",
                     std::string(ToString(state))));
  }
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  Timestamp now = clock_.Now();
  HPTUNE_ASSIGN_OR_RETURN(Trial trial,
                          store_.UpdateTrial(study_name, number, [&](Trial& t) {
                            t.reason = std::string(reason);
                            return t.TransitionTo(state, now);
                          }));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return trial;
}

}  // namespace hptune::engine
