#include "src/store/store_rules.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_state.h"

namespace hptune::store::internal {
namespace {

// Puts `context` before a core error so the caller sees which study, trial or
// job it is about; the code is kept.
absl::Status WithContext(const absl::Status& status,
                         const std::string& context) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(context, ": ", status.message()));
}

std::string TrialContext(std::string_view study, int64_t number) {
  return absl::StrCat("study \"", std::string(study), "\": trial ", number);
}

// A trial entering ACTIVE gets its start time, a terminal one its end time,
// unless the caller already set them (Trial::TransitionTo does).
void StampTrialTimes(Trial& trial, Timestamp now) {
  if (trial.state == TrialState::kActive && !trial.start_time) {
    trial.start_time = now;
  }
  if (IsTerminal(trial.state) && !trial.end_time) trial.end_time = now;
}

absl::Status CheckNewTrial(const Trial& trial) {
  switch (trial.state) {
    case TrialState::kRequested:
    case TrialState::kActive:
      return absl::OkStatus();
    case TrialState::kSucceeded:
      if (trial.final_measurement) return absl::OkStatus();
      return absl::InvalidArgumentError(
          "a SUCCEEDED trial can be added only with its final measurement");
    case TrialState::kInfeasible:
      if (!trial.reason.empty()) return absl::OkStatus();
      return absl::InvalidArgumentError(
          "an INFEASIBLE trial can be added only with a reason");
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "a new trial must be REQUESTED, ACTIVE, SUCCEEDED or INFEASIBLE, "
          "got ",
          std::string(ToString(trial.state))));
  }
}

// JSON (and so SqliteStore) cannot hold a NaN or an infinity, and no search
// space contains one.
absl::Status CheckParameters(const ParameterAssignment& parameters) {
  for (const auto& [name, value] : parameters) {
    if (value.is_double() && !std::isfinite(value.AsDouble())) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", name, "\" must be a finite number, got ",
                       value.AsDouble()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateTrialMeasurements(const Trial& trial) {
  for (size_t i = 0; i < trial.measurements.size(); ++i) {
    HPTUNE_RETURN_IF_ERROR(
        WithContext(ValidateMeasurement(trial.measurements[i]),
                    absl::StrCat("measurement ", i + 1)));
  }
  if (trial.final_measurement) {
    HPTUNE_RETURN_IF_ERROR(WithContext(
        ValidateMeasurement(*trial.final_measurement), "final measurement"));
  }
  return absl::OkStatus();
}

// A parameter spec's fields as a message names them: {"maxValue", "1"}.
std::vector<std::pair<std::string, std::string>> SpecFields(
    const ParameterSpec& p) {
  const auto number = [](double x) {
    return ParameterValue::Double(x).ToString();
  };
  std::vector<std::string> discrete;
  for (double x : p.discrete_values) discrete.push_back(number(x));
  return {
      {"type", std::string(ToString(p.type))},
      {"minValue", number(p.min_value)},
      {"maxValue", number(p.max_value)},
      {"discreteValues", absl::StrCat("[", absl::StrJoin(discrete, ", "), "]")},
      {"categoricalValues",
       absl::StrCat("[", absl::StrJoin(p.categorical_values, ", "), "]")},
      {"scaleType", std::string(ToString(p.scale))},
      {"parent", p.condition ? absl::StrCat("\"", p.condition->parent, "\"")
                             : std::string("none")},
  };
}

// FailedPrecondition unless `given` is `stored` (first_trial aside), naming
// the fields that differ.
absl::Status CheckSameSpec(const std::string& context,
                           const ParameterSpec& stored,
                           const ParameterSpec& given) {
  ParameterSpec same = stored;
  same.first_trial = given.first_trial;
  if (same == given) return absl::OkStatus();
  const auto stored_fields = SpecFields(stored);
  const auto given_fields = SpecFields(given);
  std::vector<std::string> differences;
  for (size_t i = 0; i < stored_fields.size(); ++i) {
    if (stored_fields[i].second == given_fields[i].second) continue;
    differences.push_back(absl::StrCat(stored_fields[i].first, " ",
                                       stored_fields[i].second, " (space) vs ",
                                       given_fields[i].second, " (given)"));
  }
  // Fields a message does not show (a condition's values) differ.
  if (differences.empty()) differences.push_back("its condition");
  return absl::FailedPreconditionError(absl::StrCat(
      context, ": parameter \"", given.name,
      "\" differs from the space's: ", absl::StrJoin(differences, "; ")));
}

// `spec` with `parameter` joined as its last parameter at trial `number`;
// InvalidArgument with ValidateStudySpec's message when it refuses that.
absl::StatusOr<StudySpec> GrownSpec(const std::string& context,
                                    const StudySpec& spec,
                                    const ParameterSpec& parameter,
                                    int64_t number) {
  std::vector<ParameterSpec> parameters = spec.search_space.parameters();
  parameters.push_back(parameter);
  parameters.back().first_trial = number;
  StudySpec grown = spec;
  grown.search_space = SearchSpace(std::move(parameters));
  if (std::vector<FieldError> errors =
          ValidateStudySpec(grown, "hyperparameters");
      !errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        context, ": parameter \"", parameter.name,
        "\" cannot join the space: ", FieldErrorsToStatus(errors).message()));
  }
  return grown;
}

