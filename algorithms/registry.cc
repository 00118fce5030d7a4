#include "hptune/algorithms/registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/encoding/unit_cube.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/gp/multi_fidelity_designer.h"
#include "algorithms/gp/suggestion_policy.h"
#include "algorithms/grid/grid_designer.h"
#include "algorithms/sampling/sampling_designer.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

// Upcasts a factory's concrete designer.
template <typename T>
absl::StatusOr<std::unique_ptr<Designer>> AsDesigner(
    absl::StatusOr<std::unique_ptr<T>> designer) {
  if (!designer.ok()) return designer.status();
  return std::unique_ptr<Designer>(*std::move(designer));
}

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

}  // namespace

std::string DesignerName(const DesignerSettings& settings) {
  return settings.custom_algorithm.empty()
             ? std::string(ToString(settings.algorithm))
             : settings.custom_algorithm;
}

DesignerRegistry DesignerRegistry::WithBuiltins() {
  DesignerRegistry registry;
  registry.RegisterBuiltins().IgnoreError();  // An empty registry has room.
  return registry;
}

int GpSeedingTrials(const Problem& problem, const DesignerSettings& settings,
                    int trial_budget) {
  if (!settings.custom_algorithm.empty() ||
      settings.algorithm != Algorithm::kUnspecified) {
    return 0;
  }
  absl::StatusOr<FeatureEncoding> encoding =
      FeatureEncoding::Create(problem.search_space);
  if (!encoding.ok()) return 0;
  return gp::SeedingTrials(
      encoding->dimension(),
      DesignerOptions{.seeding_trials = settings.seeding_trials,
                      .trial_budget = trial_budget});
}

ParameterValue DrawJoiningValue(const ParameterSpec& spec, uint64_t study_seed,
                                int64_t trial) {
  uint64_t name_hash = 0xCBF29CE484222325ull;  // FNV-1a: fixed on every build.
  for (unsigned char c : spec.name)
    name_hash = (name_hash ^ c) * 0x100000001B3ull;
  SplitMix64 draws(study_seed ^ name_hash, static_cast<uint64_t>(trial));
  return ValueFromUniform(spec, draws.NextUnit());
}

absl::Status DesignerRegistry::RegisterBuiltins() {
  // ALGORITHM_UNSPECIFIED is Bayesian optimisation, as in AI Platform.
  HPTUNE_RETURN_IF_ERROR(Register(
      ToString(Algorithm::kUnspecified),
      [](const Problem& problem, const DesignerOptions& options,
         uint64_t seed) {
        return AsDesigner(gp::GpDesigner::Create(problem, options, seed));
      }));
  HPTUNE_RETURN_IF_ERROR(
      Register(ToString(Algorithm::kGridSearch),
               [](const Problem& problem, const DesignerOptions&, uint64_t) {
                 return AsDesigner(GridDesigner::Create(problem.search_space));
               }));
  HPTUNE_RETURN_IF_ERROR(Register(
      ToString(Algorithm::kRandomSearch),
      [](const Problem& problem, const DesignerOptions&, uint64_t seed) {
        return AsDesigner(CreateRandomDesigner(problem.search_space, seed));
      }));
  HPTUNE_RETURN_IF_ERROR(
      Register(ToString(Algorithm::kMultiFidelityGp),
               [](const Problem& problem, const DesignerOptions& options,
                  uint64_t seed) {
                 return AsDesigner(
                     gp::MultiFidelityDesigner::Create(problem, options, seed));
               }));
  return Register(
      ToString(Algorithm::kQuasiRandomSearch),
      [](const Problem& problem, const DesignerOptions&, uint64_t seed) {
        return AsDesigner(
            CreateQuasiRandomDesigner(problem.search_space, seed));
      });
}

absl::Status DesignerRegistry::Register(std::string_view name,
                                        DesignerFactory factory) {
  if (name.empty()) {
    return absl::InvalidArgumentError("a designer needs a non-empty name");
  }
  if (!factory) {
    return absl::InvalidArgumentError(
        absl::StrCat("designer ", Quoted(name), ": the factory is empty"));
  }
  if (!factories_.emplace(std::string(name), std::move(factory)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("a designer is already registered as ", Quoted(name)));
  }
  return absl::OkStatus();
}

bool DesignerRegistry::Contains(std::string_view name) const {
  return factories_.find(name) != factories_.end();
}

std::vector<std::string> DesignerRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Designer>> DesignerRegistry::Create(
    const Problem& problem, const DesignerSettings& settings, int trial_budget,
    uint64_t seed) const {
  if (!settings.custom_algorithm.empty() &&
      settings.algorithm != Algorithm::kUnspecified) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the study names two designers: custom algorithm ",
        Quoted(settings.custom_algorithm), " and algorithm ",
        std::string(ToString(settings.algorithm)), "; set one of them"));
  }
  const std::string name = DesignerName(settings);
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm ", Quoted(name),
        " is not registered with this engine; registered: ",
        factories_.empty() ? "none" : absl::StrJoin(Names(), ", ")));
  }
  return it->second(problem,
                    DesignerOptions{.seeding_trials = settings.seeding_trials,
                                    .trial_budget = trial_budget},
                    seed);
}

absl::StatusOr<std::unique_ptr<Designer>> CreateDesigner(const StudySpec& spec,
                                                         uint64_t seed) {
  static const DesignerRegistry* const builtins =
      new DesignerRegistry(DesignerRegistry::WithBuiltins());
  return builtins->Create(spec, spec, spec.max_trials, seed);
}

}  // namespace hptune::algorithms
