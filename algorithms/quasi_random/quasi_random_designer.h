// QuasiRandomDesigner: QUASI_RANDOM_SEARCH (and, for now, the default),
// points of the scrambled Halton sequence mapped into the search space.
//
// Created by CreateDesigner; the engine calls Update/Suggest. A
// low-discrepancy sequence covers the space more evenly than independent
// random draws for the same budget (fewer clumps and holes), which is what a
// small trial budget needs. Point i of ScrambledHalton(d, seed) (d = number
// of parameters, permutations from the seed) is mapped by ValueFromUniform,
// the same prior as random search. Completed and pending points are not
// repeated where the space has room; a fully used finite space is exhausted
// (SampleUnique). State: the index of the next sequence point. Not
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_QUASI_RANDOM_QUASI_RANDOM_DESIGNER_H_
#define HPTUNE_ALGORITHMS_QUASI_RANDOM_QUASI_RANDOM_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/quasi_random/halton.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

class QuasiRandomDesigner : public Designer {
 public:
  // InvalidArgument when `space` fails ValidateForEncoding.
  static absl::StatusOr<std::unique_ptr<QuasiRandomDesigner>> Create(
      const SearchSpace& space, uint64_t seed);

  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) override;
  // Origins are "halton[i]", i the sequence index. InvalidArgument for a
  // negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  // "halton:index=<i>".
  std::string SaveState() const override;
  absl::Status RestoreState(std::string_view state) override;

 private:
  QuasiRandomDesigner(SearchSpace space, ScrambledHalton halton,
                      std::optional<FiniteGrid> grid)
      : space_(std::move(space)),
        halton_(std::move(halton)),
        grid_(std::move(grid)) {}

  SearchSpace space_;
  ScrambledHalton halton_;
  uint64_t index_ = 0;
  std::optional<FiniteGrid> grid_;  // Set for small finite spaces.
  AssignmentSet used_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_QUASI_RANDOM_QUASI_RANDOM_DESIGNER_H_
