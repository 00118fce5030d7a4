#include "algorithms/grid/grid_designer.h"

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "algorithms/common/counter_state.h"
#include "algorithms/encoding/unit_cube.h"

namespace hptune::algorithms {
namespace {

constexpr std::string_view kStateTag = "grid";
constexpr std::string_view kStateKey = "cursor";

}  // namespace

absl::StatusOr<std::unique_ptr<GridDesigner>> GridDesigner::Create(
    const SearchSpace& space) {
  for (const auto& spec : space.parameters()) {
    if (spec.type == ParameterType::kDouble) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GRID_SEARCH needs INTEGER, DISCRETE and CATEGORICAL parameters "
          "only: parameter \"",
          spec.name, "\" is DOUBLE; make it DISCRETE with the values to try"));
    }
  }
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(space));
  auto grid = FiniteGrid::Create(space);
  if (!grid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GRID_SEARCH: ", grid.status().message()));
  }
  return std::unique_ptr<GridDesigner>(new GridDesigner(*std::move(grid)));
}

absl::Status GridDesigner::Update(const std::vector<Trial>& completed,
                                  const std::vector<Trial>& active) {
  used_ = AssignmentSet::FromTrials(completed, active);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Suggestion>> GridDesigner::Suggest(int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("grid designer: count must be >= 0, got ", count));
  }
  std::vector<Suggestion> suggestions;
  // Each step moves the cursor past one combination, suggested or skipped,
  // so the loop runs at most count + (number of used points) times.
  while (static_cast<int>(suggestions.size()) < count &&
         cursor_ < grid_.size()) {
    const int64_t index = cursor_++;
    ParameterAssignment point = grid_.At(index);
    if (used_.Contains(point)) continue;
    suggestions.push_back(
        {std::move(point), absl::StrCat("grid[", index, "]")});
  }
  return suggestions;
}

std::string GridDesigner::SaveState() const {
  return FormatCounterState(kStateTag, kStateKey,
                            static_cast<uint64_t>(cursor_));
}

absl::Status GridDesigner::RestoreState(std::string_view state) {
  HPTUNE_ASSIGN_OR_RETURN(uint64_t cursor,
                          ParseCounterState(kStateTag, kStateKey, state));
  if (cursor > static_cast<uint64_t>(grid_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("grid designer: cannot restore cursor ", cursor,
                     ": the grid has only ", grid_.size(), " combinations"));
  }
  cursor_ = static_cast<int64_t>(cursor);
  return absl::OkStatus();
}

}  // namespace hptune::algorithms
