#include "src/store/memory_store.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/record_codec.h"
#include "src/store/store_rules.h"

namespace hptune::store {

using internal::MakeEvent;

namespace {

// What SqliteStore adds to its study's measurement_bytes for the row.
int64_t MemoryMeasurementBytes(const Measurement& m) {
  absl::StatusOr<std::string> metrics = internal::EncodeMetrics(m.metrics);
  return kMeasurementRowBytes +
         (metrics.ok() ? static_cast<int64_t>(metrics->size()) : 0);
}

}  // namespace

MemoryStore::MemoryStore(Clock& clock) : clock_(clock) {}

absl::StatusOr<MemoryStore::StudyData*> MemoryStore::FindStudy(
    std::string_view name) {
  auto it = studies_.find(name);
  if (it == studies_.end()) return internal::StudyNotFound(name);
  return &it->second;
}

absl::StatusOr<Trial*> MemoryStore::FindTrial(std::string_view study,
                                              int64_t number) {
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  if (number < 1 || number > static_cast<int64_t>(data->trials.size())) {
    return internal::TrialNotFound(study, number);
  }
  return &data->trials[number - 1];
}

void MemoryStore::AppendEvent(Event event) {
  event.id = next_event_id_++;
  events_.push_back(std::move(event));
}

// --- Studies ---

absl::Status MemoryStore::CreateStudy(const StudyRecord& study) {
  MutexLock lock(&mu_);
  const Timestamp now = clock_.Now();
  StudyRecord record = study;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewStudy(record, now));
  if (studies_.contains(record.name)) {
    return internal::StudyAlreadyExists(record.name);
  }
  AppendEvent(MakeEvent(now, internal::kStudyCreated, record.name, "", 0, ""));
  StudyData data;
  data.order = next_order_++;
  data.record = std::move(record);
  std::string name = data.record.name;
  studies_.emplace(std::move(name), std::move(data));
  return absl::OkStatus();
}

absl::StatusOr<StudyRecord> MemoryStore::GetStudy(std::string_view name) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(name));
  return data->record;
}

absl::StatusOr<std::vector<StudyRecord>> MemoryStore::ListStudies() {
  MutexLock lock(&mu_);
  std::vector<const StudyData*> ordered;
  for (const auto& [name, data] : studies_) ordered.push_back(&data);
  std::sort(ordered.begin(), ordered.end(),
            [](const StudyData* a, const StudyData* b) {
              return a->order < b->order;
            });
  std::vector<StudyRecord> result;
  for (const StudyData* data : ordered) result.push_back(data->record);
  return result;
}

absl::Status MemoryStore::DeleteStudy(std::string_view name) {
  MutexLock lock(&mu_);
  auto it = studies_.find(name);
  if (it == studies_.end()) return internal::StudyNotFound(name);
  studies_.erase(it);
  AppendEvent(
      MakeEvent(clock_.Now(), internal::kStudyDeleted, name, "", 0, ""));
  return absl::OkStatus();
}

absl::Status MemoryStore::SetStudyState(std::string_view name, StudyState state,
                                        std::string_view reason) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckStoredStudyState(name, state));
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(name));
  StudyRecord& record = data->record;
  if (record.state != state) {
    AppendEvent(MakeEvent(clock_.Now(), internal::kStudyState, name, "", 0,
                          internal::TransitionDetail(record.state, state)));
  }
  record.state = state;
  record.reason = std::string(reason);
  return absl::OkStatus();
}

// --- Trials ---

absl::StatusOr<std::vector<Trial>> MemoryStore::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  MutexLock lock(&mu_);
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewTrials(study, trials, now));
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  for (Trial& trial : trials) {
    trial.number = static_cast<int64_t>(data->trials.size()) + 1;
    for (const Measurement& m : trial.measurements) {
      data->measurement_bytes += MemoryMeasurementBytes(m);
    }
    data->trials.push_back(trial);
    AppendEvent(MakeEvent(now, internal::kTrialCreated, study, "", trial.number,
                          std::string(ToString(trial.state))));
  }
  if (designer_state) data->designer_state = *designer_state;
  return trials;
}

