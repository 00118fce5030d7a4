// SnapshotAnswers: the read side's answers (read::StudyAnswers) computed
// from the dashboard's own snapshot of a study (change_stream.h) instead of
// reading every trial from the store again. A 100,000-trial study's first
// page asks for its best trial and savings; read from the store, each was
// another read of every trial (about 0.5 s each on the project's machine),
// after the snapshot's own. The same core and algorithms functions as
// read::StoreStudyAnswers give the answers, over the same trials; the
// curves that savings read (trials with no final measurement) still come
// from the store. DashboardServer wraps it in read::CachedStudyAnswers.
//
// Thread-safe: ChangeStream and the Store are.
#ifndef HPTUNE_SRC_DASHBOARD_SNAPSHOT_ANSWERS_H_
#define HPTUNE_SRC_DASHBOARD_SNAPSHOT_ANSWERS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/read/study_answers.h"
#include "hptune/store/store.h"
#include "src/dashboard/change_stream.h"

namespace hptune::dashboard {

class SnapshotAnswers final : public read::StudyAnswers {
 public:
  // `store` and `changes` (whose snapshots are read) must outlive this.
  SnapshotAnswers(store::Store& store, ChangeStream& changes)
      : store_(store), changes_(changes), from_store_(store) {}

  absl::StatusOr<StudyRecord> Study(std::string_view study) override;
  absl::StatusOr<std::optional<Trial>> BestTrial(
      std::string_view study) override;
  absl::StatusOr<std::vector<Trial>> OptimalTrials(
      std::string_view study) override;
  absl::StatusOr<algorithms::ImportanceReport> Importance(
      std::string_view study) override;
  absl::StatusOr<std::optional<StoppingSavings>> Savings(
      std::string_view study) override;

 private:
  store::Store& store_;
  ChangeStream& changes_;
  read::StoreStudyAnswers from_store_;  // Study(): the job's state, a read.
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_SNAPSHOT_ANSWERS_H_
