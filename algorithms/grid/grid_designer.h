// GridDesigner: GRID_SEARCH, every combination of the parameters' values.
//
// Created by CreateDesigner; the engine calls Update/Suggest. The space must
// be fully finite (INTEGER: every integer in [minValue, maxValue]; DISCRETE
// and CATEGORICAL: their values). Combinations come in odometer order (see
// FiniteGrid): parameters as declared, the last varying fastest, INTEGER
// values ascending, DISCRETE and CATEGORICAL values as declared. A
// combination already held by a completed or pending trial (e.g. one a user
// created) is skipped, so it is not run twice. State: the cursor, the index
// of the next combination to consider; skipped and suggested combinations
// are behind it. When the cursor reaches the end the grid is exhausted and
// Suggest returns fewer suggestions, then none. No randomness. Not
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_GRID_GRID_DESIGNER_H_
#define HPTUNE_ALGORITHMS_GRID_GRID_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/search_space.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"

namespace hptune::algorithms {

class GridDesigner : public Designer {
 public:
  // InvalidArgument naming the parameter when one is DOUBLE, or when the grid
  // has more points than an int64 counts (listing each parameter's count).
  static absl::StatusOr<std::unique_ptr<GridDesigner>> Create(
      const SearchSpace& space);

  // The number of combinations.
  int64_t size() const { return grid_.size(); }

  [[nodiscard]] absl::Status Update(const std::vector<Trial>& completed,
                                    const std::vector<Trial>& active) override;
  // Origins are "grid[i]", i the 0-based combination index. InvalidArgument
  // for a negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  // "grid:cursor=<i>", 0 <= i <= size().
  std::string SaveState() const override;
  [[nodiscard]] absl::Status RestoreState(std::string_view state) override;

 private:
  explicit GridDesigner(FiniteGrid grid) : grid_(std::move(grid)) {}

  FiniteGrid grid_;
  int64_t cursor_ = 0;
  AssignmentSet used_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_GRID_GRID_DESIGNER_H_