absl::StatusOr<Trial> MemoryStore::GetTrial(std::string_view study,
                                            int64_t number) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(Trial * trial, FindTrial(study, number));
  return *trial;
}

absl::StatusOr<std::vector<Trial>> MemoryStore::ListTrials(
    std::string_view study) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  return data->trials;
}

absl::StatusOr<std::vector<Trial>> MemoryStore::ListTrialSummaries(
    std::string_view study) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  std::vector<Trial> trials;
  trials.reserve(data->trials.size());
  for (const Trial& t : data->trials) {
    Trial summary = t;
    summary.measurements.clear();
    trials.push_back(std::move(summary));
  }
  return trials;
}

absl::StatusOr<TrialStatuses> MemoryStore::ListTrialStatuses(
    std::string_view study) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  TrialStatuses statuses{.study_create_time = data->record.create_time};
  statuses.trials.reserve(data->trials.size());
  for (const Trial& t : data->trials) {
    statuses.trials.push_back(
        {.number = t.number, .state = t.state, .end_time = t.end_time});
  }
  return statuses;
}

absl::StatusOr<std::vector<Measurement>> MemoryStore::ListMeasurements(
    std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckMeasurementSkip(skip));
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(Trial * trial, FindTrial(study, number));
  const auto size = static_cast<int64_t>(trial->measurements.size());
  return std::vector<Measurement>(
      trial->measurements.begin() + std::min(skip, size),
      trial->measurements.end());
}

absl::StatusOr<Trial> MemoryStore::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(Trial * stored, FindTrial(study, number));
  const Timestamp now = clock_.Now();
  // Mutate a copy so an error leaves the stored trial as it was.
  Trial updated = *stored;
  HPTUNE_RETURN_IF_ERROR(mutate(updated));
  HPTUNE_RETURN_IF_ERROR(
      internal::PrepareTrialUpdate(study, *stored, updated, now));
  if (updated.state != stored->state) {
    AppendEvent(
        MakeEvent(now, internal::kTrialState, study, "", number,
                  internal::TransitionDetail(stored->state, updated.state)));
  }
  *stored = updated;
  return updated;
}

absl::StatusOr<Trial> MemoryStore::AddTrialParameter(
    std::string_view study, int64_t number, const ParameterSpec& spec,
    const ParameterValue& value) {
  HPTUNE_RETURN_IF_ERROR(
      internal::CheckTrialParameterSpec(study, number, spec));
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  HPTUNE_ASSIGN_OR_RETURN(Trial * stored, FindTrial(study, number));
  // Work on copies so an error leaves the study and trial as they were.
  StudySpec grown = data->record.spec;
  Trial updated = *stored;
  HPTUNE_ASSIGN_OR_RETURN(
      internal::TrialParameterChange change,
      internal::PrepareTrialParameter(study, grown, updated, spec, value));
  if (change == internal::TrialParameterChange::kSpace) {
    AppendEvent(MakeEvent(clock_.Now(), internal::kStudySpace, study, "",
                          number, internal::SpaceDetail(spec.name, number)));
    data->record.spec = std::move(grown);
  }
  *stored = updated;
  return updated;
}

absl::Status MemoryStore::AddMeasurement(std::string_view study, int64_t number,
                                         const Measurement& measurement) {
  MutexLock lock(&mu_);
  const Timestamp now = clock_.Now();
  Measurement m = measurement;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareMeasurement(study, number, m, now));
  HPTUNE_ASSIGN_OR_RETURN(Trial * trial, FindTrial(study, number));
  HPTUNE_RETURN_IF_ERROR(
      internal::CheckAcceptsMeasurements(study, number, trial->state));
  AppendEvent(MakeEvent(now, internal::kMeasurement, study, "", number,
                        internal::MeasurementDetail(m)));
  studies_.find(study)->second.measurement_bytes += MemoryMeasurementBytes(m);
  trial->measurements.push_back(std::move(m));
  return absl::OkStatus();
}

