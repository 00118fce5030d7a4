#include "hptune/read/cached_study_answers.h"

#include <utility>

#include "hptune/core/status.h"

namespace hptune::read {

absl::StatusOr<std::unique_ptr<CachedStudyAnswers>> CachedStudyAnswers::Create(
    store::Store& store, std::unique_ptr<StudyAnswers> inner) {
  HPTUNE_ASSIGN_OR_RETURN(int64_t last, LastEventId(store));
  return std::unique_ptr<CachedStudyAnswers>(
      new CachedStudyAnswers(std::move(inner), StudyChanges(store, last)));
}

absl::Status CachedStudyAnswers::CatchUpLocked() {
  HPTUNE_ASSIGN_OR_RETURN(std::set<std::string> changed, changes_.Read());
  for (const std::string& study : changed) {
    entries_.erase(study);
    ++versions_[study];
  }
  return absl::OkStatus();
}

template <typename T, typename Compute>
absl::StatusOr<T> CachedStudyAnswers::Answer(std::string_view study,
                                             std::optional<T> Entry::*slot,
                                             Compute compute) {
  uint64_t version = 0;
  {
    MutexLock lock(&mu_);
    // Before the computation, so that a change it misses is read later.
    HPTUNE_RETURN_IF_ERROR(CatchUpLocked());
    auto known = versions_.find(study);
    version = known == versions_.end() ? 0 : known->second;
    auto it = entries_.find(study);
    if (it != entries_.end() && it->second.version == version &&
        (it->second.*slot).has_value()) {
      return *(it->second.*slot);
    }
  }
  HPTUNE_ASSIGN_OR_RETURN(T answer, compute());
  MutexLock lock(&mu_);
  auto known = versions_.find(study);
  if ((known == versions_.end() ? 0 : known->second) != version) return answer;
  auto it = entries_.find(study);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(study), Entry{.version = version}).first;
  }
  it->second.*slot = answer;
  return answer;
}

absl::StatusOr<StudyRecord> CachedStudyAnswers::Study(std::string_view study) {
  return inner_->Study(study);
}

absl::StatusOr<std::optional<Trial>> CachedStudyAnswers::BestTrial(
    std::string_view study) {
  return Answer(study, &Entry::best, [&] { return inner_->BestTrial(study); });
}

absl::StatusOr<std::vector<Trial>> CachedStudyAnswers::OptimalTrials(
    std::string_view study) {
  return Answer(study, &Entry::optimal,
                [&] { return inner_->OptimalTrials(study); });
}

absl::StatusOr<algorithms::ImportanceReport> CachedStudyAnswers::Importance(
    std::string_view study) {
  return Answer(study, &Entry::importance,
                [&] { return inner_->Importance(study); });
}

absl::StatusOr<std::optional<StoppingSavings>> CachedStudyAnswers::Savings(
    std::string_view study) {
  return Answer(study, &Entry::savings, [&] { return inner_->Savings(study); });
}

}  // namespace hptune::read
