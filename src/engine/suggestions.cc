// TuningEngine's suggestions: handing a client its trials (its unfinished
// ones, the queued ones, paused ones to resume, then new points from the
// study's designer) and trials a user adds (CreateTrial), serialised per
// study.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/inferred_branches.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "src/engine/background_work.h"
#include "src/engine/curve_cache.h"
#include "src/engine/engine_common.h"
#include "src/engine/leases.h"
#include "src/engine/resumption.h"
#include "src/engine/space_exhaustion.h"
#include "src/engine/study_locks.h"
#include "src/engine/trial_history.h"

namespace hptune::engine {
namespace {

bool IsPending(const Trial& t) { return !IsTerminal(t.state); }

int PendingCount(const std::vector<Trial>& trials) {
  return static_cast<int>(
      std::count_if(trials.begin(), trials.end(), IsPending));
}

// `trials` with the learning curve of the study's metric, as intermediate
// measurements, of each of the latest `wanted` SUCCEEDED trials not stopped
// early (Designer::CurvesWanted), from the curves the stopping rules keep.
absl::StatusOr<std::vector<Trial>> WithCurves(CurveCache& curves,
                                              std::string_view study,
                                              std::vector<Trial> trials,
                                              int wanted) {
  std::map<int64_t, Trial*> chosen;
  for (auto t = trials.rbegin(); t != trials.rend(); ++t) {
    if (static_cast<int>(chosen.size()) == wanted) break;
    if (t->state == TrialState::kSucceeded && !t->stopped_early) {
      chosen[t->number] = &*t;
    }
  }
  HPTUNE_RETURN_IF_ERROR(curves.WithCurves(
      study, {},
      [&](const StudySpec& spec,
          std::span<const algorithms::TrialCurve> read) -> absl::Status {
        for (const algorithms::TrialCurve& c : read) {
          auto found = chosen.find(c.curve->trial());
          if (found == chosen.end()) continue;
          std::vector<Measurement>& curve = found->second->measurements;
          curve.clear();
          for (const algorithms::LearningCurve::Point& p : c.curve->points()) {
            curve.push_back({.step = p.step,
                             .time = p.time,
                             .metrics = {{spec.metric_tag(), p.value}}});
          }
        }
        return absl::OkStatus();
      }));
  return trials;
}

// What a designer reads of a define-by-run study whose trials show
// branches: the tree they show (algorithms::InferBranches), and the trials
// without the parameters inactive in it.
struct BranchedStudy {
  StudySpec spec;
  std::vector<Trial> completed;
  std::vector<Trial> pending;
};
std::optional<BranchedStudy> Branched(const StudySpec& spec,
                                      const std::vector<Trial>& completed,
                                      const std::vector<Trial>& pending) {
  std::optional<SearchSpace> tree =
      algorithms::InferBranches(spec.search_space, completed);
  if (!tree) return std::nullopt;
  BranchedStudy branched{
      .spec = spec, .completed = completed, .pending = pending};
  branched.spec.search_space = *std::move(tree);
  algorithms::KeepActiveParameters(branched.spec.search_space,
                                   branched.completed);
  algorithms::KeepActiveParameters(branched.spec.search_space,
                                   branched.pending);
  return branched;
}

}  // namespace

absl::StatusOr<SuggestResponse> TuningEngine::SuggestTrials(
    std::string_view study_name, int count, std::string_view client_id,
    int lease_seconds) {
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("suggestion count must be at least 1, got ", count));
  }
  if (lease_seconds < 0 || lease_seconds > kMaxLeaseSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("lease must be 0 to ", kMaxLeaseSeconds, " seconds, got ",
                     lease_seconds));
  }
  StudyLock lock(*study_locks_, study_name);
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  lease_seconds = study.spec.trial_lease_seconds.value_or(lease_seconds);
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          history_->Summaries(study_name));
  // Before counting pending trials: a lapsed lease frees its slot.
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study_name, trials, &lock));

  SuggestResponse response;
  response.lease_seconds = lease_seconds;
  auto room = [&] { return count - static_cast<int>(response.trials.size()); };
  HPTUNE_RETURN_IF_ERROR(HandOutWaitingTrials(
      study_name, client_id, count, lease_seconds, trials, response.trials));
  if (room() == 0) return response;
  if (study.state == StudyState::kCompleted) {
    response.study_completed =
        std::none_of(trials.begin(), trials.end(), IsPending);
    response.note = absl::StrCat("the study is completed: ", study.reason);
    return response;
  }

  const StudySpec& spec = study.spec;
  const auto budget_trials = static_cast<int>(TrialsAgainstBudget(trials));
  int parallel_left = spec.max_parallel_trials - PendingCount(trials);
  // Paused trials the rule promotes go before new ones (freeze-thaw).
  HPTUNE_ASSIGN_OR_RETURN(
      const int resumed,
      ResumePausedTrials(store_, stopping_rules_, study,
                         std::min(room(), parallel_left), client_id,
                         lease_seconds, clock_.Now(), trials, response.trials));
  parallel_left -= resumed;
  if (resumed > 0 && room() == 0) return response;
  std::vector<Trial> completed, pending;
  for (Trial& t : trials) {
    (IsPending(t) ? pending : completed).push_back(std::move(t));
  }
  int budget_left = study.TrialBudget() - budget_trials;
  int to_make = std::min({room(), budget_left, parallel_left});
  if (to_make < room()) {
    response.note =
        budget_left <= parallel_left
            ? absl::StrCat(study.DescribeBudget(), " reached")
            : absl::StrCat("maxParallelTrials (", spec.max_parallel_trials,
                           ") trials are pending");
  }
  std::vector<Trial> fresh;
  if (to_make > 0) {
    HPTUNE_ASSIGN_OR_RETURN(
        fresh, DesignTrials(study, completed, pending, to_make, client_id,
                            lease_seconds));
    if (static_cast<int>(fresh.size()) < to_make) {
      response.note = "the search space is exhausted";
    }
  }
  std::vector<const ParameterAssignment*> tried;
  for (const auto* group : {&completed, &pending, &fresh}) {
    for (const Trial& t : *group) tried.push_back(&t.parameters);
  }
  HPTUNE_ASSIGN_OR_RETURN(
      response.study_completed,
      CompleteStudyIfDone(
          lock, study, static_cast<int64_t>(budget_trials + fresh.size()),
          static_cast<int64_t>(pending.size() + fresh.size()),
          [&] { return SpaceExhausted(spec.search_space, tried); }));
  for (Trial& t : fresh) response.trials.push_back(std::move(t));
  return response;
}