// --- Usage ---

UserUsage MemoryStore::UsageOf(int64_t uid) {
  UserUsage usage{.uid = uid};
  for (const auto& [name, data] : studies_) {
    if (data.record.owner_uid != uid) continue;
    ++usage.studies;
    usage.measurement_bytes += data.measurement_bytes;
  }
  return usage;
}

absl::StatusOr<UserUsage> MemoryStore::GetUserUsage(int64_t uid) {
  MutexLock lock(&mu_);
  return UsageOf(uid);
}

absl::StatusOr<UserUsage> MemoryStore::GetStudyOwnerUsage(
    std::string_view study) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  if (data->record.owner_uid < 0) return UserUsage{};
  return UsageOf(data->record.owner_uid);
}

// --- Designer state ---

absl::StatusOr<std::string> MemoryStore::GetDesignerState(
    std::string_view study) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  return data->designer_state;
}

// --- Jobs ---

absl::Status MemoryStore::CreateJob(const JobRecord& job) {
  MutexLock lock(&mu_);
  const Timestamp now = clock_.Now();
  JobRecord record = job;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewJob(record, now));
  if (jobs_.contains(record.job_id)) {
    return internal::JobAlreadyExists(record.job_id);
  }
  AppendEvent(MakeEvent(now, internal::kJobCreated, record.study_name,
                        record.job_id, 0, std::string(ToString(record.state))));
  JobData data;
  data.order = next_order_++;
  data.record = std::move(record);
  std::string job_id = data.record.job_id;
  jobs_.emplace(std::move(job_id), std::move(data));
  return absl::OkStatus();
}

absl::StatusOr<JobRecord> MemoryStore::GetJob(std::string_view job_id) {
  MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return internal::JobNotFound(job_id);
  return it->second.record;
}

absl::StatusOr<std::vector<JobRecord>> MemoryStore::ListJobs() {
  MutexLock lock(&mu_);
  std::vector<const JobData*> ordered;
  for (const auto& [job_id, data] : jobs_) ordered.push_back(&data);
  std::sort(
      ordered.begin(), ordered.end(),
      [](const JobData* a, const JobData* b) { return a->order < b->order; });
  std::vector<JobRecord> result;
  for (const JobData* data : ordered) result.push_back(data->record);
  return result;
}

absl::StatusOr<JobRecord> MemoryStore::UpdateJob(
    std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate) {
  MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return internal::JobNotFound(job_id);
  JobRecord& stored = it->second.record;
  const Timestamp now = clock_.Now();
  JobRecord updated = stored;
  HPTUNE_RETURN_IF_ERROR(mutate(updated));
  HPTUNE_RETURN_IF_ERROR(internal::PrepareJobUpdate(stored, updated, now));
  if (updated.state != stored.state) {
    AppendEvent(
        MakeEvent(now, internal::kJobState, updated.study_name, job_id, 0,
                  internal::TransitionDetail(stored.state, updated.state)));
  }
  stored = updated;
  return updated;
}

absl::Status MemoryStore::DeleteJob(std::string_view job_id) {
  MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return internal::JobNotFound(job_id);
  const JobRecord& job = it->second.record;
  HPTUNE_RETURN_IF_ERROR(internal::CheckJobDeletable(job));
  const Timestamp now = clock_.Now();
  if (auto study = studies_.find(job.study_name); study != studies_.end()) {
    studies_.erase(study);
    AppendEvent(
        MakeEvent(now, internal::kStudyDeleted, job.study_name, "", 0, ""));
  }
  AppendEvent(MakeEvent(now, internal::kJobDeleted, job.study_name, job.job_id,
                        0, std::string(ToString(job.state))));
  jobs_.erase(it);
  return absl::OkStatus();
}

