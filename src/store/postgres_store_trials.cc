// PostgresStore's trials and measurements: adding, reading and updating
// trials, and appending measurements.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_store.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store {

using internal::MakeEvent;
using Connection = internal::PgConnection;

namespace {

// NotFound naming the trial, or the study when it does not exist.
absl::Status TrialOrStudyNotFound(Connection& db, std::string_view study,
                                  int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
  return exists ? internal::TrialNotFound(study, number)
                : internal::StudyNotFound(study);
}

}  // namespace

absl::StatusOr<std::vector<Trial>> PostgresStore::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewTrials(study, trials, now));
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
    if (!exists) return internal::StudyNotFound(study);
    // Under the write lock (Write), so no other writer, here or in another
    // process, takes the same numbers.
    HPTUNE_ASSIGN_OR_RETURN(int64_t last,
                            internal::SelectLastTrialNumber(db, study));
    for (Trial& trial : trials) {
      trial.number = ++last;
      HPTUNE_RETURN_IF_ERROR(internal::InsertTrial(db, study, trial));
      HPTUNE_RETURN_IF_ERROR(internal::InsertEvent(
          db, MakeEvent(now, internal::kTrialCreated, study, "", trial.number,
                        std::string(ToString(trial.state)))));
    }
    if (designer_state) {
      HPTUNE_RETURN_IF_ERROR(
          internal::UpsertDesignerState(db, study, *designer_state));
    }
    return absl::OkStatus();
  }));
  return trials;
}

absl::StatusOr<Trial> PostgresStore::GetTrial(std::string_view study,
                                              int64_t number) {
  return ReadOneTrial(study, number, /*measurements=*/true);
}

absl::StatusOr<Trial> PostgresStore::GetTrialSummary(std::string_view study,
                                                     int64_t number) {
  return ReadOneTrial(study, number, /*measurements=*/false);
}

absl::StatusOr<Trial> PostgresStore::ReadOneTrial(std::string_view study,
                                                  int64_t number,
                                                  bool measurements) {
  std::optional<Trial> trial;
  HPTUNE_RETURN_IF_ERROR(Read([&](Connection& db) -> absl::Status {
    if (measurements) {
      HPTUNE_ASSIGN_OR_RETURN(trial, internal::SelectTrial(db, study, number));
    } else {
      HPTUNE_ASSIGN_OR_RETURN(trial,
                              internal::SelectTrialRow(db, study, number));
    }
    if (trial) return absl::OkStatus();
    return TrialOrStudyNotFound(db, study, number);
  }));
  return *std::move(trial);
}

absl::StatusOr<std::vector<Trial>> PostgresStore::ListTrials(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](Connection& db) -> absl::StatusOr<std::vector<Trial>> {
        HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
        if (!exists) return internal::StudyNotFound(study);
        return internal::SelectTrials(db, study);
      });
}

absl::StatusOr<std::vector<Trial>> PostgresStore::ListTrialSummaries(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](Connection& db) -> absl::StatusOr<std::vector<Trial>> {
        HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
        if (!exists) return internal::StudyNotFound(study);
        return internal::SelectTrialRows(db, study);
      });
}

absl::StatusOr<TrialStatuses> PostgresStore::ListTrialStatuses(
    std::string_view study) {
  return ReadValue<TrialStatuses>(
      [&](Connection& db) -> absl::StatusOr<TrialStatuses> {
        HPTUNE_ASSIGN_OR_RETURN(std::optional<Timestamp> created,
                                internal::SelectStudyCreateTime(db, study));
        if (!created) return internal::StudyNotFound(study);
        TrialStatuses statuses{.study_create_time = *created};
        HPTUNE_ASSIGN_OR_RETURN(statuses.trials,
                                internal::SelectTrialStatuses(db, study));
        return statuses;
      });
}

absl::StatusOr<std::vector<Measurement>> PostgresStore::ListMeasurements(
    std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckMeasurementSkip(skip));
  std::vector<Measurement> measurements;
  HPTUNE_RETURN_IF_ERROR(Read([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(
        measurements, internal::SelectMeasurements(db, study, number, skip));
    // Rows prove the trial exists; only an empty answer needs the check.
    if (!measurements.empty()) return absl::OkStatus();
    HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialState> state,
                            internal::SelectTrialState(db, study, number));
    if (state) return absl::OkStatus();
    return TrialOrStudyNotFound(db, study, number);
  }));
  return measurements;
}

absl::StatusOr<Trial> PostgresStore::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  Trial updated;
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> stored,
                            internal::SelectTrial(db, study, number));
    if (!stored) return TrialOrStudyNotFound(db, study, number);
    const Timestamp now = clock_.Now();
    updated = *stored;
    HPTUNE_RETURN_IF_ERROR(mutate(updated));
    HPTUNE_RETURN_IF_ERROR(
        internal::PrepareTrialUpdate(study, *stored, updated, now));
    HPTUNE_RETURN_IF_ERROR(internal::UpdateTrialRow(db, study, updated));
    if (updated.state == stored->state) return absl::OkStatus();
    return internal::InsertEvent(
        db,
        MakeEvent(now, internal::kTrialState, study, "", number,
                  internal::TransitionDetail(stored->state, updated.state)));
  }));
  return updated;
}

absl::Status PostgresStore::AddMeasurement(std::string_view study,
                                           int64_t number,
                                           const Measurement& measurement) {
  const Timestamp now = clock_.Now();
  Measurement m = measurement;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareMeasurement(study, number, m, now));
  return Write([&](Connection& db) -> absl::Status {
    // Only the trial's state: the check must cost neither more as curves
    // grow nor a decode of the trial's parameters.
    HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialState> state,
                            internal::SelectTrialState(db, study, number));
    if (!state) return TrialOrStudyNotFound(db, study, number);
    HPTUNE_RETURN_IF_ERROR(
        internal::CheckAcceptsMeasurements(study, number, *state));
    HPTUNE_RETURN_IF_ERROR(internal::AppendMeasurement(db, study, number, m));
    return internal::InsertEvent(
        db, MakeEvent(now, internal::kMeasurement, study, "", number,
                      internal::MeasurementDetail(m)));
  });
}

}  // namespace hptune::store
