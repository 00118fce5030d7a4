// Store: durable state of studies, trials, measurements, jobs, designer state
// and an event log.
//
// The engine, server and CLI see only this interface; SqliteStore (a file,
// WAL, versioned schema) and MemoryStore (tests, ephemeral embedding) pass the
// same conformance suite. Every state change is one transaction that also
// appends its event, so a crash never leaves a half-made change. Trial and job
// state changes are checked against the state machines in core. All methods
// are thread-safe; SqliteStore is also safe across processes. Composition
// roots open one by URL (OpenStore in open_store.h), and ask it who may run
// jobs on it (AcquireRunnerLease).
#ifndef HPTUNE_STORE_STORE_H_
#define HPTUNE_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"

namespace hptune::store {

// Where one trial stands, without its parameters or measurements.
struct TrialStatus {
  int64_t number = 0;
  TrialState state = TrialState::kRequested;
  std::optional<Timestamp> end_time;
  bool operator==(const TrialStatus&) const = default;
};

// A study's trial statuses, with what tells the study apart from one
// deleted and created again under its name.
struct TrialStatuses {
  Timestamp study_create_time{};
  std::vector<TrialStatus> trials;  // By number.
};

// One entry of the event log, appended with each state change.
struct Event {
  int64_t id = 0;  // Increasing; resume a watch with ListEvents(after_id).
  Timestamp time{};
  std::string kind;          // "study_created", "study_state",
                             // "study_space", "trial_created",
                             // "trial_state", "measurement", "job_created",
                             // "job_state", "study_deleted", "job_deleted",
                             // "replica"
  std::string study;         // "" when not about a study.
  std::string job_id;        // "" when not about a job.
  int64_t trial_number = 0;  // 0 when not about a trial.
  std::string detail;        // e.g. "ACTIVE -> SUCCEEDED", "step 100".
  bool operator==(const Event&) const = default;
};

// A person's note on a study, or on one of its trials: Markdown text
// written from the dashboard. Untrusted: shown as text, never as HTML.
inline constexpr size_t kMaxNoteBytes = 32 << 10;

// One save of a note: its audit row.
struct NoteEdit {
  Timestamp time{};    // Stamped by the store.
  std::string peer;    // Where it came from, "127.0.0.1:51234".
  std::string client;  // Who, as the writer knew them ("dashboard session").
  int64_t bytes = 0;   // The size of the text saved; set by the store.
  bool operator==(const NoteEdit&) const = default;
};

struct Note {
  std::string text;             // "" when none was written.
  std::vector<NoteEdit> edits;  // Every save, oldest first.
};

// What one user's studies hold: what the server's per-user quotas count
// (docs/operations.md, "Quotas").
struct UserUsage {
  int64_t uid = -1;  // StudyRecord::owner_uid; -1: no owner.
  int64_t studies = 0;
  // kMeasurementRowBytes plus the metrics' stored JSON text, summed over
  // every intermediate measurement of those studies (deleted studies'
  // not).
  int64_t measurement_bytes = 0;
  bool operator==(const UserUsage&) const = default;
};
// What a measurement row costs its study's owner beside its metrics' JSON:
// the study, trial, sequence, step, time and attempt columns.
inline constexpr int64_t kMeasurementRowBytes = 32;

// Who asks to run jobs on a store (Store::AcquireRunnerLease).
enum class RunnerHolder {
  kServer,  // Alone: no server and no run beside it (`hptune store` copies).
  // `hptune serve`: beside other servers where the store allows it
  // (PostgresStore), each running the jobs it holds (RunnerLease::HoldJob);
  // elsewhere (SqliteStore, MemoryStore) as kServer, alone.
  kSharedServer,
  kRun,  // `hptune run` (or a command that acts as one): beside others.
};

// One job held by a runner lease (RunnerLease::HoldJob): released when
// destroyed, which must come before its lease's end.
class JobHold {
 public:
  virtual ~JobHold() = default;
};

// A held runner lease: released when destroyed. It must not outlive the
// store that gave it. Thread-safe: Check and HoldJob may be called from
// any thread.
class RunnerLease {
 public:
  virtual ~RunnerLease() = default;
  // Whether other servers hold leases beside this one (a kSharedServer
  // lease of PostgresStore): then every job, new or unfinished, is run by
  // the server that holds it (HoldJob), and one that no server holds is
  // an orphan (its server died) for any of them to take over.
  virtual bool shared() const { return false; }
  // Takes job `job_id` for this lease's holder, until the hold is
  // destroyed or the lease lost: Unavailable while another runner holds
  // it, or this lease already does. This default, for a lease held alone
  // (every job is its holder's): an empty hold.
  virtual absl::StatusOr<std::unique_ptr<JobHold>> HoldJob(
      std::string_view /*job_id*/) {
    return std::make_unique<JobHold>();
  }
  // OK while the lease is still held. A lease that lives on a database
  // connection (PostgresStore's) is lost when that connection is (a
  // network partition, the database restarted, an administrator ending the
  // session): then Unavailable naming the database, and its holder must stop
  // running jobs, since another may now take them over. A lease the kernel
  // keeps for this process (SqliteStore's flocks, MemoryStore's) cannot be
  // lost: this default.
  virtual absl::Status Check() { return absl::OkStatus(); }
};

class Store {
 public:
  virtual ~Store() = default;

