// TuningEngine's early-stopping checks: a rule by name or a policy judges
// the study's running trials (curve rules on the cached learning curves).
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "src/engine/curve_cache.h"

namespace hptune::engine {

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 std::string_view rule,
                                 const std::set<int64_t>& only) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<algorithms::StoppingPolicy> policy,
                          stopping_rules_.Create(rule));
  return CheckEarlyStopping(study_name, *policy, only,
                            /*several_objectives_by_dominance=*/true);
}

absl::Status TuningEngine::CheckStoppingRule(const StudySpec& spec) const {
  const std::string& rule = spec.EffectiveStoppingRule();
  if (!spec.enable_early_stopping || stopping_rules_.Contains(rule)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "study.earlyStoppingRule: no early-stopping rule is registered as \"",
      rule, "\"; registered: ", absl::StrJoin(stopping_rules_.Names(), ", ")));
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 const std::set<int64_t>& only) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  return CheckEarlyStopping(study_name, study.spec.EffectiveStoppingRule(),
                            only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingRule rule,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStopping(study_name, algorithms::RuleName(rule), only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingPolicy& policy,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStopping(study_name, policy, only,
                            /*several_objectives_by_dominance=*/false);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingPolicy& policy,
                                 const std::set<int64_t>& only,
                                 bool several_objectives_by_dominance) {
  std::vector<algorithms::StoppingDecision> decisions;
  bool judged = false;
  if (auto* curve_policy =
          dynamic_cast<algorithms::CurveStoppingPolicy*>(&policy)) {
    // A curve rule judges each ACTIVE trial by its own curve against the
    // SUCCEEDED trials' curves alone, so the other trials can be left out,
    // and the curves kept between checks.
    HPTUNE_RETURN_IF_ERROR(curves_->WithCurves(
        study_name, only,
        [&](const StudySpec& spec,
            std::span<const algorithms::TrialCurve> trials) -> absl::Status {
          if (several_objectives_by_dominance && spec.Objectives().size() > 1) {
            return absl::OkStatus();
          }
          HPTUNE_ASSIGN_OR_RETURN(decisions,
                                  curve_policy->DecideOnCurves(spec, trials));
          judged = true;
          return absl::OkStatus();
        }));
  }
  if (!judged) {
    // Another rule (ASHA ranks every running trial against the others), or
    // the dominance rule for a study of several objectives
    // (CreateStoppingPolicy(spec, rule)), reads them all.
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrials(study_name));
    trials = WithoutResumed(std::move(trials));
    std::unique_ptr<algorithms::StoppingPolicy> dominance;
    algorithms::StoppingPolicy* judge = &policy;
    if (several_objectives_by_dominance && study.spec.Objectives().size() > 1) {
      dominance = algorithms::CreateStoppingPolicy(
          study.spec, algorithms::StoppingRule::kMedian);
      judge = dominance.get();
    }
    HPTUNE_ASSIGN_OR_RETURN(decisions, judge->Decide(study.spec, trials));
  }
  if (!only.empty()) {
    std::erase_if(decisions, [&](const algorithms::StoppingDecision& d) {
      return !only.contains(d.trial);
    });
  }
  return decisions;
}

}  // namespace hptune::engine
