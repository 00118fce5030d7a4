#include "src/dashboard/study_cache.h"

#include "hptune/core/status.h"
#include "hptune/read/study_changes.h"

namespace hptune::dashboard {
namespace {

constexpr int kEventPage = 5000;
// Above this many changed trials of one study in one refresh, reading the
// whole study again is cheaper than reading each trial.
constexpr size_t kReloadAbove = 500;

// A trial without its learning curve; a running one keeps its latest
// measurement, so that the table shows how far it got.
std::shared_ptr<const Trial> Summary(Trial trial) {
  if (IsTerminal(trial.state) || trial.measurements.empty()) {
    trial.measurements.clear();
  } else {
    trial.measurements.erase(trial.measurements.begin(),
                             trial.measurements.end() - 1);
  }
  return std::make_shared<const Trial>(std::move(trial));
}

// The summaries of a whole study, running trials with their latest
// measurement: a read per running trial (at most maxParallelTrials of them).
absl::StatusOr<std::vector<std::shared_ptr<const Trial>>> Summaries(
    store::Store& store, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store.ListTrialSummaries(study));
  std::vector<std::shared_ptr<const Trial>> summaries;
  summaries.reserve(trials.size());
  for (Trial& trial : trials) {
    if (!IsTerminal(trial.state) && trial.start_time) {
      HPTUNE_ASSIGN_OR_RETURN(trial.measurements,
                              store.ListMeasurements(study, trial.number, 0));
    }
    summaries.push_back(Summary(std::move(trial)));
  }
  return summaries;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StudyCache>> StudyCache::Create(
    store::Store& store) {
  HPTUNE_ASSIGN_OR_RETURN(int64_t last, read::LastEventId(store));
  return std::unique_ptr<StudyCache>(new StudyCache(store, last));
}

absl::Status StudyCache::ReloadJobsLocked() {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_.ListJobs());
  jobs_by_study_.clear();
  // A study run again by a later job shows the latest.
  for (JobRecord& job : jobs) jobs_by_study_[job.study_name] = std::move(job);
  jobs_loaded_ = true;
  return absl::OkStatus();
}

std::optional<JobRecord> StudyCache::JobOfLocked(
    const std::string& study) const {
  auto it = jobs_by_study_.find(study);
  if (it == jobs_by_study_.end()) return std::nullopt;
  return it->second;
}

void StudyCache::SetJobLocked(StudySnapshot& snapshot) const {
  snapshot.job = JobOfLocked(snapshot.study.name);
}

absl::StatusOr<std::shared_ptr<const StudySnapshot>> StudyCache::LoadLocked(
    std::string_view name) {
  if (!jobs_loaded_) HPTUNE_RETURN_IF_ERROR(ReloadJobsLocked());
  auto snapshot = std::make_shared<StudySnapshot>();
  HPTUNE_ASSIGN_OR_RETURN(snapshot->study, store_.GetStudy(name));
  SetJobLocked(*snapshot);
  HPTUNE_ASSIGN_OR_RETURN(snapshot->trials, Summaries(store_, name));
  studies_[snapshot->study.name] = snapshot;
  return snapshot;
}

absl::StatusOr<Changes> StudyCache::Refresh() {
  MutexLock lock(&mu_);
  Changes changes;
  bool jobs_changed = false;
  std::map<std::string, std::set<int64_t>> changed_trials;
  std::set<std::string> changed_studies;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<store::Event> events,
                            store_.ListEvents(event_id_, kEventPage));
    for (const store::Event& event : events) {
      event_id_ = event.id;
      if (event.kind.starts_with("job_")) jobs_changed = true;
      if (event.study.empty()) continue;
      changes.studies.insert(event.study);
      if (event.trial_number > 0) {
        changes.trials.insert({event.study, event.trial_number});
      }
      // A measurement moves a running trial's latest step and value; a
      // parameter joining the space (study_space) changes the study's spec
      // and gives its trial a value.
      if (event.kind == "trial_created" || event.kind == "trial_state" ||
          event.kind == "measurement" || event.kind == "study_space") {
        changed_trials[event.study].insert(event.trial_number);
      }
      if (event.kind == "study_state" || event.kind == "study_deleted" ||
          event.kind == "study_created" || event.kind == "study_space") {
        changed_studies.insert(event.study);
      }
    }
    if (events.size() < kEventPage) break;
  }
  changes.event_id = event_id_;
  if (jobs_changed) HPTUNE_RETURN_IF_ERROR(ReloadJobsLocked());
  for (auto& [name, snapshot] : studies_) {
    const bool study_changed = changed_studies.contains(name);
    auto trials = changed_trials.find(name);
    const bool has_trials = trials != changed_trials.end();
    if (!study_changed && !has_trials && !jobs_changed) continue;
    auto next = std::make_shared<StudySnapshot>(*snapshot);
    SetJobLocked(*next);
    if (study_changed) {
      absl::StatusOr<StudyRecord> study = store_.GetStudy(name);
      if (absl::IsNotFound(study.status())) {
        snapshot = nullptr;  // Deleted: erased below.
        continue;
      }
      HPTUNE_RETURN_IF_ERROR(study.status());
      if (study->create_time != next->study.create_time) {
        snapshot = nullptr;  // Deleted and created again: load afresh.
        continue;
      }
      next->study = *std::move(study);
    }
    if (has_trials && trials->second.size() > kReloadAbove) {
      HPTUNE_ASSIGN_OR_RETURN(next->trials, Summaries(store_, name));
    } else if (has_trials) {
      for (int64_t number : trials->second) {
        absl::StatusOr<Trial> trial = store_.GetTrial(name, number);
        if (absl::IsNotFound(trial.status())) continue;
        HPTUNE_RETURN_IF_ERROR(trial.status());
        if (next->trials.size() < static_cast<size_t>(number)) {
          next->trials.resize(number);
        }
        next->trials[number - 1] = Summary(*std::move(trial));
      }
      // A gap (a trial not yet read) would be a null: drop trailing ones.
      while (!next->trials.empty() && next->trials.back() == nullptr) {
        next->trials.pop_back();
      }
    }
    snapshot = std::move(next);
  }
  std::erase_if(studies_, [](const auto& entry) { return !entry.second; });
  return changes;
}

absl::StatusOr<std::shared_ptr<const StudySnapshot>> StudyCache::Get(
    std::string_view study) {
  MutexLock lock(&mu_);
  auto it = studies_.find(study);
  if (it != studies_.end()) return it->second;
  return LoadLocked(study);
}

absl::StatusOr<std::vector<std::shared_ptr<const StudySnapshot>>>
StudyCache::All() {
  MutexLock lock(&mu_);
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> records,
                          store_.ListStudies());
  std::vector<std::shared_ptr<const StudySnapshot>> all;
  for (const StudyRecord& record : records) {
    auto it = studies_.find(record.name);
    if (it != studies_.end() &&
        it->second->study.create_time == record.create_time) {
      all.push_back(it->second);
      continue;
    }
    absl::StatusOr<std::shared_ptr<const StudySnapshot>> loaded =
        LoadLocked(record.name);
    if (absl::IsNotFound(loaded.status())) continue;  // Deleted meanwhile.
    HPTUNE_RETURN_IF_ERROR(loaded.status());
    all.push_back(*std::move(loaded));
  }
  return all;
}

}  // namespace hptune::dashboard
