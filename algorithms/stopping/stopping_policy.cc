#include "hptune/algorithms/stopping_policy.h"

#include <cstdio>
#include <cstdlib>

#include "algorithms/stopping/asha_stopping_policy.h"
#include "algorithms/stopping/median_stopping_policy.h"

namespace hptune::algorithms {

std::string_view ToString(StoppingRule rule) {
  switch (rule) {
    case StoppingRule::kMedian:
      return "MEDIAN";
    case StoppingRule::kMedianAtStep:
      return "MEDIAN_AT_STEP";
    case StoppingRule::kAsha:
      return "ASHA";
  }
  return "UNKNOWN";
}

std::unique_ptr<StoppingPolicy> CreateStoppingPolicy(StoppingRule rule) {
  absl::StatusOr<std::unique_ptr<StoppingPolicy>> policy =
      absl::InvalidArgumentError("unknown stopping rule");
  switch (rule) {
    case StoppingRule::kMedian:
      policy = MedianStoppingPolicy::Create(MedianStoppingOptions{});
      break;
    case StoppingRule::kMedianAtStep:
      policy = MedianStoppingPolicy::Create(MedianStoppingOptions{
          .reference = MedianStoppingOptions::Reference::kValueAtStep});
      break;
    case StoppingRule::kAsha:
      policy = AshaStoppingPolicy::Create(AshaOptions{});
      break;
  }
  // The default options are valid; anything else is a programming error.
  if (!policy.ok()) {
    std::fprintf(stderr, "hptune: broken invariant: stopping rule %d: %s\n",
                 static_cast<int>(rule),
                 std::string(policy.status().message()).c_str());
    std::abort();
  }
  return *std::move(policy);
}

}  // namespace hptune::algorithms
