#include "hptune/core/savings.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/trial_resume.h"

namespace hptune {
namespace {

template <typename T>
std::optional<double> Median(std::vector<T> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return static_cast<double>(values[mid]);
  return (static_cast<double>(values[mid - 1]) + values[mid]) / 2;
}

// Its own measured pace: (end - start) / the steps it ran. nullopt without
// both times or a step run.
std::optional<double> SecondsPerStep(const Trial& trial, int64_t last_step) {
  const int64_t ran_steps = last_step - ResumedAtStep(trial);
  if (!trial.start_time || !trial.end_time || ran_steps <= 0) {
    return std::nullopt;
  }
  const std::chrono::duration<double> ran = *trial.end_time - *trial.start_time;
  return std::max(0.0, ran.count()) / static_cast<double>(ran_steps);
}

// `trials` without those a continuation among them resumes: a resumed
// trial's steps and stop are its continuation's now.
std::vector<const Trial*> Unresumed(const std::vector<const Trial*>& trials) {
  std::vector<int64_t> resumed;
  for (const Trial* t : trials) {
    if (std::optional<int64_t> n = ResumedTrial(*t)) resumed.push_back(*n);
  }
  std::vector<const Trial*> kept;
  for (const Trial* t : trials) {
    if (std::find(resumed.begin(), resumed.end(), t->number) == resumed.end()) {
      kept.push_back(t);
    }
  }
  return kept;
}

bool RanToEnd(const Trial& t) {
  return t.state == TrialState::kSucceeded && !t.stopped_early;
}
bool Stopped(const Trial& t) {
  return t.state == TrialState::kSucceeded && t.stopped_early;
}

// "1650", "27.5": whole numbers without a fraction.
std::string Amount(double value) {
  return absl::StrFormat("%.*f", value == static_cast<int64_t>(value) ? 0 : 1,
                         value);
}

// "95 replica-seconds", "2.5 replica-hours".
std::string Duration(double seconds, const char* unit) {
  if (seconds < 3600) return absl::StrFormat("%.0f %s-seconds", seconds, unit);
  return absl::StrFormat("%.1f %s-hours", seconds / 3600, unit);
}

}  // namespace

TrialFootprint FootprintOf(const JobSpec& job) {
  TrialFootprint footprint{.replicas = 0, .gpus = 0};
  for (const TaskPool* pool :
       {&job.master, &job.worker, &job.parameter_server, &job.evaluator}) {
    footprint.replicas += pool->count;
    footprint.gpus += pool->count * pool->accelerator.count;
  }
  return footprint;
}

StoppingSavings ComputeStoppingSavings(
    const std::vector<const Trial*>& all_trials,
    const std::optional<TrialFootprint>& footprint) {
  const std::vector<const Trial*> trials = Unresumed(all_trials);
  StoppingSavings s;
  std::vector<int64_t> full_lengths;
  std::vector<double> full_paces;
  for (const Trial* t : trials) {
    ++s.trials;
    const std::optional<int64_t> last = t->LastStep();
    if (last) s.steps_run += std::max<int64_t>(0, *last);
    if (Stopped(*t)) ++s.trials_stopped;
    if (!RanToEnd(*t) || !last) continue;
    full_lengths.push_back(*last);
    if (std::optional<double> pace = SecondsPerStep(*t, *last)) {
      full_paces.push_back(*pace);
    }
  }
  s.trials_run_to_end = static_cast<int64_t>(full_lengths.size());
  s.full_steps = Median(std::move(full_lengths));
  // Nothing stopped, nothing saved, whether or not a trial ran to its end.
  if (s.trials_stopped > 0 && !s.full_steps) return s;
  double steps = 0;
  for (const Trial* t : trials) {
    const std::optional<int64_t> last = t->LastStep();
    if (!Stopped(*t) || !last) continue;
    steps += std::max(0.0, *s.full_steps - std::max<int64_t>(0, *last));
  }
  s.steps_saved = steps;
  if (s.steps_run + steps > 0) {
    s.share_saved = steps / (static_cast<double>(s.steps_run) + steps);
  }
  // The pace of a full training, its start-up spread over all its steps:
  // a stopped trial's own pace is mostly start-up and would count it once
  // per step left unrun. So no stopped trial saves more than a full trial
  // costs. Unknown when no trial run to its end has both times.
  const std::optional<double> pace = Median(std::move(full_paces));
  if (!pace && steps > 0) return s;
  const double seconds = steps * pace.value_or(0);
  s.trial_seconds_saved = seconds;
  if (footprint) {
    s.replica_seconds_saved = seconds * footprint->replicas;
    if (footprint->gpus > 0) s.gpu_seconds_saved = seconds * footprint->gpus;
  }
  return s;
}

std::string SavingsText(const StoppingSavings& s) {
  std::string text =
      absl::StrCat(s.trials_stopped, " of ", s.trials, " trials stopped early");
  if (s.trials_stopped == 0) return text;
  if (!s.steps_saved) {
    return text +
           "; saving unknown: no trial ran to its end to tell a full "
           "trial's length";
  }
  absl::StrAppend(&text, "; saved about ", Amount(*s.steps_saved), " of ",
                  Amount(*s.steps_saved + s.steps_run), " steps");
  if (s.share_saved) {
    absl::StrAppend(&text, absl::StrFormat(" (%.0f%%)", *s.share_saved * 100));
  }
  if (s.replica_seconds_saved) {
    absl::StrAppend(&text, ", ", Duration(*s.replica_seconds_saved, "replica"));
  } else if (s.trial_seconds_saved) {
    absl::StrAppend(&text, ", ", Duration(*s.trial_seconds_saved, "trial"));
  }
  if (s.gpu_seconds_saved) {
    absl::StrAppend(&text, ", ", Duration(*s.gpu_seconds_saved, "GPU"));
  }
  return text + " (an estimate: a full trial's length is the median of " +
         absl::StrCat(s.trials_run_to_end) + " run to their end)";
}

std::optional<StoppingSavings> ShownStoppingSavings(
    const std::vector<const Trial*>& trials, bool early_stopping,
    const std::optional<TrialFootprint>& footprint) {
  const bool any_stopped =
      std::any_of(trials.begin(), trials.end(),
                  [](const Trial* t) { return t->stopped_early; });
  if (!any_stopped && !early_stopping) return std::nullopt;
  return ComputeStoppingSavings(trials, footprint);
}

std::vector<SavingsCount> SavingsCounts(const StoppingSavings& s) {
  return {{"trialsStopped", "trials_stopped", s.trials_stopped},
          {"trialsRunToEnd", "trials_run_to_end", s.trials_run_to_end},
          {"stepsRun", "steps_run", s.steps_run}};
}

std::vector<SavingsField> SavingsEstimates(const StoppingSavings& s) {
  return {
      {"fullTrialSteps", "full_trial_steps", s.full_steps},
      {"stepsSaved", "steps_saved", s.steps_saved},
      {"trialSecondsSaved", "trial_seconds_saved", s.trial_seconds_saved},
      {"replicaSecondsSaved", "replica_seconds_saved", s.replica_seconds_saved},
      {"gpuSecondsSaved", "gpu_seconds_saved", s.gpu_seconds_saved},
      {"shareSaved", "share_saved", s.share_saved}};
}

}  // namespace hptune
