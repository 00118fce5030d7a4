// RandomDesigner: RANDOM_SEARCH, independent uniform draws in the scaled
// space (Bergstra & Bengio, "Random Search for Hyper-Parameter
// Optimization", JMLR 2012).
//
// Created by CreateDesigner; the engine calls Update/Suggest. Each
// coordinate is one SplitMix64 draw mapped by ValueFromUniform: DOUBLE
// uniform under its scale (log-uniform on UNIT_LOG_SCALE), INTEGER each value
// equally likely on a linear scale, DISCRETE and CATEGORICAL uniform among
// their values. Completed and pending points are not repeated where the
// space has room; a fully used finite space is exhausted (SampleUnique).
// State: the number of draws taken from the seed's stream, so a restored
// designer continues the same stream. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_RANDOM_RANDOM_DESIGNER_H_
#define HPTUNE_ALGORITHMS_RANDOM_RANDOM_DESIGNER_H_

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
#include "hptune/algorithms/designer.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

class RandomDesigner : public Designer {
 public:
  // InvalidArgument when `space` fails ValidateForEncoding.
  static absl::StatusOr<std::unique_ptr<RandomDesigner>> Create(
      const SearchSpace& space, uint64_t seed);

  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) override;
  // Origins are "random[n]": the point came from draws n, n+1, ... of the
  // stream. InvalidArgument for a negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  // "random:draws=<n>".
  std::string SaveState() const override;
  absl::Status RestoreState(std::string_view state) override;

 private:
  RandomDesigner(SearchSpace space, uint64_t seed,
                 std::optional<FiniteGrid> grid)
      : space_(std::move(space)), seed_(seed), grid_(std::move(grid)) {}

  SearchSpace space_;
  uint64_t seed_;
  uint64_t draws_ = 0;
  std::optional<FiniteGrid> grid_;  // Set for small finite spaces.
  AssignmentSet used_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_RANDOM_RANDOM_DESIGNER_H_
