// What the dashboard shows of each study, kept in memory and brought up to
// date from the store's event log, so a page of a 100,000-trial study reads
// the database once, not at every request. Used by DashboardServer.
//
// Trials are held without their intermediate measurements (those are read
// per request: curves, the trial page). A snapshot is immutable and shared;
// an update builds a new one that shares the unchanged trials.
// Thread-safe: every method may be called from any thread.
#ifndef HPTUNE_SRC_DASHBOARD_STUDY_CACHE_H_
#define HPTUNE_SRC_DASHBOARD_STUDY_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/mutex.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::dashboard {

struct StudySnapshot {
  StudyRecord study;
  std::optional<JobRecord> job;  // The job whose study this is, if any.
  std::vector<std::shared_ptr<const Trial>> trials;  // trials[i]: number i+1.
};

// What the event log said since the previous Refresh.
struct Changes {
  int64_t event_id = 0;                              // The last event read.
  std::set<std::string> studies;                     // Named by an event.
  std::set<std::pair<std::string, int64_t>> trials;  // (study, number).
  bool empty() const { return studies.empty(); }
};

class StudyCache {
 public:
  // Starts reading the event log after its present end.
  static absl::StatusOr<std::unique_ptr<StudyCache>> Create(
      store::Store& store);

  // Reads the events since the last call and updates the studies loaded.
  absl::StatusOr<Changes> Refresh();
  // The study, loaded on first use. NotFound naming it.
  absl::StatusOr<std::shared_ptr<const StudySnapshot>> Get(
      std::string_view study);
  // Every study, in creation order.
  absl::StatusOr<std::vector<std::shared_ptr<const StudySnapshot>>> All();

 private:
  StudyCache(store::Store& store, int64_t event_id)
      : store_(store), event_id_(event_id) {}
  absl::StatusOr<std::shared_ptr<const StudySnapshot>> LoadLocked(
      std::string_view study) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReloadJobsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<JobRecord> JobOfLocked(const std::string& study) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets the snapshot's job from the jobs loaded.
  void SetJobLocked(StudySnapshot& snapshot) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  store::Store& store_;
  // Held across the store reads of an update, so that two updates never
  // interleave.
  Mutex mu_;
  int64_t event_id_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<const StudySnapshot>, std::less<>>
      studies_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, JobRecord> jobs_by_study_ ABSL_GUARDED_BY(mu_);
  bool jobs_loaded_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_STUDY_CACHE_H_
