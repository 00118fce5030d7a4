#include "hptune/algorithms/stopping_registry.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/convex_stopping_policy.h"
#include "algorithms/stopping/decay_curve_stopping_policy.h"
#include "algorithms/stopping/dominance_stopping_policy.h"
#include "algorithms/stopping/envelope_stopping_policy.h"
#include "algorithms/stopping/median_stopping_policy.h"
#include "algorithms/stopping/settings_decoder.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

constexpr size_t kMaxNameLength = 100;

// Upcasts a factory's concrete policy.
template <typename T>
absl::StatusOr<std::unique_ptr<StoppingPolicy>> AsPolicy(
    absl::StatusOr<std::unique_ptr<T>> policy) {
  if (!policy.ok()) return policy.status();
  return std::unique_ptr<StoppingPolicy>(*std::move(policy));
}

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

// A factory of a rule that takes no settings: it refuses any.
StoppingRuleFactory WithoutSettings(PlainStoppingRuleFactory plain) {
  return [plain = std::move(plain)](const StoppingSettings& settings)
             -> absl::StatusOr<std::unique_ptr<StoppingPolicy>> {
    HPTUNE_RETURN_IF_ERROR(SettingsDecoder(settings).Finish());
    return plain();
  };
}

// A median rule's factory: its settings read by its own file.
StoppingRuleFactory MedianRule(MedianStoppingOptions::Reference reference) {
  return [reference](const StoppingSettings& settings)
             -> absl::StatusOr<std::unique_ptr<StoppingPolicy>> {
    HPTUNE_ASSIGN_OR_RETURN(MedianStoppingOptions options,
                            MedianOptionsFromSettings(reference, settings));
    return AsPolicy(MedianStoppingPolicy::Create(options));
  };
}

absl::StatusOr<std::unique_ptr<StoppingPolicy>> ConvexRule(
    const StoppingSettings& settings) {
  HPTUNE_ASSIGN_OR_RETURN(ConvexStoppingOptions options,
                          ConvexOptionsFromSettings(settings));
  return AsPolicy(ConvexStoppingPolicy::Create(options));
}

struct Builtin {
  const char* name;
  const char* description;
  StoppingRuleFactory factory;
};

std::vector<Builtin> Builtins() {
  using Reference = MedianStoppingOptions::Reference;
  return {
      {"median-at-step",
       "Optuna's median rule on values at the same step, the default",
       MedianRule(Reference::kValueAtStep)},
      {"median",
       "Vizier's median rule on running averages, as Vertex's "
       "medianAutomatedStoppingSpec",
       MedianRule(Reference::kRunningAverage)},
      {"asha", "asynchronous successive halving", WithoutSettings([] {
         return AsPolicy(AshaStoppingPolicy::Create(AshaOptions{}));
       })},
      {"asha-resume", "ASHA that resumes paused trials from their checkpoints",
       WithoutSettings([] {
         return AsPolicy(AshaStoppingPolicy::Create(AshaResumeOptions()));
       })},
      {"envelope", "learns from the study's own curves", WithoutSettings([] {
         return AsPolicy(
             EnvelopeStoppingPolicy::Create(EnvelopeStoppingOptions{}));
       })},
      {"decay-curve",
       "forecasts each curve's end, as Vertex's decayCurveStoppingSpec",
       WithoutSettings([] {
         return AsPolicy(DecayCurveStoppingPolicy::Create(DecayCurveOptions{}));
       })},
      {"convex",
       "bounds each curve by its slope, as Vertex's "
       "convexAutomatedStoppingSpec",
       ConvexRule},
  };
}

}  // namespace

StoppingRuleRegistry StoppingRuleRegistry::WithBuiltins() {
  StoppingRuleRegistry registry;
  registry.RegisterBuiltins().IgnoreError();  // An empty registry has room.
  return registry;
}

absl::Status StoppingRuleRegistry::RegisterBuiltins() {
  for (Builtin& rule : Builtins()) {
    HPTUNE_RETURN_IF_ERROR(
        Register(rule.name, rule.description, std::move(rule.factory)));
  }
  return absl::OkStatus();
}

absl::Status StoppingRuleRegistry::Register(std::string_view name,
                                            std::string_view description,
                                            StoppingRuleFactory factory) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("a stopping rule needs a name of 1 to ", kMaxNameLength,
                     " characters, got ", Quoted(name)));
  }
  if (!factory) {
    return absl::InvalidArgumentError(
        absl::StrCat("stopping rule ", Quoted(name), ": the factory is empty"));
  }
  Entry entry{.description = std::string(description),
              .factory = std::move(factory)};
  if (!rules_.emplace(std::string(name), std::move(entry)).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a stopping rule is already registered as ", Quoted(name)));
  }
  return absl::OkStatus();
}

absl::Status StoppingRuleRegistry::Register(std::string_view name,
                                            PlainStoppingRuleFactory factory) {
  if (!factory) return Register(name, "", StoppingRuleFactory());
  return Register(name, "", WithoutSettings(std::move(factory)));
}

bool StoppingRuleRegistry::Contains(std::string_view name) const {
  return rules_.find(name) != rules_.end();
}

std::vector<std::string> StoppingRuleRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : rules_) names.push_back(name);
  return names;
}

std::string StoppingRuleRegistry::Description(std::string_view name) const {
  auto it = rules_.find(name);
  return it == rules_.end() ? std::string() : it->second.description;
}

absl::StatusOr<std::unique_ptr<StoppingPolicy>> StoppingRuleRegistry::Create(
    std::string_view name, const StoppingSettings& settings) const {
  auto it = rules_.find(name);
  if (it == rules_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stopping rule ", Quoted(name),
                     " is not registered with this engine; registered: ",
                     rules_.empty() ? "none" : absl::StrJoin(Names(), ", ")));
  }
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> policy =
      it->second.factory(settings);
  if (!policy.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stopping rule ", Quoted(name), ": ", policy.status().message()));
  }
  if (*policy == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stopping rule ", Quoted(name), ": the factory made no policy"));
  }
  return policy;
}

absl::Status StoppingRuleRegistry::CheckSettings(
    std::string_view name, const StoppingSettings& settings) const {
  auto it = rules_.find(name);
  if (it == rules_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no stopping rule is registered as ", Quoted(name)));
  }
  return it->second.factory(settings).status();
}

absl::StatusOr<std::unique_ptr<StoppingPolicy>>
StoppingRuleRegistry::CreateForStudy(const Problem& problem,
                                     const EarlyStoppingSettings& settings,
                                     std::string_view rule) const {
  const bool own = rule == settings.EffectiveStoppingRule();
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<StoppingPolicy> policy,
      Create(rule, own ? settings.stopping_settings : StoppingSettings{}));
  if (problem.Objectives().size() <= 1) return policy;
  return AsPolicy(DominanceStoppingPolicy::Create(DominanceStoppingOptions{}));
}

}  // namespace hptune::algorithms
