// DesignerRegistry: maps a study's algorithm name to the factory of its
// designer.
//
// The engine creates every designer through one registry
// (engine::EngineOptions::designers). RegisterBuiltins() adds hptune's own
// under AI Platform's names (ALGORITHM_UNSPECIFIED: GP Bayesian
// optimisation; GRID_SEARCH; RANDOM_SEARCH; QUASI_RANDOM_SEARCH); an
// embedder adds its own under names of its choosing, which its studies
// name in StudySpec::custom_algorithm (see engine.h for why that is a field
// of its own). Used by the engine, the quality harness and tests.
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

// A fresh designer for `spec`, seeded with `seed`; InvalidArgument when it
// cannot handle the spec (e.g. GRID_SEARCH with a DOUBLE parameter).
using DesignerFactory = std::function<absl::StatusOr<std::unique_ptr<Designer>>(
    const StudySpec& spec, uint64_t seed)>;

// The name a study's designer is registered under: spec.custom_algorithm
// when set, else the name of spec.algorithm ("GRID_SEARCH", ...).
std::string DesignerName(const StudySpec& spec);

// How many of a study's first trials hptune's default designer (GP
// Bayesian optimisation, ALGORITHM_UNSPECIFIED) chooses quasi-randomly
// before its model takes over: the study's seedingTrials, else the rule by
// the number of features and maxTrials of docs/designers.md, "Seeding"
// (gp::InitialPoints). 0 for every other designer, and for a space the GP
// cannot encode.
int GpSeedingTrials(const StudySpec& spec);

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

  // A fresh designer for `spec` from the factory registered under
  // DesignerName(spec). InvalidArgument when the name is not registered
  // (naming the registered ones), when spec sets both custom_algorithm and
  // an `algorithm` other than ALGORITHM_UNSPECIFIED, or when the factory
  // refuses the spec.
  absl::StatusOr<std::unique_ptr<Designer>> Create(const StudySpec& spec,
                                                   uint64_t seed) const;

 private:
  std::map<std::string, DesignerFactory, std::less<>> factories_;
};

// A fresh designer of hptune's own for `spec` (no custom_algorithm), seeded
// with `seed`: DesignerRegistry::WithBuiltins().Create(spec, seed).
absl::StatusOr<std::unique_ptr<Designer>> CreateDesigner(const StudySpec& spec,
                                                         uint64_t seed);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_REGISTRY_H_
