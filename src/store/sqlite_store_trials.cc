// SqliteStore's trials and measurements: adding, reading and updating
// trials, and the measurements queued from many threads and committed in
// batches.
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/status.h"
#include "src/store/sqlite_connection.h"
#include "src/store/sqlite_store.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"

namespace hptune::store {

using Connection = internal::SqliteConnection;

// --- Trials ---

absl::StatusOr<std::vector<Trial>> SqliteStore::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewTrials(study, trials, now));
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) {
    return internal::AddTrialsIn(db, study, trials, designer_state, now);
  }));
  return trials;
}

absl::StatusOr<Trial> SqliteStore::GetTrial(std::string_view study,
                                            int64_t number) {
  return ReadValue<Trial>(
      [&](Connection& db) { return internal::GetTrialIn(db, study, number); });
}

absl::StatusOr<Trial> SqliteStore::GetTrialSummary(std::string_view study,
                                                   int64_t number) {
  return ReadValue<Trial>([&](Connection& db) {
    return internal::GetTrialSummaryIn(db, study, number);
  });
}

absl::StatusOr<std::vector<Trial>> SqliteStore::ListTrials(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](Connection& db) { return internal::ListTrialsIn(db, study); });
}

absl::StatusOr<std::vector<Trial>> SqliteStore::ListTrialSummaries(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>([&](Connection& db) {
    return internal::ListTrialSummariesIn(db, study);
  });
}

absl::StatusOr<TrialStatuses> SqliteStore::ListTrialStatuses(
    std::string_view study) {
  return ReadValue<TrialStatuses>(
      [&](Connection& db) { return internal::ListTrialStatusesIn(db, study); });
}

absl::StatusOr<std::vector<Measurement>> SqliteStore::ListMeasurements(
    std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckMeasurementSkip(skip));
  return ReadValue<std::vector<Measurement>>([&](Connection& db) {
    return internal::ListMeasurementsIn(db, study, number, skip);
  });
}

absl::StatusOr<Trial> SqliteStore::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  return WriteValue<Trial>([&](Connection& db) {
    return internal::UpdateTrialIn(db, study, number, mutate, clock_.Now());
  });
}

void SqliteStore::AddMeasurementAsync(std::string_view study, int64_t number,
                                      const Measurement& measurement,
                                      std::function<void(absl::Status)> done) {
  measurements_.Add(study, number, measurement, clock_.Now(), std::move(done));
}

absl::Status SqliteStore::AddMeasurement(std::string_view study, int64_t number,
                                         const Measurement& measurement) {
  return measurements_.AddAndWait(study, number, measurement, clock_.Now());
}

}  // namespace hptune::store