  // --- Studies ---
  // AlreadyExists when the name is taken.
  [[nodiscard]] virtual absl::Status CreateStudy(const StudyRecord& study) = 0;
  // NotFound naming the study.
  virtual absl::StatusOr<StudyRecord> GetStudy(std::string_view name) = 0;
  // In creation order.
  virtual absl::StatusOr<std::vector<StudyRecord>> ListStudies() = 0;
  // Removes the study with its trials, measurements and designer state.
  [[nodiscard]] virtual absl::Status DeleteStudy(std::string_view name) = 0;
  [[nodiscard]] virtual absl::Status SetStudyState(std::string_view name,
                                                   StudyState state,
                                                   std::string_view reason) = 0;

  // --- Usage (per-user quotas) ---
  // The studies whose owner_uid is `uid` (>= 0), and their measurement
  // bytes, kept as measurements are stored: a read that does not grow with
  // the measurements.
  virtual absl::StatusOr<UserUsage> GetUserUsage(int64_t uid) = 0;
  // The usage of `study`'s owner (GetUserUsage), in one read: the check
  // before a measurement. For a study of no owner, uid -1 and zeros.
  // NotFound naming the study.
  virtual absl::StatusOr<UserUsage> GetStudyOwnerUsage(
      std::string_view study) = 0;

  // --- Trials ---
  // Appends `trials` numbered after the study's last trial (dense from 1),
  // stamping create_time, and stores `designer_state` when given, all in one
  // transaction. Returns the trials as stored. Each trial must be REQUESTED,
  // ACTIVE or SUCCEEDED/INFEASIBLE with its result (a user's warm start).
  virtual absl::StatusOr<std::vector<Trial>> AddTrials(
      std::string_view study, std::vector<Trial> trials,
      const std::optional<std::string>& designer_state) = 0;
  // With its measurements. NotFound naming study and trial.
  virtual absl::StatusOr<Trial> GetTrial(std::string_view study,
                                         int64_t number) = 0;
  // All trials with their measurements, by number.
  virtual absl::StatusOr<std::vector<Trial>> ListTrials(
      std::string_view study) = 0;
  // The same trials without their intermediate measurements (final
  // measurements kept): what designers and budget checks need, at a cost
  // that does not grow with the learning curves.
  virtual absl::StatusOr<std::vector<Trial>> ListTrialSummaries(
      std::string_view study) = 0;
  // One trial as ListTrialSummaries has it (no intermediate measurements):
  // what a reader that keeps the summaries between calls (the engine's
  // trial history) reads for a trial that changed. NotFound naming study
  // and trial. This default reads the whole trial.
  virtual absl::StatusOr<Trial> GetTrialSummary(std::string_view study,
                                                int64_t number) {
    absl::StatusOr<Trial> trial = GetTrial(study, number);
    if (trial.ok()) trial->measurements.clear();
    return trial;
  }
  // Number, state and end time of each trial, and the study's create time:
  // what a reader that keeps learning curves between calls (the engine's
  // early-stopping check, after every measurement) needs to see which of
  // them changed, in one read.
  virtual absl::StatusOr<TrialStatuses> ListTrialStatuses(
      std::string_view study) = 0;
  // The trial's intermediate measurements after its first `skip` (>= 0), in
  // report order: how such a reader follows a curve as it grows. NotFound
  // naming study and trial; InvalidArgument for a negative skip.
  virtual absl::StatusOr<std::vector<Measurement>> ListMeasurements(
      std::string_view study, int64_t number, int64_t skip) = 0;
  // Reads the trial, applies `mutate` and writes the result back in one
  // transaction; an error from `mutate` changes nothing and is returned. The
  // number and the measurements cannot be changed this way (AddMeasurement).
  // A state change must be legal (CheckTrialTransition) and is logged.
  // `mutate` may run more than once (a busy database is retried) and on
  // another caller's thread (SqliteStore's group commit): it must only
  // change the record it is given, and must neither take locks nor call
  // the store.
  virtual absl::StatusOr<Trial> UpdateTrial(
      std::string_view study, int64_t number,
      const std::function<absl::Status(Trial&)>& mutate) = 0;
  // Gives pending trial `number` (REQUESTED, ACTIVE or STOPPING) of `study`
  // the value `value` of root parameter `spec` (no condition), in one
  // transaction: when the study's space has no parameter `spec.name`, `spec`
  // joins it as its last parameter with first_trial = `number` (logged as a
  // "study_space" event of the trial, detail "<name> joined at trial
  // <number>"); when it has one, that one must be `spec` (first_trial
  // aside). A trial that already has a value of `spec.name` is returned as
  // it is, whatever its state, so a retried call changes nothing. Returns
  // the trial as stored. Errors, in the order checked: InvalidArgument for
  // a spec with a condition (before anything is read); NotFound naming
  // study or trial; FailedPrecondition naming the fields that differ (the
  // space's and the given) when the space's parameter of that name is not
  // `spec`, or naming the state of an ended trial; InvalidArgument for a
  // grown space that ValidateStudySpec refuses (its message), or a value
  // that is not feasible for `spec` (SearchSpace::CheckAssignment's).
  virtual absl::StatusOr<Trial> AddTrialParameter(
      std::string_view study, int64_t number, const ParameterSpec& spec,
      const ParameterValue& value) = 0;
  // Appends an intermediate measurement to an ACTIVE or STOPPING trial
  // (FailedPrecondition otherwise; InvalidArgument for a NaN or Inf value).
  [[nodiscard]] virtual absl::Status AddMeasurement(
      std::string_view study, int64_t number,
      const Measurement& measurement) = 0;
  // The same, answered through `done`, which is called exactly once, maybe
  // on another thread and maybe before this returns, once the measurement is
  // durable or refused. A caller that must not wait (a server thread that
  // also reads other requests) uses this; a store may then gather many into
  // one commit. `done` may run on the thread committing others' measurements
  // (the SQL stores' own): it must be short and must not wait for another
  // measurement of this store. This default calls AddMeasurement.
  virtual void AddMeasurementAsync(std::string_view study, int64_t number,
                                   const Measurement& measurement,
                                   std::function<void(absl::Status)> done) {
    done(AddMeasurement(study, number, measurement));
  }

