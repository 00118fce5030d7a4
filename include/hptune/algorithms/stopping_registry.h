// StoppingRuleRegistry: maps an early-stopping rule's name to the factory of
// its policy, as DesignerRegistry (registry.h) does for designers.
//
// The engine creates every named rule through one registry
// (engine::EngineOptions::stopping_rules). RegisterBuiltins() adds hptune's
// own under the names `hptune run --early-stopping` and the docs use:
// "median" (Vizier's median rule on running averages, which is Vertex's
// medianAutomatedStoppingSpec), "median-at-step" (the default), "asha",
// "asha-resume" (ASHA whose stopped trials are resumed from their
// checkpoints), "envelope" (learned from the study's own curves), "decay-curve"
// (Vertex's decayCurveStoppingSpec) and "convex" (Vertex's
// convexAutomatedStoppingSpec); docs/designers.md says what each does. An
// embedder adds its own rule under a name of its choosing and asks the
// engine to check a study with it by that name. Used by the engine, the
// curve replay benchmark and tests.
//
// Thread-safety: Register and RegisterBuiltins must not run concurrently
// with anything else on the same registry; the const methods are
// thread-safe, and so are the factories hptune registers. A user factory is
// called from whichever thread checks a study.
#ifndef HPTUNE_ALGORITHMS_STOPPING_REGISTRY_H_
#define HPTUNE_ALGORITHMS_STOPPING_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"

namespace hptune::algorithms {

// A fresh policy of a rule, used for one check.
using StoppingRuleFactory =
    std::function<absl::StatusOr<std::unique_ptr<StoppingPolicy>>()>;

// The registry name of a built-in rule: "median", "median-at-step", "asha".
std::string_view RuleName(StoppingRule rule);

class StoppingRuleRegistry {
 public:
  // Knows no rule.
  StoppingRuleRegistry() = default;
  // Knows hptune's rules (RegisterBuiltins).
  static StoppingRuleRegistry WithBuiltins();

  // Adds hptune's rules under the names above; AlreadyExists when one of
  // those names is taken.
  [[nodiscard]] absl::Status RegisterBuiltins();
  // Adds `factory` under `name`. InvalidArgument for an empty name (or one
  // over 100 characters) or an empty factory; AlreadyExists when the name is
  // taken. Registering a built-in name on a registry without the built-ins
  // replaces that rule wherever it is named, the enum overloads included.
  [[nodiscard]] absl::Status Register(std::string_view name,
                                      StoppingRuleFactory factory);

  bool Contains(std::string_view name) const;
  // The registered names, sorted.
  std::vector<std::string> Names() const;

  // A fresh policy from the factory registered under `name`.
  // InvalidArgument naming the registered rules when `name` is not one, or
  // when the factory fails.
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> Create(
      std::string_view name) const;

 private:
  std::map<std::string, StoppingRuleFactory, std::less<>> factories_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_REGISTRY_H_
