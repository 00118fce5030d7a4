// StoppingRuleRegistry: maps an early-stopping rule's name to its one-line
// description and the factory of its policy, which decodes and checks the
// rule's own settings (StoppingSettings), as DesignerRegistry (registry.h)
// does for designers and Optuna's pruners hold their arguments.
//
// The engine creates every named rule through one registry
// (engine::EngineOptions::stopping_rules), and the CLI lists and checks
// hptune's own from WithBuiltins(): help texts and "must be one of" errors
// read Names() and Description(). RegisterBuiltins() adds "median-at-step"
// (the default), "median", "asha", "asha-resume", "envelope", "decay-curve"
// and "convex"; docs/designers.md says what each does and which settings it
// takes. An embedder adds its own rule under a name of its choosing and asks
// the engine to check a study with it by that name. Used by the engine, the
// CLI, the curve replay benchmark and tests.
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
#include "hptune/core/stopping_settings.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

// A fresh policy of a rule with the rule's settings (empty: its defaults),
// used for one check. A bad setting is InvalidArgument "NAME: PROBLEM",
// e.g. "minMeasurementCount: must be 2 to 1000, got 1", which callers
// prefix with where the settings were written.
using StoppingRuleFactory =
    std::function<absl::StatusOr<std::unique_ptr<StoppingPolicy>>(
        const StoppingSettings&)>;
// The factory of a rule without settings.
using PlainStoppingRuleFactory =
    std::function<absl::StatusOr<std::unique_ptr<StoppingPolicy>>()>;

class StoppingRuleRegistry {
 public:
  // Knows no rule.
  StoppingRuleRegistry() = default;
  // Knows hptune's rules (RegisterBuiltins).
  static StoppingRuleRegistry WithBuiltins();

  // Adds hptune's rules under the names above; AlreadyExists when one of
  // those names is taken.
  [[nodiscard]] absl::Status RegisterBuiltins();
  // Adds `factory` under `name`, described by `description` (one line, for
  // help texts). InvalidArgument for an empty name (or one over 100
  // characters) or an empty factory; AlreadyExists when the name is taken.
  [[nodiscard]] absl::Status Register(std::string_view name,
                                      std::string_view description,
                                      StoppingRuleFactory factory);
  // The same for a rule without settings and description: any setting given
  // it is refused.
  [[nodiscard]] absl::Status Register(std::string_view name,
                                      PlainStoppingRuleFactory factory);

  bool Contains(std::string_view name) const;
  // The registered names, sorted.
  std::vector<std::string> Names() const;
  // The description `name` was registered with; empty when none.
  std::string Description(std::string_view name) const;

  // A fresh policy of the rule registered as `name` with `settings`.
  // InvalidArgument naming the registered rules when `name` is not one, or
  // naming the rule when the factory fails.
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> Create(
      std::string_view name, const StoppingSettings& settings = {}) const;
  // Whether `settings` are good for the rule registered as `name`: the
  // factory's own error ("NAME: PROBLEM") when not; NotFound for an
  // unregistered rule.
  absl::Status CheckSettings(std::string_view name,
                             const StoppingSettings& settings) const;
  // The policy that judges the trials of a study of `problem` by `rule`
  // (with settings.stopping_settings when it is the study's own rule,
  // settings.EffectiveStoppingRule(), else the rule's defaults). The one
  // place several objectives are decided: such a study is judged by the
  // dominance rule (algorithms/stopping/dominance_stopping_policy.h), as
  // `rule` judges one metric; `rule` must still be registered. A StudySpec
  // is both: CreateForStudy(spec, spec, rule).
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> CreateForStudy(
      const Problem& problem, const EarlyStoppingSettings& settings,
      std::string_view rule) const;

 private:
  struct Entry {
    std::string description;
    StoppingRuleFactory factory;
  };
  std::map<std::string, Entry, std::less<>> rules_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_REGISTRY_H_
