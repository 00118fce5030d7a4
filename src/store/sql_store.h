// SqlStore: the Store's methods for the stores on an SQL database
// (SqliteStore, PostgresStore), written once.
//
// Each method checks its arguments (store_rules.h), picks a read or a write
// transaction and runs the shared operation in it (store_operations.h), with
// the time read in that transaction. A store derives from
// SqlStore<Itself, Connection> and keeps only what differs: how it opens,
// its transactions, its runner lease (AcquireRunnerLease) and, as its last
// member, its MeasurementQueue `measurements_`, made with
// CommitMeasurements(), so that the queue stops before what it commits on
// goes. It gives SqlStore, a friend, these:
//   absl::Status Read(absl::FunctionRef<absl::Status(Connection&)> body);
//   absl::Status Write(absl::FunctionRef<absl::Status(Connection&)> body);
// Read runs `body` in a read-only snapshot, Write in a write transaction
// that no other writer runs beside; each retries or fails as its store says.
// The methods are defined, and instantiated for both stores, in
// sql_store.cc; the store's own calls are direct, not virtual.
//
// Thread-safety: as the store's Read and Write (both stores' are
// thread-safe).
#ifndef HPTUNE_SRC_STORE_SQL_STORE_H_
#define HPTUNE_SRC_STORE_SQL_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"
#include "src/store/measurement_queue.h"
#include "src/store/store_operations.h"

namespace hptune::store::internal {

template <typename Derived, typename Connection>
class SqlStore : public Store {
 public:
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
  absl::StatusOr<Trial> AddTrialParameter(std::string_view study,
                                          int64_t number,
                                          const ParameterSpec& spec,
                                          const ParameterValue& value) override;
  // Measurements are committed in groups (measurement_queue.h): one commit
  // for every report that arrived while the last one ran.
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

  absl::StatusOr<std::vector<Event>> ListEvents(int64_t after_id,
                                                int limit) override;

 protected:
  // `clock` stamps create times and events; it must outlive the store.
  explicit SqlStore(hptune::Clock& clock) : clock_(clock) {}

  // The store's MeasurementQueue's commit: a batch in one Write.
  MeasurementQueue::Commit CommitMeasurements();

 private:
  using Body = absl::FunctionRef<absl::Status(Connection&)>;
  template <typename T>
  using Op = absl::FunctionRef<absl::StatusOr<T>(Connection&)>;

  Derived& store() { return static_cast<Derived&>(*this); }
  [[nodiscard]] absl::Status Read(Body body) { return store().Read(body); }
  [[nodiscard]] absl::Status Write(Body body) { return store().Write(body); }
  // The value `op` returns, run in a read or a write transaction.
  template <typename T>
  absl::StatusOr<T> ReadValue(Op<T> op) {
    return ValueIn<T>([this](Body body) { return Read(body); }, op);
  }
  template <typename T>
  absl::StatusOr<T> WriteValue(Op<T> op) {
    return ValueIn<T>([this](Body body) { return Write(body); }, op);
  }

  hptune::Clock& clock_;
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SQL_STORE_H_
