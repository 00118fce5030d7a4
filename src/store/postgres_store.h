// PostgresStore: the Store in a PostgreSQL database, for state shared by
// processes on several machines.
//
// Opened by OpenStore for a "postgresql://" URL (open_store.h). Built on
// libpq's C API, whose errors are values (no exceptions), through a small
// pool of connections (postgres_pool.h). The schema is created when missing
// and versioned (postgres_schema.h); a database of a newer version is
// refused. The tables and their encodings are SqliteStore's (store_tables.h,
// record_codec.h), and the rules the same (store_rules.h), so both pass one
// conformance suite.
//
// Durability: each call is one transaction, committed with
// synchronous_commit on before the call returns. Serialisation: every write
// transaction takes one transaction-level advisory lock first, so writes to
// one database commit one at a time, as SQLite's do: a trial number is given
// once, a measurement stored once, and event ids commit in increasing order
// (a watcher resuming after an id misses none). Reads run in REPEATABLE READ
// READ ONLY transactions: one snapshot, never waiting for writes.
//
// Thread-safety: all methods are thread-safe; several processes and
// machines may share the database. The `mutate` callbacks of UpdateTrial and
// UpdateJob run once, on the caller's thread.
#ifndef HPTUNE_SRC_STORE_POSTGRES_STORE_H_
#define HPTUNE_SRC_STORE_POSTGRES_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"
#include "src/store/measurement_queue.h"
#include "src/store/store_operations.h"

namespace hptune::store {

namespace internal {
class PgConnection;
class PgPool;
}  // namespace internal

class PostgresStore : public Store {
 public:
  static constexpr int kDefaultPoolSize = 4;

  // Connects to `conninfo` (a libpq URL), creating the schema when missing.
  // `printable` names the database in messages (no password). Unavailable
  // when the server cannot be reached; FailedPrecondition for a database of
  // a newer schema version or not an hptune one. `clock` must outlive it.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(
      const std::string& conninfo, const std::string& printable, int pool_size,
      Clock& clock);
  ~PostgresStore() override;

  [[nodiscard]] absl::Status CreateStudy(const StudyRecord& study) override;
  absl::StatusOr<StudyRecord> GetStudy(std::string_view name) override;
  absl::StatusOr<std::vector<StudyRecord>> ListStudies() override;
  [[nodiscard]] absl::Status DeleteStudy(std::string_view name) override;
  [[nodiscard]] absl::Status SetStudyState(std::string_view name,
                                           StudyState state,
                                           std::string_view reason) override;

  absl::StatusOr<UserUsage> GetUserUsage(int64_t uid) override;
  absl::StatusOr<UserUsage> GetStudyOwnerUsage(std::string_view study) override;

  absl::StatusOr<std::vector<Trial>> AddTrials(
      std::string_view study, std::vector<Trial> trials,
      const std::optional<std::string>& designer_state) override;
  absl::StatusOr<Trial> GetTrial(std::string_view study,
                                 int64_t number) override;
  absl::StatusOr<Trial> GetTrialSummary(std::string_view study,
                                        int64_t number) override;
  absl::StatusOr<std::vector<Trial>> ListTrials(
      std::string_view study) override;
  absl::StatusOr<std::vector<Trial>> ListTrialSummaries(
      std::string_view study) override;
  absl::StatusOr<TrialStatuses> ListTrialStatuses(
      std::string_view study) override;
  absl::StatusOr<std::vector<Measurement>> ListMeasurements(
      std::string_view study, int64_t number, int64_t skip) override;
  absl::StatusOr<Trial> UpdateTrial(
      std::string_view study, int64_t number,
      const std::function<absl::Status(Trial&)>& mutate) override;
  // Measurements are committed in groups (measurement_queue.h): one WAL
  // flush for every report that arrived while the last commit ran.
  void AddMeasurementAsync(std::string_view study, int64_t number,
                           const Measurement& measurement,
                           std::function<void(absl::Status)> done) override;
  [[nodiscard]] absl::Status AddMeasurement(
      std::string_view study, int64_t number,
      const Measurement& measurement) override;

  absl::StatusOr<std::string> GetDesignerState(std::string_view study) override;

  [[nodiscard]] absl::Status CreateJob(const JobRecord& job) override;
  absl::StatusOr<JobRecord> GetJob(std::string_view job_id) override;
  absl::StatusOr<std::vector<JobRecord>> ListJobs() override;
  absl::StatusOr<JobRecord> UpdateJob(
      std::string_view job_id,
      const std::function<absl::Status(JobRecord&)>& mutate) override;
  [[nodiscard]] absl::Status DeleteJob(std::string_view job_id) override;

  [[nodiscard]] absl::Status RecordReplicaEvent(
      std::string_view job_id, int64_t trial, std::string_view detail) override;

  [[nodiscard]] absl::Status SetNote(std::string_view study, int64_t trial,
                                     std::string_view text,
                                     NoteEdit edit) override;
  absl::StatusOr<Note> GetNote(std::string_view study, int64_t trial) override;

  // Session advisory locks held on a connection of the lease's own
  // (postgres_lease.h): released when it is destroyed, and by the server
  // when that connection drops (its process died or lost the network).
  absl::StatusOr<std::unique_ptr<RunnerLease>> AcquireRunnerLease(
      RunnerHolder holder, std::string_view job_id) override;

  absl::StatusOr<std::vector<Event>> ListEvents(int64_t after_id,
                                                int limit) override;

 private:
  PostgresStore(std::unique_ptr<internal::PgPool> pool, Clock& clock);

  using Body = absl::FunctionRef<absl::Status(internal::PgConnection&)>;
  // Runs `body` in a read-only snapshot, or in a write transaction that
  // holds the database's write lock.
  [[nodiscard]] absl::Status Read(Body body);
  [[nodiscard]] absl::Status Write(Body body);
  // The value `op` returns, run in a read or write transaction (as above).
  template <typename T>
  absl::StatusOr<T> ReadValue(
      absl::FunctionRef<absl::StatusOr<T>(internal::PgConnection&)> op) {
    return internal::ValueIn<T>([this](auto body) { return Read(body); }, op);
  }
  template <typename T>
  absl::StatusOr<T> WriteValue(
      absl::FunctionRef<absl::StatusOr<T>(internal::PgConnection&)> op) {
    return internal::ValueIn<T>([this](auto body) { return Write(body); }, op);
  }

  std::unique_ptr<internal::PgPool> pool_;
  Clock& clock_;
  internal::MeasurementQueue
      measurements_;  // Through Write. Last: stops first.
};

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_POSTGRES_STORE_H_