  // --- Designer state ---
  // "" when none was stored.
  virtual absl::StatusOr<std::string> GetDesignerState(
      std::string_view study) = 0;

  // --- Jobs ---
  // AlreadyExists when the ID is taken.
  [[nodiscard]] virtual absl::Status CreateJob(const JobRecord& job) = 0;
  virtual absl::StatusOr<JobRecord> GetJob(std::string_view job_id) = 0;
  // In creation order.
  virtual absl::StatusOr<std::vector<JobRecord>> ListJobs() = 0;
  // Like UpdateTrial, for jobs: legal state changes only (CheckJobTransition),
  // logged; the job ID cannot change.
  virtual absl::StatusOr<JobRecord> UpdateJob(
      std::string_view job_id,
      const std::function<absl::Status(JobRecord&)>& mutate) = 0;
  // Removes an ended job and the study it ran (its study_name, when it
  // exists: trials, measurements, designer state, notes, as DeleteStudy),
  // in one transaction logging "study_deleted" and then "job_deleted".
  // NotFound naming the job; FailedPrecondition naming the job and its
  // state when it has not ended (it must be cancelled first).
  [[nodiscard]] virtual absl::Status DeleteJob(std::string_view job_id) = 0;

  // --- Replicas ---
  // Logs what happened to one replica process of trial `trial` of job
  // `job_id` as a "replica" event: "worker-1 started (attempt 1)", "worker-1
  // exited with code 1; restart 2 of 5". The trial's state is unchanged;
  // this is the record of restarts and re-runs. NotFound for an unknown job.
  [[nodiscard]] virtual absl::Status RecordReplicaEvent(
      std::string_view job_id, int64_t trial, std::string_view detail) = 0;

  // --- Notes ---
  // Not state changes: no event. Deleted with their study.
  // Replaces the note of `study` (trial 0) or of its trial `trial`, and
  // appends `edit` as its audit row (time and bytes stamped), in one
  // transaction. NotFound naming the study or trial; InvalidArgument naming
  // the note and its size above kMaxNoteBytes.
  [[nodiscard]] virtual absl::Status SetNote(std::string_view study,
                                             int64_t trial,
                                             std::string_view text,
                                             NoteEdit edit) = 0;
  // The note with its audit rows; an empty Note when none was written.
  // NotFound naming the study or trial.
  virtual absl::StatusOr<Note> GetNote(std::string_view study,
                                       int64_t trial) = 0;

  // --- Runner lease ---
  // Who may run jobs on this store. A server (kServer) holds the lease
  // alone: Unavailable while another server or any run holds one. Servers
  // that share (kSharedServer) are Unavailable beside a kServer or a run;
  // a store that has one server at a time gives them kServer's lease,
  // whose message then says so. A run (kRun) shares the store with other
  // runs: Unavailable while a server holds it. A run with a non-empty
  // `job_id` (a validated job ID) also holds that job, so that a second run
  // of the same job takes it over only once the first runner is gone:
  // Unavailable naming the holder while it holds it. A server passes ""
  // (InvalidArgument otherwise). The messages name the database and what
  // holds it. The lease is released when destroyed; SqliteStore's
  // (flocks beside the file) is shared by every process on the file and is
  // also released when its process dies, however it dies; MemoryStore's
  // holds within that store object. FailedPrecondition when the lease
  // cannot be recorded (a lock file that cannot be created).
  virtual absl::StatusOr<std::unique_ptr<RunnerLease>> AcquireRunnerLease(
      RunnerHolder holder, std::string_view job_id) = 0;

  // --- Event log ---
  // Events with id > after_id, oldest first, at most `limit`.
  virtual absl::StatusOr<std::vector<Event>> ListEvents(int64_t after_id,
                                                        int limit) = 0;
};

}  // namespace hptune::store

#endif  // HPTUNE_STORE_STORE_H_