// --- Replicas ---

absl::Status MemoryStore::RecordReplicaEvent(std::string_view job_id,
                                             int64_t trial,
                                             std::string_view detail) {
  MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return internal::JobNotFound(job_id);
  AppendEvent(MakeEvent(clock_.Now(), internal::kReplica,
                        it->second.record.study_name, job_id, trial,
                        std::string(detail)));
  return absl::OkStatus();
}

// --- Event log ---

class MemoryStore::Lease : public RunnerLease {
 public:
  Lease(MemoryStore& store, RunnerHolder holder, std::string job_id)
      : store_(store), holder_(holder), job_id_(std::move(job_id)) {}
  ~Lease() override { store_.ReleaseRunnerLease(holder_, job_id_); }

 private:
  MemoryStore& store_;
  const RunnerHolder holder_;
  const std::string job_id_;
};

absl::StatusOr<std::unique_ptr<RunnerLease>> MemoryStore::AcquireRunnerLease(
    RunnerHolder holder, std::string_view job_id) {
  MutexLock lock(&mu_);
  if (holder != RunnerHolder::kRun) {
    if (!job_id.empty()) {
      return absl::InvalidArgumentError("a server's runner lease holds no job");
    }
    if (served_) {
      return absl::UnavailableError(
          "database \"memory:\" is already served by another hptune serve");
    }
    if (runs_ > 0) {
      return absl::UnavailableError(
          "database \"memory:\" is in use by hptune run; serve it once those "
          "runs end, or serve another --db");
    }
    served_ = true;
    return std::make_unique<Lease>(*this, holder, "");
  }
  if (served_) {
    return absl::UnavailableError(
        "database \"memory:\" is served by hptune serve: submit the job to "
        "the server with `hptune jobs submit`, or run it on another --db");
  }
  if (!job_id.empty() && !running_jobs_.emplace(job_id).second) {
    return absl::UnavailableError(
        absl::StrCat("job ", std::string(job_id),
                     " is being run by a live runner of this process: wait "
                     "for it, or cancel it there"));
  }
  ++runs_;
  return std::make_unique<Lease>(*this, holder, std::string(job_id));
}

void MemoryStore::ReleaseRunnerLease(RunnerHolder holder,
                                     const std::string& job_id) {
  MutexLock lock(&mu_);
  if (holder != RunnerHolder::kRun) {
    served_ = false;
    return;
  }
  --runs_;
  if (!job_id.empty()) running_jobs_.erase(job_id);
}

absl::StatusOr<std::vector<Event>> MemoryStore::ListEvents(int64_t after_id,
                                                           int limit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckEventLimit(limit));
  MutexLock lock(&mu_);
  auto first = std::upper_bound(
      events_.begin(), events_.end(), after_id,
      [](int64_t id, const Event& event) { return id < event.id; });
  const auto available = std::distance(first, events_.end());
  return std::vector<Event>(
      first, first + std::min<decltype(available)>(available, limit));
}

// --- Notes ---

absl::StatusOr<Note*> MemoryStore::FindNote(std::string_view study,
                                            int64_t trial) {
  HPTUNE_ASSIGN_OR_RETURN(StudyData * data, FindStudy(study));
  if (trial != 0) HPTUNE_RETURN_IF_ERROR(FindTrial(study, trial).status());
  return &data->notes[trial];
}

absl::Status MemoryStore::SetNote(std::string_view study, int64_t trial,
                                  std::string_view text, NoteEdit edit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckNote(text));
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(Note * note, FindNote(study, trial));
  note->text = std::string(text);
  note->edits.push_back(
      internal::StampNoteEdit(std::move(edit), text, clock_.Now()));
  return absl::OkStatus();
}

absl::StatusOr<Note> MemoryStore::GetNote(std::string_view study,
                                          int64_t trial) {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(Note * note, FindNote(study, trial));
  return *note;
}

}  // namespace hptune::store
