// SqliteStore's trials and measurements: adding, reading and updating
// trials, and the measurements queued from many threads and committed in
// batches.
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/status.h"
#include "src/store/sqlite_connection.h"
#include "src/store/sqlite_store.h"
#include "src/store/sqlite_store_reads.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store {

using internal::MakeEvent;
using Connection = internal::SqliteConnection;

// --- Trials ---

absl::StatusOr<std::vector<Trial>> SqliteStore::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewTrials(study, trials, now));
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
    if (!exists) return internal::StudyNotFound(study);
    // Inside the write transaction, so concurrent writers (threads or
    // processes) cannot take the same numbers.
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

absl::StatusOr<Trial> SqliteStore::GetTrial(std::string_view study,
                                            int64_t number) {
  return ReadOneTrial(study, number, internal::SelectTrial);
}

absl::StatusOr<Trial> SqliteStore::GetTrialSummary(std::string_view study,
                                                   int64_t number) {
  return ReadOneTrial(study, number, internal::SelectTrialRow);
}

absl::StatusOr<Trial> SqliteStore::ReadOneTrial(
    std::string_view study, int64_t number,
    absl::StatusOr<std::optional<Trial>> (*select)(Connection&,
                                                   std::string_view, int64_t)) {
  std::optional<Trial> trial;
  HPTUNE_RETURN_IF_ERROR(Read([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(trial, select(db, study, number));
    if (trial) return absl::OkStatus();
    HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
    return exists ? internal::TrialNotFound(study, number)
                  : internal::StudyNotFound(study);
  }));
  return *std::move(trial);
}

absl::StatusOr<std::vector<Trial>> SqliteStore::ListTrials(
    std::string_view study) {
  return ReadFromStudy<std::vector<Trial>>(
      study, [&](Connection& db) { return internal::SelectTrials(db, study); });
}

absl::StatusOr<std::vector<Trial>> SqliteStore::ListTrialSummaries(
    std::string_view study) {
  return ReadFromStudy<std::vector<Trial>>(study, [&](Connection& db) {
    return internal::SelectTrialRows(db, study);
  });
}

absl::StatusOr<TrialStatuses> SqliteStore::ListTrialStatuses(
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

absl::StatusOr<std::vector<Measurement>> SqliteStore::ListMeasurements(
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
    HPTUNE_ASSIGN_OR_RETURN(bool study_exists,
                            internal::StudyExists(db, study));
    return study_exists ? internal::TrialNotFound(study, number)
                        : internal::StudyNotFound(study);
  }));
  return measurements;
}

absl::StatusOr<Trial> SqliteStore::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  Trial updated;
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<Trial> stored,
                            internal::SelectTrial(db, study, number));
    if (!stored) {
      HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
      return exists ? internal::TrialNotFound(study, number)
                    : internal::StudyNotFound(study);
    }
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

void SqliteStore::AddMeasurementAsync(std::string_view study, int64_t number,
                                      const Measurement& measurement,
                                      std::function<void(absl::Status)> done) {
  const Timestamp now = clock_.Now();
  Measurement m = measurement;
  if (absl::Status valid = internal::PrepareMeasurement(study, number, m, now);
      !valid.ok()) {
    done(valid);
    return;
  }
  {
    MutexLock lock(&queue_mu_);
    queue_.push_back({.study = std::string(study),
                      .number = number,
                      .measurement = std::move(m),
                      .time = now,
                      .done = std::move(done)});
    if (committing_) return;  // The running commit loop takes it.
    committing_ = true;
  }
  while (true) {
    std::vector<QueuedMeasurement> batch;
    {
      MutexLock lock(&queue_mu_);
      if (queue_.empty()) {
        committing_ = false;
        return;
      }
      batch.swap(queue_);
    }
    CommitMeasurements(batch);
    for (QueuedMeasurement& q : batch) q.done(q.status);
  }
}

absl::Status SqliteStore::AddMeasurement(std::string_view study, int64_t number,
                                         const Measurement& measurement) {
  Mutex mu;
  CondVar answered;
  std::optional<absl::Status> status;  // Under mu.
  AddMeasurementAsync(study, number, measurement, [&](absl::Status s) {
    MutexLock lock(&mu);
    status = std::move(s);
    answered.Signal();
  });
  MutexLock lock(&mu);
  while (!status.has_value()) answered.Wait(&mu);
  return *std::move(status);
}

void SqliteStore::CommitMeasurements(std::vector<QueuedMeasurement>& batch) {
  const absl::Status committed = Write([&](Connection& db) -> absl::Status {
    for (QueuedMeasurement& q : batch) {
      q.status = absl::OkStatus();
      // Only the trial's state: the check must cost neither more as curves
      // grow nor a decode of the trial's parameters.
      HPTUNE_ASSIGN_OR_RETURN(
          std::optional<TrialState> state,
          internal::SelectTrialState(db, q.study, q.number));
      if (!state) {
        HPTUNE_ASSIGN_OR_RETURN(bool exists,
                                internal::StudyExists(db, q.study));
        q.status = exists ? internal::TrialNotFound(q.study, q.number)
                          : internal::StudyNotFound(q.study);
        continue;
      }
      q.status = internal::CheckAcceptsMeasurements(q.study, q.number, *state);
      if (!q.status.ok()) continue;
      HPTUNE_RETURN_IF_ERROR(
          internal::AppendMeasurement(db, q.study, q.number, q.measurement));
      HPTUNE_RETURN_IF_ERROR(internal::InsertEvent(
          db, MakeEvent(q.time, internal::kMeasurement, q.study, "", q.number,
                        internal::MeasurementDetail(q.measurement))));
    }
    return absl::OkStatus();
  });
  if (!committed.ok()) {
    for (QueuedMeasurement& q : batch) q.status = committed;
  }
}

}  // namespace hptune::store
