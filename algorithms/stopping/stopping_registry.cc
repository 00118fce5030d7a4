#include "hptune/algorithms/stopping_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/status.h"
#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/convex_stopping_policy.h"
#include "algorithms/stopping/decay_curve_stopping_policy.h"
#include "algorithms/stopping/envelope_stopping_policy.h"

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

}  // namespace

std::string_view RuleName(StoppingRule rule) {
  switch (rule) {
    case StoppingRule::kMedian:
      return "median";
    case StoppingRule::kMedianAtStep:
      return "median-at-step";
    case StoppingRule::kAsha:
      return "asha";
  }
  return "unknown";
}

StoppingRuleRegistry StoppingRuleRegistry::WithBuiltins() {
  StoppingRuleRegistry registry;
  registry.RegisterBuiltins().IgnoreError();  // An empty registry has room.
  return registry;
}

absl::Status StoppingRuleRegistry::RegisterBuiltins() {
  for (StoppingRule rule : {StoppingRule::kMedian, StoppingRule::kMedianAtStep,
                            StoppingRule::kAsha}) {
    HPTUNE_RETURN_IF_ERROR(
        Register(RuleName(rule),
                 [rule]() -> absl::StatusOr<std::unique_ptr<StoppingPolicy>> {
                   return CreateStoppingPolicy(rule);
                 }));
  }
  HPTUNE_RETURN_IF_ERROR(Register("decay-curve", [] {
    return AsPolicy(DecayCurveStoppingPolicy::Create(DecayCurveOptions{}));
  }));
  HPTUNE_RETURN_IF_ERROR(Register("asha-resume", [] {
    return AsPolicy(AshaStoppingPolicy::Create(AshaResumeOptions()));
  }));
  HPTUNE_RETURN_IF_ERROR(Register("envelope", [] {
    return AsPolicy(EnvelopeStoppingPolicy::Create(EnvelopeStoppingOptions{}));
  }));
  return Register("convex", [] {
    return AsPolicy(ConvexStoppingPolicy::Create(ConvexStoppingOptions{}));
  });
}

absl::Status StoppingRuleRegistry::Register(std::string_view name,
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
  if (!factories_.emplace(std::string(name), std::move(factory)).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a stopping rule is already registered as ", Quoted(name)));
  }
  return absl::OkStatus();
}

bool StoppingRuleRegistry::Contains(std::string_view name) const {
  return factories_.find(name) != factories_.end();
}

std::vector<std::string> StoppingRuleRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<StoppingPolicy>> StoppingRuleRegistry::Create(
    std::string_view name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stopping rule ", Quoted(name),
        " is not registered with this engine; registered: ",
        factories_.empty() ? "none" : absl::StrJoin(Names(), ", ")));
  }
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> policy = it->second();
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

}  // namespace hptune::algorithms
