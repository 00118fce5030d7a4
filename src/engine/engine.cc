#include "hptune/engine/engine.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/registry.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"

namespace hptune::engine {
namespace {

bool IsPending(const Trial& t) { return !IsTerminal(t.state); }

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

uint64_t DrawSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

// The last intermediate measurement reporting `metric`, if any.
std::optional<Measurement> LastWithMetric(const Trial& trial,
                                          const std::string& metric) {
  for (auto it = trial.measurements.rbegin(); it != trial.measurements.rend();
       ++it) {
    if (it->metrics.contains(metric)) return *it;
  }
  return std::nullopt;
}

}  // namespace

TuningEngine::TuningEngine(store::Store& store, Clock& clock)
    : store_(store), clock_(clock) {}

absl::StatusOr<StudyRecord> TuningEngine::CreateStudy(std::string_view name,
                                                      const StudySpec& spec) {
  std::vector<FieldError> errors = ValidateJobId(name, "study name");
  for (auto& e : ValidateStudySpec(spec, "study")) errors.push_back(e);
  RETURN_IF_ERROR(FieldErrorsToStatus(errors));
  // The designer must accept the space (GRID_SEARCH rejects DOUBLE).
  StudyRecord study{.name = std::string(name),
                    .spec = spec,
                    .state = StudyState::kActive,
                    .reason = "",
                    .seed = spec.seed.value_or(DrawSeed()),
                    .create_time = clock_.Now()};
  RETURN_IF_ERROR(algorithms::CreateDesigner(spec, study.seed).status());
  RETURN_IF_ERROR(store_.CreateStudy(study));
  return study;
}

absl::StatusOr<StudyRecord> TuningEngine::OpenOrCreateStudy(
    std::string_view name, const StudySpec& spec) {
  auto existing = store_.GetStudy(name);
  if (absl::IsNotFound(existing.status())) return CreateStudy(name, spec);
  RETURN_IF_ERROR(existing.status());
  StudySpec wanted = spec;
  if (!wanted.seed) wanted.seed = existing->spec.seed;
  if (!(existing->spec == wanted)) {
    return absl::FailedPreconditionError(
        absl::StrCat("study ", Quoted(name),
                     " exists with a different spec; use another name or "
                     "delete it first"));
  }
  return existing;
}

absl::StatusOr<StudyRecord> TuningEngine::GetStudy(std::string_view name) {
  return store_.GetStudy(name);
}

absl::StatusOr<SuggestResponse> TuningEngine::SuggestTrials(
    std::string_view study_name, int count, std::string_view client_id) {
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("suggestion count must be at least 1, got ", count));
  }
  std::lock_guard<std::mutex> lock(suggest_mutex_);
  ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  ASSIGN_OR_RETURN(std::vector<Trial> trials, store_.ListTrials(study_name));

  SuggestResponse response;
  const int total_trials = static_cast<int>(trials.size());
  std::vector<Trial> completed, pending;
  for (Trial& t : trials) {
    (IsPending(t) ? pending : completed).push_back(std::move(t));
  }
  // A client asking again gets its unfinished trials back first.
  for (const Trial& t : pending) {
    if (static_cast<int>(response.trials.size()) == count) break;
    if (t.client_id == client_id && t.state == TrialState::kActive) {
      response.trials.push_back(t);
    }
  }
  int wanted = count - static_cast<int>(response.trials.size());
  if (wanted == 0) return response;
  if (study.state == StudyState::kCompleted) {
    response.study_completed = pending.empty();
    response.note = absl::StrCat("the study is completed: ", study.reason);
    return response;
  }

  const StudySpec& spec = study.spec;
  int budget_left = spec.max_trials - total_trials;
  int parallel_left =
      spec.max_parallel_trials - static_cast<int>(pending.size());
  int to_make = std::min({wanted, budget_left, parallel_left});
  if (to_make < wanted) {
    response.note =
        budget_left <= parallel_left
            ? absl::StrCat("maxTrials (", spec.max_trials, ") reached")
            : absl::StrCat("maxParallelTrials (", spec.max_parallel_trials,
                           ") trials are pending");
  }
  bool exhausted = false;
  int created = 0;
  if (to_make > 0) {
    ASSIGN_OR_RETURN(auto designer,
                     algorithms::CreateDesigner(spec, study.seed));
    ASSIGN_OR_RETURN(std::string state, store_.GetDesignerState(study_name));
    RETURN_IF_ERROR(designer->RestoreState(state));
    RETURN_IF_ERROR(designer->Update(completed, pending));
    ASSIGN_OR_RETURN(std::vector<algorithms::Suggestion> suggestions,
                     designer->Suggest(to_make));
    if (static_cast<int>(suggestions.size()) < to_make) {
      exhausted = true;
      response.note = "the search space is exhausted";
    }
    std::vector<Trial> fresh;
    for (auto& s : suggestions) {
      RETURN_IF_ERROR(spec.search_space.CheckAssignment(s.parameters));
      Trial t;
      t.parameters = std::move(s.parameters);
      t.origin = std::move(s.origin);
      t.client_id = std::string(client_id);
      t.state = TrialState::kActive;
      t.start_time = clock_.Now();
      fresh.push_back(std::move(t));
    }
    if (!fresh.empty()) {
      ASSIGN_OR_RETURN(fresh, store_.AddTrials(study_name, std::move(fresh),
                                               designer->SaveState()));
    }
    created = static_cast<int>(fresh.size());
    for (auto& t : fresh) response.trials.push_back(std::move(t));
  }
  const int pending_now = static_cast<int>(pending.size()) + created;
  RETURN_IF_ERROR(CompleteStudyIfDone(study, total_trials + created,
                                      pending_now, exhausted));
  response.study_completed =
      pending_now == 0 && (exhausted || budget_left <= 0);
  return response;
}

