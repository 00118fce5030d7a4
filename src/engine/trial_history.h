// TrialHistory: a study's trial summaries (Store::ListTrialSummaries), kept
// in memory between suggestions. Internal to the engine
// (TuningEngine::SuggestTrials); thread-safe.
//
// Each suggestion needs every trial of its study, and decoding them all from
// the store (their parameters are JSON) cost a busy server a fifth of its
// CPU (benchmarks/RESULTS.md). A trial that has ended never changes again in
// what a designer reads (parameters, state, final measurement, reason), so
// the ended ones are kept: each call reads the study's trial statuses (no
// parameters), keeps the ended trials it has with the same end time, and
// reads each other trial's summary alone. Pending trials change (a start
// time, an attempt) and are always read. A study deleted and created again
// under the same name has another create time, and is read afresh.
#ifndef HPTUNE_SRC_ENGINE_TRIAL_HISTORY_H_
#define HPTUNE_SRC_ENGINE_TRIAL_HISTORY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::engine {

class TrialHistory {
 public:
  // Above `max_trials` kept trials the whole history is dropped (and read
  // again by later calls), which bounds its memory.
  TrialHistory(store::Store& store, size_t max_trials);

  // What store.ListTrialSummaries(study) gives now, an ended trial as it
  // was when it ended. Calls for different studies run at once; those for
  // one study take turns. NotFound for an unknown study.
  absl::StatusOr<std::vector<Trial>> Summaries(std::string_view study);

  // Drops what is kept of `study` (it was deleted).
  void Forget(std::string_view study);

 private:
  struct StudyTrials {
    Mutex mutex;
    Timestamp create_time ABSL_GUARDED_BY(mutex){};
    std::map<int64_t, Trial> ended ABSL_GUARDED_BY(mutex);  // By number.
  };

  StudyTrials& TrialsOf(std::string_view study);
  // The trials of `statuses`, from `kept` where it has them as they are.
  absl::StatusOr<std::vector<Trial>> Read(std::string_view study,
                                          const store::TrialStatuses& statuses,
                                          StudyTrials& kept)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(kept.mutex);
  // Keeps the ended ones of `trials` while fewer than max_trials_ are kept
  // in all; otherwise drops what `kept` has.
  void Keep(StudyTrials& kept, const std::vector<Trial>& trials)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(kept.mutex);
  void Drop(StudyTrials& kept) ABSL_EXCLUSIVE_LOCKS_REQUIRED(kept.mutex);

  store::Store& store_;
  const size_t max_trials_;
  Mutex mutex_;
  // Entries are never erased while the engine lives (Forget empties one),
  // so a reference to one stays valid outside mutex_.
  std::map<std::string, StudyTrials, std::less<>> studies_
      ABSL_GUARDED_BY(mutex_);
  std::atomic<size_t> kept_trials_ = 0;
};

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_TRIAL_HISTORY_H_
