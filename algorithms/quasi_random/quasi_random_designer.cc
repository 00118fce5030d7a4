#include "algorithms/quasi_random/quasi_random_designer.h"

#include "absl/strings/str_cat.h"
#include "algorithms/common/counter_state.h"
#include "algorithms/common/unique_sampler.h"
#include "algorithms/encoding/unit_cube.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

constexpr std::string_view kStateTag = "halton";
constexpr std::string_view kStateKey = "index";

}  // namespace

absl::StatusOr<std::unique_ptr<QuasiRandomDesigner>>
QuasiRandomDesigner::Create(const SearchSpace& space, uint64_t seed) {
  RETURN_IF_ERROR(ValidateForEncoding(space));
  if (space.parameters().size() > ScrambledHalton::kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrCat(
        "QUASI_RANDOM_SEARCH supports at most ", ScrambledHalton::kMaxDimension,
        " parameters, got ", space.parameters().size(), "; use RANDOM_SEARCH"));
  }
  ScrambledHalton halton(static_cast<int>(space.parameters().size()), seed);
  return std::unique_ptr<QuasiRandomDesigner>(
      new QuasiRandomDesigner(space, std::move(halton), EnumerableGrid(space)));
}

absl::Status QuasiRandomDesigner::Update(const std::vector<Trial>& completed,
                                         const std::vector<Trial>& active) {
  used_ = AssignmentSet::FromTrials(completed, active);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Suggestion>> QuasiRandomDesigner::Suggest(
    int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("quasi-random designer: count must be >= 0, got ", count));
  }
  auto next_point = [&]() {
    UnitPoint point{halton_.Point(index_),
                    absl::StrCat("halton[", index_, "]")};
    ++index_;
    return point;
  };
  return SampleUnique(space_, grid_, used_, count, next_point);
}

std::string QuasiRandomDesigner::SaveState() const {
  return FormatCounterState(kStateTag, kStateKey, index_);
}

absl::Status QuasiRandomDesigner::RestoreState(std::string_view state) {
  ASSIGN_OR_RETURN(index_, ParseCounterState(kStateTag, kStateKey, state));
  return absl::OkStatus();
}

}  // namespace hptune::algorithms
