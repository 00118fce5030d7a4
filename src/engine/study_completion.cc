// When a study completes: its budget is spent or its finite search space
// covered, and no trial is pending (nor a paused one waiting to resume).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "src/engine/resumption.h"
#include "src/engine/space_exhaustion.h"
#include "src/engine/study_locks.h"

namespace hptune::engine {

void TuningEngine::CompleteStudyIfDoneAfterTrialEnded(
    const StudyRecord& study) {
  StudyLock lock(*study_locks_, study.name);
  // Statuses, not summaries: most studies are decided by their counts, and
  // decoding every trial's parameters after each completion cost a fifth
  // of a busy server's CPU (benchmarks/RESULTS.md).
  auto statuses = store_.ListTrialStatuses(study.name);
  if (!statuses.ok()) return;
  auto trials = static_cast<int64_t>(statuses->trials.size());
  const auto pending = static_cast<int64_t>(std::count_if(
      statuses->trials.begin(), statuses->trials.end(),
      [](const store::TrialStatus& t) { return !IsTerminal(t.state); }));
  if (pending == 0) {
    // A study that resumes paused trials is not done while one deserves it,
    // and its continuations do not count against the budget.
    auto resuming = ResumingPolicy(stopping_rules_, study.spec);
    if (!resuming.ok()) return;
    if (*resuming != nullptr) {
      auto all = store_.ListTrials(study.name);
      if (!all.ok()) return;
      auto waiting = HasTrialToResume(**resuming, study.spec, *all);
      if (!waiting.ok() || *waiting) return;
      trials = TrialsAgainstBudget(*all);
    }
  }
  const SearchSpace& space = study.spec.search_space;
  auto space_exhausted = [&] {
    if (!MayBeExhausted(space, trials)) return false;
    auto summaries = store_.ListTrialSummaries(study.name);
    if (!summaries.ok()) return false;
    std::vector<const ParameterAssignment*> tried;
    for (const Trial& t : *summaries) tried.push_back(&t.parameters);
    return SpaceExhausted(space, tried);
  };
  // The trial's end is already committed. Completing the study is
  // bookkeeping that the next SuggestTrials derives again, so a failure here
  // must not turn this call into an error (a retry would then fail on the
  // ended trial).
  CompleteStudyIfDone(lock, study, trials, pending, space_exhausted)
      .status()
      .IgnoreError();
}

absl::StatusOr<bool> TuningEngine::CompleteStudyIfDone(
    const StudyLock& lock, const StudyRecord& study, int64_t trials,
    int64_t pending, absl::FunctionRef<bool()> space_exhausted) {
  HPTUNE_CHECK(lock.study() == study.name,
               "CompleteStudyIfDone: another study's lock is held");
  if (pending > 0) return false;
  if (study.state == StudyState::kCompleted) return true;
  std::string reason;
  if (trials >= study.TrialBudget()) {
    reason = absl::StrCat(study.DescribeBudget(), " reached");
  } else if (space_exhausted()) {
    reason =
        absl::StrCat("the search space is exhausted after ", trials, " trials");
  } else {
    return false;
  }
  HPTUNE_RETURN_IF_ERROR(
      store_.SetStudyState(study.name, StudyState::kCompleted, reason));
  return true;
}

}  // namespace hptune::engine