absl::StatusOr<Trial> TuningEngine::CreateTrial(std::string_view study_name,
                                                Trial trial) {
  ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  RETURN_IF_ERROR(study.spec.search_space.CheckAssignment(trial.parameters));
  if (trial.final_measurement) {
    RETURN_IF_ERROR(ValidateMeasurement(*trial.final_measurement));
  }
  if (trial.origin.empty()) trial.origin = "user";
  Timestamp now = clock_.Now();
  if (trial.state == TrialState::kActive && !trial.start_time) {
    trial.start_time = now;
  }
  if (IsTerminal(trial.state) && !trial.end_time) trial.end_time = now;
  ASSIGN_OR_RETURN(
      std::vector<Trial> stored,
      store_.AddTrials(study_name, {std::move(trial)}, std::nullopt));
  return stored.front();
}

absl::Status TuningEngine::AddMeasurement(std::string_view study, int64_t trial,
                                          Measurement measurement) {
  if (measurement.time == Timestamp{}) measurement.time = clock_.Now();
  RETURN_IF_ERROR(ValidateMeasurement(measurement));
  return store_.AddMeasurement(study, trial, measurement);
}

absl::StatusOr<Trial> TuningEngine::CompleteTrial(
    std::string_view study_name, int64_t number,
    std::optional<Measurement> final) {
  ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  if (final) {
    if (final->time == Timestamp{}) final->time = clock_.Now();
    RETURN_IF_ERROR(ValidateMeasurement(*final));
  }
  const std::string& metric = study.spec.metric_tag;
  Timestamp now = clock_.Now();
  ASSIGN_OR_RETURN(
      Trial trial,
      store_.UpdateTrial(study_name, number, [&](Trial& t) -> absl::Status {
        std::optional<Measurement> result =
            final ? final : LastWithMetric(t, metric);
        if (result && !result->metrics.contains(metric)) {
          return absl::InvalidArgumentError(
              absl::StrCat("trial ", number, ": the final measurement has no ",
                           "value of the study's metric ", Quoted(metric)));
        }
        t.final_measurement = result;
        if (!result) {
          t.reason = absl::StrCat("the trial reported no value of metric ",
                                  Quoted(metric));
        }
        return t.TransitionTo(TrialState::kSucceeded, now);
      }));
  RETURN_IF_ERROR(CompleteStudyIfDone(study));
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

absl::StatusOr<Trial> TuningEngine::EndTrial(std::string_view study_name,
                                             int64_t number, TrialState state,
                                             std::string_view reason) {
  if (reason.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", number, ": a reason is required to mark it ",
                     std::string(ToString(state))));
  }
  ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  Timestamp now = clock_.Now();
  ASSIGN_OR_RETURN(Trial trial,
                   store_.UpdateTrial(study_name, number, [&](Trial& t) {
                     t.reason = std::string(reason);
                     return t.TransitionTo(state, now);
                   }));
  RETURN_IF_ERROR(CompleteStudyIfDone(study));
  return trial;
}

absl::StatusOr<Trial> TuningEngine::GetTrial(std::string_view study,
                                             int64_t trial) {
  return store_.GetTrial(study, trial);
}

absl::StatusOr<std::vector<Trial>> TuningEngine::ListTrials(
    std::string_view study) {
  return store_.ListTrials(study);
}

absl::StatusOr<std::optional<Trial>> TuningEngine::BestTrial(
    std::string_view study_name) {
  ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  ASSIGN_OR_RETURN(std::vector<Trial> trials, store_.ListTrials(study_name));
  return hptune::BestTrial(study.spec, trials);
}

absl::Status TuningEngine::CompleteStudyIfDone(const StudyRecord& study) {
  if (study.state == StudyState::kCompleted) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<Trial> trials, store_.ListTrials(study.name));
  int pending =
      static_cast<int>(std::count_if(trials.begin(), trials.end(), IsPending));
  return CompleteStudyIfDone(study, static_cast<int>(trials.size()), pending,
                             false);
}

absl::Status TuningEngine::CompleteStudyIfDone(const StudyRecord& study,
                                               int total_trials, int pending,
                                               bool designer_exhausted) {
  if (study.state == StudyState::kCompleted || pending > 0) {
    return absl::OkStatus();
  }
  std::string reason;
  if (total_trials >= study.spec.max_trials) {
    reason = absl::StrCat("maxTrials (", study.spec.max_trials, ") reached");
  } else if (designer_exhausted) {
    reason = absl::StrCat("the search space is exhausted after ", total_trials,
                          " trials");
  } else {
    return absl::OkStatus();
  }
  return store_.SetStudyState(study.name, StudyState::kCompleted, reason);
}

}  // namespace hptune::engine
