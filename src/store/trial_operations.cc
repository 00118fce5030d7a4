// The Store's trial and measurement operations (store_operations.h), for
// both SQL stores.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/sqlite_connection.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store::internal {

template <typename Db>
absl::Status AddTrialsIn(Db& db, std::string_view study,
                         std::vector<Trial>& trials,
                         const std::optional<std::string>& designer_state,
                         Timestamp now) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, study));
  HPTUNE_ASSIGN_OR_RETURN(int64_t last, SelectLastTrialNumber(db, study));
  for (Trial& trial : trials) {
    trial.number = ++last;
    HPTUNE_RETURN_IF_ERROR(InsertTrial(db, study, trial));
    HPTUNE_RETURN_IF_ERROR(
        InsertEvent(db, MakeEvent(now, kTrialCreated, study, "", trial.number,
                                  std::string(ToString(trial.state)))));
  }
  if (designer_state) {
    HPTUNE_RETURN_IF_ERROR(UpsertDesignerState(db, study, *designer_state));
  }
  return absl::OkStatus();
}

namespace {

// One trial as `select` reads it (with or without its measurements).
template <typename Db>
absl::StatusOr<Trial> SelectOneTrial(
    Db& db, std::string_view study, int64_t number,
    absl::StatusOr<std::optional<Trial>> (*select)(Db&, std::string_view,
                                                   int64_t)) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> trial,
                          select(db, study, number));
  if (!trial) return TrialOrStudyNotFound(db, study, number);
  return *std::move(trial);
}

}  // namespace

template <typename Db>
absl::StatusOr<Trial> GetTrialIn(Db& db, std::string_view study,
                                 int64_t number) {
  return SelectOneTrial(db, study, number, &SelectTrial<Db>);
}

template <typename Db>
absl::StatusOr<Trial> GetTrialSummaryIn(Db& db, std::string_view study,
                                        int64_t number) {
  return SelectOneTrial(db, study, number, &SelectTrialRow<Db>);
}

template <typename Db>
absl::StatusOr<std::vector<Trial>> ListTrialsIn(Db& db,
                                                std::string_view study) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, study));
  return SelectTrials(db, study);
}

template <typename Db>
absl::StatusOr<std::vector<Trial>> ListTrialSummariesIn(
    Db& db, std::string_view study) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, study));
  return SelectTrialRows(db, study);
}

template <typename Db>
absl::StatusOr<TrialStatuses> ListTrialStatusesIn(Db& db,
                                                  std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialStatuses> statuses,
                          SelectTrialStatuses(db, study));
  if (!statuses) return StudyNotFound(study);
  return *std::move(statuses);
}

template <typename Db>
absl::StatusOr<std::vector<Measurement>> ListMeasurementsIn(
    Db& db, std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Measurement> measurements,
                          SelectMeasurements(db, study, number, skip));
  // Rows prove the trial exists; only an empty answer needs the check.
  if (!measurements.empty()) return measurements;
  HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialState> state,
                          SelectTrialState(db, study, number));
  if (state) return measurements;
  return TrialOrStudyNotFound(db, study, number);
}

template <typename Db>
absl::StatusOr<Trial> UpdateTrialIn(
    Db& db, std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> stored,
                          SelectTrial(db, study, number));
  if (!stored) return TrialOrStudyNotFound(db, study, number);
  Trial updated = *stored;
  HPTUNE_RETURN_IF_ERROR(mutate(updated));
  HPTUNE_RETURN_IF_ERROR(PrepareTrialUpdate(study, *stored, updated, now));
  HPTUNE_RETURN_IF_ERROR(UpdateTrialRow(db, study, updated));
  if (updated.state != stored->state) {
    HPTUNE_RETURN_IF_ERROR(InsertEvent(
        db, MakeEvent(now, kTrialState, study, "", number,
                      TransitionDetail(stored->state, updated.state))));
  }
  return updated;
}