// InvalidArgument (CheckAssignment's message) unless `value` is feasible
// for the root `parameter`.
absl::Status CheckParameterValue(const std::string& context,
                                 ParameterSpec parameter,
                                 const ParameterValue& value) {
  parameter.first_trial = 0;
  const std::string name = parameter.name;
  return WithContext(
      SearchSpace({std::move(parameter)}).CheckAssignment({{name, value}}),
      context);
}

}  // namespace

absl::Status StudyNotFound(std::string_view study) {
  return absl::NotFoundError(
      absl::StrCat("study \"", std::string(study), "\" not found"));
}

absl::Status StudyAlreadyExists(std::string_view study) {
  return absl::AlreadyExistsError(
      absl::StrCat("study \"", std::string(study), "\" already exists"));
}

absl::Status CheckStoredStudyState(std::string_view study, StudyState state) {
  if (state == StudyState::kActive || state == StudyState::kCompleted) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "study \"", std::string(study), "\": ", std::string(ToString(state)),
      " is shown of a study whose job ended so, never stored"));
}

absl::Status TrialNotFound(std::string_view study, int64_t number) {
  return absl::NotFoundError(
      absl::StrCat(TrialContext(study, number), " not found"));
}

absl::Status JobNotFound(std::string_view job_id) {
  return absl::NotFoundError(
      absl::StrCat("job \"", std::string(job_id), "\" not found"));
}

absl::Status JobAlreadyExists(std::string_view job_id) {
  return absl::AlreadyExistsError(
      absl::StrCat("job \"", std::string(job_id), "\" already exists"));
}

absl::Status CheckJobDeletable(const JobRecord& job) {
  if (IsTerminal(job.state)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "job \"", job.job_id, "\" is ", std::string(ToString(job.state)),
      ": only an ended job is deleted; cancel it first"));
}

absl::Status PrepareNewStudy(StudyRecord& study, Timestamp now) {
  if (study.name.empty()) {
    return absl::InvalidArgumentError("a study needs a name, got \"\"");
  }
  HPTUNE_RETURN_IF_ERROR(CheckStoredStudyState(study.name, study.state));
  if (study.create_time == Timestamp{}) study.create_time = now;
  // The one-run study of a job without one (a CustomJob) has no
  // parameters, which no user's spec may lack.
  if (IsOneRunStudy(study.spec)) return absl::OkStatus();
  if (std::vector<FieldError> errors =
          ValidateStudySpec(study.spec, "hyperparameters");
      !errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "study \"", study.name,
        "\": cannot store its spec: ", FieldErrorsToStatus(errors).message()));
  }
  // ValidateStudySpec refuses what its stored form (StudySpecToJson) would
  // not read back as itself, so GetStudy returns what was created.
  return absl::OkStatus();
}

absl::Status PrepareNewTrials(std::string_view study,
                              std::vector<Trial>& trials, Timestamp now) {
  for (size_t i = 0; i < trials.size(); ++i) {
    Trial& trial = trials[i];
    const std::string context =
        absl::StrCat("study \"", std::string(study), "\": new trial ", i + 1,
                     " of ", trials.size());
    HPTUNE_RETURN_IF_ERROR(WithContext(CheckNewTrial(trial), context));
    HPTUNE_RETURN_IF_ERROR(
        WithContext(CheckParameters(trial.parameters), context));
    HPTUNE_RETURN_IF_ERROR(
        WithContext(ValidateTrialMeasurements(trial), context));
    trial.create_time = now;
    StampTrialTimes(trial, now);
  }
  return absl::OkStatus();
}

absl::Status PrepareTrialUpdate(std::string_view study, const Trial& before,
                                Trial& after, Timestamp now) {
  const std::string context = TrialContext(study, before.number);
  if (after.number != before.number) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": the trial number cannot be changed (to ",
                     after.number, ")"));
  }
  if (after.create_time != before.create_time) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": the create time cannot be changed"));
  }
  if (after.measurements != before.measurements) {
    return absl::InvalidArgumentError(absl::StrCat(
        context,
        ": intermediate measurements cannot be changed by an update; "
        "use AddMeasurement"));
  }
  HPTUNE_RETURN_IF_ERROR(
      WithContext(CheckParameters(after.parameters), context));
  if (after.final_measurement) {
    HPTUNE_RETURN_IF_ERROR(
        WithContext(ValidateMeasurement(*after.final_measurement),
                    absl::StrCat(context, ": final measurement")));
  }
  if (after.state != before.state) {
    HPTUNE_RETURN_IF_ERROR(
        WithContext(CheckTrialTransition(before.state, after.state), context));
    StampTrialTimes(after, now);
  }
  return absl::OkStatus();
}