absl::Status TuningEngine::HandOutWaitingTrials(std::string_view study_name,
                                                std::string_view client_id,
                                                int count, int lease_seconds,
                                                std::vector<Trial>& trials,
                                                std::vector<Trial>& out) {
  auto room = [&] { return count - static_cast<int>(out.size()); };
  const Timestamp now = clock_.Now();
  // A client asking again gets its unfinished trials back first, their
  // leases renewed.
  for (Trial& t : trials) {
    if (room() == 0 || t.client_id != client_id ||
        t.state != TrialState::kActive) {
      continue;
    }
    if (lease_seconds > 0) {
      HPTUNE_ASSIGN_OR_RETURN(
          t, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
            RenewLease(u, lease_seconds, now);
            return absl::OkStatus();
          }));
      t.measurements.clear();  // Summaries only, like the rest of `trials`.
    }
    out.push_back(t);
  }
  // Then trials queued by users (CreateTrial in REQUESTED), oldest first.
  for (Trial& t : trials) {
    if (room() == 0 || t.state != TrialState::kRequested) continue;
    HPTUNE_ASSIGN_OR_RETURN(
        t, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
          u.client_id = std::string(client_id);
          RenewLease(u, lease_seconds, now);
          return u.TransitionTo(TrialState::kActive, now);
        }));
    t.measurements.clear();  // Summaries only, like the rest of `trials`.
    out.push_back(t);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Trial>> TuningEngine::DesignTrials(
    const StudyRecord& study, const std::vector<Trial>& completed,
    const std::vector<Trial>& pending, int count, std::string_view client_id,
    int lease_seconds) {
  const std::string& study_name = study.name;
  // The designer plans for every trial of the study, the resumed ones
  // included, which count towards the GP's seeding. Its suggestions leave
  // out a branch's parameters where the branch is not taken; the study's
  // space lets a trial lack them (they joined later).
  const std::optional<BranchedStudy> branched =
      Branched(study.spec, completed, pending);
  const StudySpec& spec = branched ? branched->spec : study.spec;
  HPTUNE_ASSIGN_OR_RETURN(
      auto designer,
      designers_.Create(spec, spec, study.TrialBudget(), study.seed));
  HPTUNE_ASSIGN_OR_RETURN(std::string state,
                          store_.GetDesignerState(study_name));
  HPTUNE_RETURN_IF_ERROR(designer->RestoreState(state));
  if (background_ != nullptr) {
    designer->DeferWork();
    // The newest fit since the last call (DeleteStudy forgets a study's).
    if (std::optional<std::string> result =
            background_->TakeResult(study_name)) {
      HPTUNE_RETURN_IF_ERROR(designer->AcceptDeferredResult(*result));
    }
  }
  const std::vector<Trial>& ended = branched ? branched->completed : completed;
  const int curves_wanted = designer->CurvesWanted();
  std::vector<Trial> with_curves;
  if (curves_wanted > 0) {
    HPTUNE_ASSIGN_OR_RETURN(
        with_curves, WithCurves(*curves_, study_name, ended, curves_wanted));
  }
  HPTUNE_RETURN_IF_ERROR(
      designer->Update(curves_wanted > 0 ? with_curves : ended,
                       branched ? branched->pending : pending));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<algorithms::Suggestion> suggestions,
                          designer->Suggest(count));
  if (background_ != nullptr) {
    if (auto work = designer->TakeDeferredWork()) {
      background_->Submit(study_name, *std::move(work));
    }
  }
  std::vector<Trial> fresh;
  for (auto& s : suggestions) {
    HPTUNE_RETURN_IF_ERROR(
        study.spec.search_space.CheckAssignment(s.parameters));
    Trial t;
    t.parameters = std::move(s.parameters);
    t.origin = std::move(s.origin);
    t.client_id = std::string(client_id);
    t.state = TrialState::kActive;
    t.start_time = clock_.Now();
    RenewLease(t, lease_seconds, *t.start_time);
    fresh.push_back(std::move(t));
  }
  if (fresh.empty()) return fresh;
  return store_.AddTrials(study_name, std::move(fresh), designer->SaveState());
}

