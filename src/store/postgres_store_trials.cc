// PostgresStore's trials and measurements: adding, reading and updating
// trials, and appending measurements.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_store.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"

namespace hptune::store {

using Connection = internal::PgConnection;

absl::StatusOr<std::vector<Trial>> PostgresStore::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewTrials(study, trials, now));
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) {
    return internal::AddTrialsIn(db, study, trials, designer_state, now);
  }));
  return trials;
}

absl::StatusOr<Trial> PostgresStore::GetTrial(std::string_view study,
                                              int64_t number) {
  return ReadValue<Trial>(
      [&](Connection& db) { return internal::GetTrialIn(db, study, number); });
}

absl::StatusOr<Trial> PostgresStore::GetTrialSummary(std::string_view study,
                                                     int64_t number) {
  return ReadValue<Trial>([&](Connection& db) {
    return internal::GetTrialSummaryIn(db, study, number);
  });
}

absl::StatusOr<std::vector<Trial>> PostgresStore::ListTrials(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](Connection& db) { return internal::ListTrialsIn(db, study); });
}

absl::StatusOr<std::vector<Trial>> PostgresStore::ListTrialSummaries(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>([&](Connection& db) {
    return internal::ListTrialSummariesIn(db, study);
  });
}

absl::StatusOr<TrialStatuses> PostgresStore::ListTrialStatuses(
    std::string_view study) {
  return ReadValue<TrialStatuses>(
      [&](Connection& db) { return internal::ListTrialStatusesIn(db, study); });
}

absl::StatusOr<std::vector<Measurement>> PostgresStore::ListMeasurements(
    std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckMeasurementSkip(skip));
  return ReadValue<std::vector<Measurement>>([&](Connection& db) {
    return internal::ListMeasurementsIn(db, study, number, skip);
  });
}

absl::StatusOr<Trial> PostgresStore::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  return WriteValue<Trial>([&](Connection& db) {
    return internal::UpdateTrialIn(db, study, number, mutate, clock_.Now());
  });
}

void PostgresStore::AddMeasurementAsync(
    std::string_view study, int64_t number, const Measurement& measurement,
    std::function<void(absl::Status)> done) {
  measurements_.Add(study, number, measurement, clock_.Now(), std::move(done));
}

absl::Status PostgresStore::AddMeasurement(std::string_view study,
                                           int64_t number,
                                           const Measurement& measurement) {
  return measurements_.AddAndWait(study, number, measurement, clock_.Now());
}

}  // namespace hptune::store
