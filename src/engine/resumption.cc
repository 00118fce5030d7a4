#include "src/engine/resumption.h"

#include <optional>
#include <utility>

#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "src/engine/leases.h"

namespace hptune::engine {

absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>> ResumingPolicy(
    const algorithms::StoppingRuleRegistry& rules, const StudySpec& spec) {
  std::unique_ptr<algorithms::StoppingPolicy> none;
  // A study of several objectives is judged by the dominance rule, which
  // does not pause.
  if (!spec.enable_early_stopping || spec.Objectives().size() > 1) return none;
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<algorithms::StoppingPolicy> policy,
      rules.Create(spec.EffectiveStoppingRule(), spec.stopping_settings));
  if (!policy->ResumesStoppedTrials()) return none;
  return policy;
}

absl::StatusOr<bool> HasTrialToResume(algorithms::StoppingPolicy& policy,
                                      const StudySpec& spec,
                                      const std::vector<Trial>& trials) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<int64_t> number,
                          policy.TrialToResume(spec, WithoutResumed(trials)));
  return number.has_value();
}

absl::StatusOr<std::vector<Trial>> ResumeStoppedTrials(
    store::Store& store, algorithms::StoppingPolicy& policy,
    const StudyRecord& study, int count, std::string_view client_id,
    int lease_seconds, Timestamp now) {
  std::vector<Trial> resumed;
  if (count < 1) return resumed;
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store.ListTrials(study.name));
  trials = WithoutResumed(std::move(trials));
  while (static_cast<int>(resumed.size()) < count) {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<int64_t> number,
                            policy.TrialToResume(study.spec, trials));
    if (!number) break;
    auto stopped =
        std::find_if(trials.begin(), trials.end(),
                     [&](const Trial& t) { return t.number == *number; });
    if (stopped == trials.end()) break;  // A policy's mistake: not a trial.
    Trial continuation;
    continuation.parameters = stopped->parameters;
    continuation.measurements = stopped->measurements;
    continuation.origin = ResumeOrigin(*number);
    continuation.client_id = std::string(client_id);
    continuation.state = TrialState::kActive;
    continuation.start_time = now;
    RenewLease(continuation, lease_seconds, now);
    HPTUNE_ASSIGN_OR_RETURN(
        std::vector<Trial> stored,
        store.AddTrials(study.name, {std::move(continuation)}, std::nullopt));
    trials.erase(stopped);
    trials.push_back(stored.front());
    resumed.push_back(std::move(stored.front()));
  }
  return resumed;
}

absl::StatusOr<int> ResumePausedTrials(
    store::Store& store, const algorithms::StoppingRuleRegistry& rules,
    const StudyRecord& study, int count, std::string_view client_id,
    int lease_seconds, Timestamp now, std::vector<Trial>& trials,
    std::vector<Trial>& out) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<algorithms::StoppingPolicy> policy,
                          ResumingPolicy(rules, study.spec));
  if (policy == nullptr) return 0;
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> resumed,
                          ResumeStoppedTrials(store, *policy, study, count,
                                              client_id, lease_seconds, now));
  for (Trial& t : resumed) {
    t.measurements.clear();  // Summaries only, like the rest of `trials`.
    trials.push_back(t);
    out.push_back(std::move(t));
  }
  // Those resumed before this call too: the designer reads each training
  // once, as it stands now.
  trials = WithoutSuperseded(std::move(trials));
  return static_cast<int>(resumed.size());
}

}  // namespace hptune::engine
