#include "algorithms/random/random_designer.h"

#include "absl/strings/str_cat.h"
#include "algorithms/common/counter_state.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/common/unique_sampler.h"
#include "algorithms/encoding/unit_cube.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

constexpr std::string_view kStateTag = "random";
constexpr std::string_view kStateKey = "draws";

}  // namespace

absl::StatusOr<std::unique_ptr<RandomDesigner>> RandomDesigner::Create(
    const SearchSpace& space, uint64_t seed) {
  RETURN_IF_ERROR(ValidateForEncoding(space));
  return std::unique_ptr<RandomDesigner>(
      new RandomDesigner(space, seed, EnumerableGrid(space)));
}

absl::Status RandomDesigner::Update(const std::vector<Trial>& completed,
                                    const std::vector<Trial>& active) {
  used_ = AssignmentSet::FromTrials(completed, active);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Suggestion>> RandomDesigner::Suggest(int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("random designer: count must be >= 0, got ", count));
  }
  SplitMix64 rng(seed_, draws_);
  const size_t dimension = space_.parameters().size();
  auto next_point = [&]() {
    UnitPoint point;
    point.origin = absl::StrCat("random[", rng.draws(), "]");
    point.u.reserve(dimension);
    for (size_t i = 0; i < dimension; ++i) point.u.push_back(rng.NextUnit());
    return point;
  };
  std::vector<Suggestion> suggestions =
      SampleUnique(space_, grid_, used_, count, next_point);
  draws_ = rng.draws();
  return suggestions;
}

std::string RandomDesigner::SaveState() const {
  return FormatCounterState(kStateTag, kStateKey, draws_);
}

absl::Status RandomDesigner::RestoreState(std::string_view state) {
  ASSIGN_OR_RETURN(draws_, ParseCounterState(kStateTag, kStateKey, state));
  return absl::OkStatus();
}

}  // namespace hptune::algorithms