absl::Status CheckTrialParameterSpec(std::string_view study, int64_t number,
                                     const ParameterSpec& spec) {
  if (!spec.condition) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(TrialContext(study, number), ": parameter \"", spec.name,
                   "\" has a condition; only a root parameter joins a space"));
}

absl::StatusOr<TrialParameterChange> PrepareTrialParameter(
    std::string_view study, StudySpec& spec, Trial& trial,
    const ParameterSpec& parameter, const ParameterValue& value) {
  const std::string context = TrialContext(study, trial.number);
  const ParameterSpec* stored = spec.search_space.Find(parameter.name);
  if (stored) {
    HPTUNE_RETURN_IF_ERROR(CheckSameSpec(context, *stored, parameter));
  }
  if (trial.parameters.contains(parameter.name)) {
    return TrialParameterChange::kNone;
  }
  if (IsTerminal(trial.state)) {
    return absl::FailedPreconditionError(absl::StrCat(
        context, " is ", std::string(ToString(trial.state)),
        "; only a REQUESTED, ACTIVE or STOPPING trial takes a new parameter"));
  }
  std::optional<StudySpec> grown;
  if (!stored) {
    HPTUNE_ASSIGN_OR_RETURN(grown,
                            GrownSpec(context, spec, parameter, trial.number));
  }
  HPTUNE_RETURN_IF_ERROR(CheckParameterValue(context, parameter, value));
  trial.parameters[parameter.name] = value;
  if (!grown) return TrialParameterChange::kValue;
  spec = *std::move(grown);
  return TrialParameterChange::kSpace;
}

std::string SpaceDetail(std::string_view parameter, int64_t number) {
  return absl::StrCat(std::string(parameter), " joined at trial ", number);
}

absl::Status PrepareMeasurement(std::string_view study, int64_t number,
                                Measurement& measurement, Timestamp now) {
  HPTUNE_RETURN_IF_ERROR(WithContext(ValidateMeasurement(measurement),
                                     TrialContext(study, number)));
  if (measurement.time == Timestamp{}) measurement.time = now;
  return absl::OkStatus();
}

absl::Status CheckAcceptsMeasurements(std::string_view study, int64_t number,
                                      TrialState state) {
  if (state == TrialState::kActive || state == TrialState::kStopping) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      TrialContext(study, number), " is ", std::string(ToString(state)),
      "; measurements can be added only to ACTIVE or STOPPING trials"));
}

absl::Status PrepareNewJob(JobRecord& job, Timestamp now) {
  if (job.job_id.empty()) {
    return absl::InvalidArgumentError("a job needs an ID, got \"\"");
  }
  if (job.create_time == Timestamp{}) job.create_time = now;
  return absl::OkStatus();
}

absl::Status PrepareJobUpdate(const JobRecord& before, JobRecord& after,
                              Timestamp now) {
  const std::string context = absl::StrCat("job \"", before.job_id, "\"");
  if (after.job_id != before.job_id) {
    return absl::InvalidArgumentError(absl::StrCat(
        context, ": the job ID cannot be changed (to \"", after.job_id, "\")"));
  }
  if (after.create_time != before.create_time) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": the create time cannot be changed"));
  }
  if (after.state != before.state) {
    HPTUNE_RETURN_IF_ERROR(
        WithContext(CheckJobTransition(before.state, after.state), context));
    if (after.state == JobState::kRunning && !after.start_time) {
      after.start_time = now;
    }
    if (IsTerminal(after.state) && !after.end_time) after.end_time = now;
  }
  return absl::OkStatus();
}

absl::Status CheckEventLimit(int limit) {
  if (limit > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("event limit must be positive, got ", limit));
}

absl::Status CheckNote(std::string_view text) {
  if (text.size() <= kMaxNoteBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("note: ", text.size(), " bytes, at most ", kMaxNoteBytes));
}

NoteEdit StampNoteEdit(NoteEdit edit, std::string_view text, Timestamp now) {
  edit.time = FromUnixMicros(ToUnixMicros(now));
  edit.bytes = static_cast<int64_t>(text.size());
  if (edit.peer.size() > kMaxNoteIdentityBytes) {
    edit.peer.resize(kMaxNoteIdentityBytes);
  }
  if (edit.client.size() > kMaxNoteIdentityBytes) {
    edit.client.resize(kMaxNoteIdentityBytes);
  }
  return edit;
}

absl::Status CheckMeasurementSkip(int64_t skip) {
  if (skip >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("measurements to skip must be >= 0, got ", skip));
}

std::string MeasurementDetail(const Measurement& measurement) {
  return absl::StrCat("step ", measurement.step);
}

Event MakeEvent(Timestamp time, std::string_view kind, std::string_view study,
                std::string_view job_id, int64_t trial_number,
                std::string detail) {
  Event event;
  event.time = time;
  event.kind = std::string(kind);
  event.study = std::string(study);
  event.job_id = std::string(job_id);
  event.trial_number = trial_number;
  event.detail = std::move(detail);
  return event;
}

}  // namespace hptune::store::internal