absl::StatusOr<Trial> TuningEngine::CreateTrial(std::string_view study_name,
                                                Trial trial) {
  // Serialised with the study's suggestions: a trial added between a
  // suggestion's read of the history and its write would break the budget
  // and the no-repeat rule.
  StudyLock lock(*study_locks_, study_name);
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_RETURN_IF_ERROR(
      study.spec.search_space.CheckAssignment(trial.parameters));
  if (!IsTerminal(trial.state)) {
    if (study.state == StudyState::kCompleted) {
      return absl::FailedPreconditionError(
          absl::StrCat("study ", Quoted(study_name), " is completed (",
                       study.reason, "); it runs no more trials"));
    }
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrialSummaries(study_name));
    if (TrialsAgainstBudget(trials) >= study.TrialBudget()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "study ", Quoted(study_name), ": ", study.DescribeBudget(),
          " reached; a trial to run cannot be added"));
    }
  }
  if (trial.final_measurement) {
    HPTUNE_RETURN_IF_ERROR(ValidateMeasurement(*trial.final_measurement));
  }
  if (trial.origin.empty()) trial.origin = "user";
  Timestamp now = clock_.Now();
  if (trial.state == TrialState::kActive && !trial.start_time) {
    trial.start_time = now;
  }
  if (trial.lease_seconds > 0) RenewLease(trial, trial.lease_seconds, now);
  if (IsTerminal(trial.state) && !trial.end_time) trial.end_time = now;
  HPTUNE_ASSIGN_OR_RETURN(
      std::vector<Trial> stored,
      store_.AddTrials(study_name, {std::move(trial)}, std::nullopt));
  return stored.front();
}

}  // namespace hptune::engine