template <typename Db>
absl::StatusOr<Trial> AddTrialParameterIn(Db& db, std::string_view study,
                                          int64_t number,
                                          const ParameterSpec& spec,
                                          const ParameterValue& value,
                                          Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<StudyRecord> record,
                          SelectStudy(db, study));
  if (!record) return StudyNotFound(study);
  HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> trial,
                          SelectTrial(db, study, number));
  if (!trial) return TrialNotFound(study, number);
  HPTUNE_ASSIGN_OR_RETURN(
      TrialParameterChange change,
      PrepareTrialParameter(study, record->spec, *trial, spec, value));
  if (change == TrialParameterChange::kNone) return *std::move(trial);
  if (change == TrialParameterChange::kSpace) {
    HPTUNE_RETURN_IF_ERROR(UpdateStudySpec(db, study, record->spec));
    HPTUNE_RETURN_IF_ERROR(
        InsertEvent(db, MakeEvent(now, kStudySpace, study, "", number,
                                  SpaceDetail(spec.name, number))));
  }
  HPTUNE_RETURN_IF_ERROR(UpdateTrialRow(db, study, *trial));
  return *std::move(trial);
}

template <typename Db>
absl::Status AddMeasurementIn(Db& db, std::string_view study, int64_t number,
                              const Measurement& measurement, Timestamp time,
                              absl::Status& refusal) {
  refusal = absl::OkStatus();
  // Only the trial's state: the check must cost neither more as curves grow
  // nor a decode of the trial's parameters.
  HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialState> state,
                          SelectTrialState(db, study, number));
  if (!state) {
    HPTUNE_ASSIGN_OR_RETURN(bool exists, StudyExists(db, study));
    refusal = exists ? TrialNotFound(study, number) : StudyNotFound(study);
    return absl::OkStatus();
  }
  refusal = CheckAcceptsMeasurements(study, number, *state);
  if (!refusal.ok()) return absl::OkStatus();
  HPTUNE_RETURN_IF_ERROR(AppendMeasurement(db, study, number, measurement));
  return InsertEvent(db, MakeEvent(time, kMeasurement, study, "", number,
                                   MeasurementDetail(measurement)));
}

template <typename Db>
absl::Status TrialOrStudyNotFound(Db& db, std::string_view study,
                                  int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, StudyExists(db, study));
  return exists ? TrialNotFound(study, number) : StudyNotFound(study);
}

// Both stores' connections (store_operations.h).
#define HPTUNE_INSTANTIATE_OPERATIONS(Db)                                     \
  template absl::Status AddTrialsIn<Db>(                                      \
      Db&, std::string_view, std::vector<Trial>&,                             \
      const std::optional<std::string>&, Timestamp);                          \
  template absl::StatusOr<Trial> GetTrialIn<Db>(Db&, std::string_view,        \
                                                int64_t);                     \
  template absl::StatusOr<Trial> GetTrialSummaryIn<Db>(Db&, std::string_view, \
                                                       int64_t);              \
  template absl::StatusOr<std::vector<Trial>> ListTrialsIn<Db>(               \
      Db&, std::string_view);                                                 \
  template absl::StatusOr<std::vector<Trial>> ListTrialSummariesIn<Db>(       \
      Db&, std::string_view);                                                 \
  template absl::StatusOr<TrialStatuses> ListTrialStatusesIn<Db>(             \
      Db&, std::string_view);                                                 \
  template absl::StatusOr<std::vector<Measurement>> ListMeasurementsIn<Db>(   \
      Db&, std::string_view, int64_t, int64_t);                               \
  template absl::StatusOr<Trial> UpdateTrialIn<Db>(                           \
      Db&, std::string_view, int64_t,                                         \
      const std::function<absl::Status(Trial&)>&, Timestamp);                 \
  template absl::StatusOr<Trial> AddTrialParameterIn<Db>(                     \
      Db&, std::string_view, int64_t, const ParameterSpec&,                   \
      const ParameterValue&, Timestamp);                                      \
  template absl::Status AddMeasurementIn<Db>(Db&, std::string_view, int64_t,  \
                                             const Measurement&, Timestamp,   \
                                             absl::Status&);                  \
  template absl::Status TrialOrStudyNotFound<Db>(Db&, std::string_view,       \
                                                 int64_t);
HPTUNE_INSTANTIATE_OPERATIONS(SqliteConnection)
HPTUNE_INSTANTIATE_OPERATIONS(PgConnection)
#undef HPTUNE_INSTANTIATE_OPERATIONS

}  // namespace hptune::store::internal
