// DesignerRegistry: maps a study's algorithm name to the factory of its
// designer.
//
// The engine creates every designer through one registry
// (engine::EngineOptions::designers). RegisterBuiltins() adds hptune's own
// under the `algorithm` names (AI Platform's ALGORITHM_UNSPECIFIED: GP
// Bayesian optimisation; GRID_SEARCH; RANDOM_SEARCH; hptune's
// QUASI_RANDOM_SEARCH and MULTI_FIDELITY_GP); an embedder adds its own
// under names of its choosing, which its studies
// name in DesignerSettings::custom_algorithm (see engine.h for why that is a
// field of its own). A designer sees the study's Problem, the
// DesignerOptions and the seed, never the rest of the spec. Used by the
// engine, the quality harness and tests.
//
// Thread-safety: Register and RegisterBuiltins must not run concurrently
// with anything else on the same registry; the const methods are
// thread-safe, and so are the factories hptune registers. A user factory is
// called from whichever thread asks the engine for suggestions.
#ifndef HPTUNE_ALGORITHMS_REGISTRY_H_
#define HPTUNE_ALGORITHMS_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

// A fresh designer for `problem` with `options`, seeded with `seed`;
// InvalidArgument when it cannot handle the problem (e.g. GRID_SEARCH with
// a DOUBLE parameter).
using DesignerFactory = std::function<absl::StatusOr<std::unique_ptr<Designer>>(
    const Problem& problem, const DesignerOptions& options, uint64_t seed)>;

// The name a study's designer is registered under: custom_algorithm when
// set, else the name of `algorithm` ("GRID_SEARCH", ...).
std::string DesignerName(const DesignerSettings& settings);

// How many of a study's first trials hptune's default designer (GP
// Bayesian optimisation, ALGORITHM_UNSPECIFIED) chooses quasi-randomly
// before its model takes over: settings.seeding_trials, else the rule by
// the number of features of problem's space and `trial_budget` (maxTrials)
// of docs/designers.md, "Seeding" (gp::InitialPoints). 0 for every other
// designer, and for a space the GP cannot encode. Takes what the designer
// sees, as Create does: Create(spec, spec, spec.max_trials, seed) has
// GpSeedingTrials(spec, spec, spec.max_trials) seeding trials.
int GpSeedingTrials(const Problem& problem, const DesignerSettings& settings,
                    int trial_budget);

// The value pending trial `trial` gets for parameter `spec` when the
// parameter joins its study's space after the trial was suggested
// (define-by-run: engine::TuningEngine::AddTrialParameter): a draw from
// the search prior (uniform in the spec's scale, as random search draws),
// seeded by the study's seed, the trial and the parameter's name, so that
// a replayed study draws it again.
ParameterValue DrawJoiningValue(const ParameterSpec& spec, uint64_t study_seed,
                                int64_t trial);

class DesignerRegistry {
 public:
  // Knows no designer.
  DesignerRegistry() = default;
  // Knows hptune's designers (RegisterBuiltins).
  static DesignerRegistry WithBuiltins();

  // Adds hptune's designers under ToString(Algorithm) names; AlreadyExists
  // when one of those names is taken.
  [[nodiscard]] absl::Status RegisterBuiltins();
  // Adds `factory` under `name`. InvalidArgument for an empty name or
  // factory; AlreadyExists when the name is taken. Registering a built-in
  // name on a registry without the built-ins replaces that designer for
  // studies that name it by `algorithm`, config files included.
  [[nodiscard]] absl::Status Register(std::string_view name,
                                      DesignerFactory factory);

  bool Contains(std::string_view name) const;
  // The registered names, sorted.
  std::vector<std::string> Names() const;

  // A fresh designer for `problem` from the factory registered under
  // DesignerName(settings), given settings.seeding_trials and
  // `trial_budget` (DesignerOptions). InvalidArgument when the name is not
  // registered (naming the registered ones), when `settings` sets both
  // custom_algorithm and an `algorithm` other than ALGORITHM_UNSPECIFIED,
  // or when the factory refuses the problem. A StudySpec is both a Problem
  // and DesignerSettings: Create(spec, spec, spec.max_trials, seed).
  absl::StatusOr<std::unique_ptr<Designer>> Create(
      const Problem& problem, const DesignerSettings& settings,
      int trial_budget, uint64_t seed) const;

 private:
  std::map<std::string, DesignerFactory, std::less<>> factories_;
};

// A fresh designer of hptune's own for a study of `spec` alone (no
// custom_algorithm, no resumed trials), seeded with `seed`:
// DesignerRegistry::WithBuiltins().Create(spec, spec, spec.max_trials,
// seed). For tests, benchmarks and embedders that drive a designer
// themselves.
absl::StatusOr<std::unique_ptr<Designer>> CreateDesigner(const StudySpec& spec,
                                                         uint64_t seed);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_REGISTRY_H_
