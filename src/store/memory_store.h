// MemoryStore: a Store that keeps everything in memory.
//
// For tests of the engine and server, and for embedders that need no
// persistence (NewMemoryStore in open_store.h makes one as a Store). Same
// semantics as SqliteStore (the shared conformance suite runs against both):
// the same validation, error messages, trial numbering and event log; what is
// lost is durability. Thread-safe: one mutex guards all state, so each call is
// atomic. The `mutate` callbacks of UpdateTrial and UpdateJob run under that
// mutex and must not call back into the store.
#ifndef HPTUNE_SRC_STORE_MEMORY_STORE_H_
#define HPTUNE_SRC_STORE_MEMORY_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"

namespace hptune::store {

class MemoryStore : public Store {
 public:
  // `clock` stamps create times and events; it must outlive the store.
  explicit MemoryStore(Clock& clock);

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

  // Held within this object: a second MemoryStore is another database.
  absl::StatusOr<std::unique_ptr<RunnerLease>> AcquireRunnerLease(
      RunnerHolder holder, std::string_view job_id) override;

  absl::StatusOr<std::vector<Event>> ListEvents(int64_t after_id,
                                                int limit) override;

 private:
  struct StudyData {
    int64_t order = 0;  // Creation order, for ListStudies.
    StudyRecord record;
    std::vector<Trial> trials;  // trials[i].number == i + 1.
    std::string designer_state;
    std::map<int64_t, Note> notes;  // By trial; 0: the study's.
    int64_t measurement_bytes = 0;  // UserUsage's, kept as SqliteStore's.
  };
  struct JobData {
    int64_t order = 0;  // Creation order, for ListJobs.
    JobRecord record;
  };

  absl::StatusOr<StudyData*> FindStudy(std::string_view name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Trial*> FindTrial(std::string_view study, int64_t number)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The note of `study` (trial 0) or of its trial `trial`, made when absent.
  absl::StatusOr<Note*> FindNote(std::string_view study, int64_t trial)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AppendEvent(Event event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives back what a Lease held.
  class Lease;
  void ReleaseRunnerLease(RunnerHolder holder, const std::string& job_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  UserUsage UsageOf(int64_t uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Clock& clock_;
  Mutex mu_;
  int64_t next_order_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<std::string, StudyData, std::less<>> studies_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, JobData, std::less<>> jobs_ ABSL_GUARDED_BY(mu_);
  // Never reused, like SQLite's AUTOINCREMENT.
  int64_t next_event_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);  // By id.
  // The runner leases held: a server, or runs and the jobs they run.
  bool served_ ABSL_GUARDED_BY(mu_) = false;
  int64_t runs_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::string, std::less<>> running_jobs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_MEMORY_STORE_H_
