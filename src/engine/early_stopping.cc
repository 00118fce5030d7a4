// TuningEngine's early-stopping checks: a rule by name or a policy judges
// the study's running trials (curve rules on the cached learning curves).
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "src/engine/curve_cache.h"

namespace hptune::engine {
namespace {

// Keeps the decisions about the trials of `only` (all when empty).
std::vector<algorithms::StoppingDecision> OnlyThose(
    std::vector<algorithms::StoppingDecision> decisions,
    const std::set<int64_t>& only) {
  if (!only.empty()) {
    std::erase_if(decisions, [&](const algorithms::StoppingDecision& d) {
      return !only.contains(d.trial);
    });
  }
  return decisions;
}

}  // namespace

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 std::string_view rule,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStoppingBy(study_name, rule, only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStoppingBy(study_name, std::nullopt, only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStoppingBy(std::string_view study_name,
                                   std::optional<std::string_view> rule,
                                   const std::set<int64_t>& only) {
  absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>> policy;
  algorithms::CurveStoppingPolicy* curve_policy = nullptr;
  std::vector<algorithms::StoppingDecision> decisions;
  HPTUNE_RETURN_IF_ERROR(curves_->WithCurves(
      study_name, only,
      [&](const StudySpec& spec) {
        policy = stopping_rules_.CreateForStudy(
            spec, spec, rule.value_or(spec.EffectiveStoppingRule()));
        if (policy.ok()) {
          curve_policy =
              dynamic_cast<algorithms::CurveStoppingPolicy*>(policy->get());
        }
        return curve_policy != nullptr;
      },
      [&](const StudySpec& spec,
          std::span<const algorithms::TrialCurve> trials) -> absl::Status {
        HPTUNE_ASSIGN_OR_RETURN(decisions,
                                curve_policy->DecideOnCurves(spec, trials));
        return absl::OkStatus();
      }));
  HPTUNE_RETURN_IF_ERROR(policy.status());
  if (curve_policy != nullptr) return OnlyThose(std::move(decisions), only);
  return CheckEarlyStopping(study_name, **policy, only);
}

absl::Status TuningEngine::CheckStoppingRule(const StudySpec& spec) const {
  const std::string& rule = spec.EffectiveStoppingRule();
  if (!spec.enable_early_stopping) return absl::OkStatus();
  if (!stopping_rules_.Contains(rule)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "study.earlyStoppingRule: no early-stopping rule is registered as \"",
        rule,
        "\"; registered: ", absl::StrJoin(stopping_rules_.Names(), ", ")));
  }
  // The rule's factory alone knows its settings.
  const absl::Status settings =
      stopping_rules_.CheckSettings(rule, spec.stopping_settings);
  if (settings.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("study.", std::string(spec.stopping_settings.Field()), ".",
                   settings.message()));
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingPolicy& policy,
                                 const std::set<int64_t>& only) {
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
          HPTUNE_ASSIGN_OR_RETURN(decisions,
                                  curve_policy->DecideOnCurves(spec, trials));
          judged = true;
          return absl::OkStatus();
        }));
  }
  if (!judged) {
    // Another rule (ASHA ranks every running trial against the others, the
    // dominance rule judges a study of several objectives) reads them all.
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrials(study_name));
    trials = WithoutResumed(std::move(trials));
    HPTUNE_ASSIGN_OR_RETURN(decisions, policy.Decide(study.spec, trials));
  }
  return OnlyThose(std::move(decisions), only);
}

}  // namespace hptune::engine
