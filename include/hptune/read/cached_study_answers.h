// CachedStudyAnswers: StudyAnswers (study_answers.h) that keeps each
// study's answers until the store's event log names the study again (a
// new trial, a trial's new state, a measurement, the study's or its job's
// change), so that asking again about a study that did not change costs
// one read of the log, not PED-ANOVA over every trial again. The server's
// StudyService and the dashboard ask through one.
//
// Study() is passed through: the state shown follows the job's, a cheap
// read. Errors are not kept. Thread-safe: calls may come from any thread;
// two callers may compute the same answer at once, and the one computed
// after the study's latest change is kept.
#ifndef HPTUNE_READ_CACHED_STUDY_ANSWERS_H_
#define HPTUNE_READ_CACHED_STUDY_ANSWERS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/read/study_answers.h"
#include "hptune/read/study_changes.h"
#include "hptune/store/store.h"

namespace hptune::read {

class CachedStudyAnswers final : public StudyAnswers {
 public:
  // Answers from `inner`, kept until `store`'s event log names their study
  // after the log's present end; `store` (the one `inner` reads) must
  // outlive this.
  static absl::StatusOr<std::unique_ptr<CachedStudyAnswers>> Create(
      store::Store& store, std::unique_ptr<StudyAnswers> inner);

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
  // One study's answers so far, as of its `version`.
  struct Entry {
    uint64_t version = 0;
    std::optional<std::optional<Trial>> best;
    std::optional<std::vector<Trial>> optimal;
    std::optional<algorithms::ImportanceReport> importance;
    std::optional<std::optional<StoppingSavings>> savings;
  };

  CachedStudyAnswers(std::unique_ptr<StudyAnswers> inner, StudyChanges changes)
      : inner_(std::move(inner)), changes_(std::move(changes)) {}

  // The kept answer in `slot` of `study`'s entry, else `compute`'s, kept
  // unless the study changed meanwhile.
  template <typename T, typename Compute>
  absl::StatusOr<T> Answer(std::string_view study,
                           std::optional<T> Entry::*slot, Compute compute);
  // Reads the log since the last look and forgets what it names.
  absl::Status CatchUpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<StudyAnswers> inner_;
  Mutex mu_;
  StudyChanges changes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Entry, std::less<>> entries_ ABSL_GUARDED_BY(mu_);
  // Each study's count of changes seen: an answer computed before the
  // latest is not kept.
  std::map<std::string, uint64_t, std::less<>> versions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::read

#endif  // HPTUNE_READ_CACHED_STUDY_ANSWERS_H_
