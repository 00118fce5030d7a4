// SamplingDesigner: RANDOM_SEARCH and QUASI_RANDOM_SEARCH, one designer
// parameterised by its stream of unit-cube points (point_source.h).
//
// Created by the designer registry through CreateRandomDesigner or
// CreateQuasiRandomDesigner; the engine calls Update/Suggest. Each point of
// the stream is mapped by ValueFromUniform: DOUBLE uniform under its scale
// (log-uniform on UNIT_LOG_SCALE), INTEGER each value equally likely on a
// linear scale, DISCRETE and CATEGORICAL uniform among their values.
// Completed and pending points are not repeated where the space has room; a
// fully used finite space is exhausted (SampleUnique). State: the stream's
// position, so a restored designer continues the same stream. Not
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_SAMPLING_SAMPLING_DESIGNER_H_
#define HPTUNE_ALGORITHMS_SAMPLING_SAMPLING_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/search_space.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"
#include "algorithms/sampling/point_source.h"

namespace hptune::algorithms {

class SamplingDesigner final : public Designer {
 public:
  // InvalidArgument when `space` fails ValidateForEncoding. `source` has one
  // coordinate per parameter of `space`.
  static absl::StatusOr<std::unique_ptr<SamplingDesigner>> Create(
      const SearchSpace& space, std::unique_ptr<PointSource> source);

  [[nodiscard]] absl::Status Update(const std::vector<Trial>& completed,
                                    const std::vector<Trial>& active) override;
  // Origins are the source's ("random[n]", "halton[i]"). InvalidArgument for
  // a negative count.
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override;
  // "<tag>:<key>=<position>", e.g. "random:draws=18", "halton:index=4".
  std::string SaveState() const override;
  [[nodiscard]] absl::Status RestoreState(std::string_view state) override;

 private:
  SamplingDesigner(SearchSpace space, std::unique_ptr<PointSource> source,
                   std::optional<FiniteGrid> grid)
      : space_(std::move(space)),
        source_(std::move(source)),
        grid_(std::move(grid)) {}

  SearchSpace space_;
  std::unique_ptr<PointSource> source_;
  std::optional<FiniteGrid> grid_;  // Set for small finite spaces.
  AssignmentSet used_;
};

// RANDOM_SEARCH: independent uniform draws (NewRandomPoints).
absl::StatusOr<std::unique_ptr<SamplingDesigner>> CreateRandomDesigner(
    const SearchSpace& space, uint64_t seed);

// QUASI_RANDOM_SEARCH: the scrambled Halton sequence (NewHaltonPoints); also
// InvalidArgument above ScrambledHalton::kMaxDimension parameters.
absl::StatusOr<std::unique_ptr<SamplingDesigner>> CreateQuasiRandomDesigner(
    const SearchSpace& space, uint64_t seed);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_SAMPLING_SAMPLING_DESIGNER_H_
