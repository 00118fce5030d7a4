// Turns a stream of points of [0, 1)^d into suggestions that repeat no
// completed, pending or already-suggested point where the space has room.
// Shared by random and quasi-random search, which differ only in the stream.
// Pure; thread-compatible.
//
// For each suggestion:
//  1. Take up to kMaxAttempts points from the stream, map each with
//     AssignmentFromUniform, and keep the first that is not used.
//  2. If all were used and the space is finite and small enough to list
//     (`grid` given), switch to the unused points for the rest of this call:
//     each suggestion takes one more stream point and picks the unused grid
//     point at index floor(u_0 * #unused), u_0 its first coordinate (index 0
//     in a space with no parameters), so the pick is uniform for a uniform
//     stream. None unused: the space is exhausted and fewer suggestions come
//     back.
//  3. Otherwise (a continuous or huge space whose draws keep landing on used
//     points, which takes a history near the size of the space) accept the
//     last point: a bounded number of retries, not a guarantee.
// Points suggested by an earlier call count as used only once they come back
// through the designer's Update().
#ifndef HPTUNE_ALGORITHMS_COMMON_UNIQUE_SAMPLER_H_
#define HPTUNE_ALGORITHMS_COMMON_UNIQUE_SAMPLER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hptune/algorithms/designer.h"
#include "hptune/core/search_space.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/finite_grid.h"

namespace hptune::algorithms {

// A point of the unit cube from a designer's stream, with its origin label.
struct UnitPoint {
  std::vector<double> u;  // One coordinate per parameter, each in [0, 1).
  std::string origin;     // E.g. "random[12]", "halton[3]".
};

// Candidates drawn per suggestion before switching to the list of unused
// points. With half the space used, 64 misses in a row has probability 2^-64.
inline constexpr int kMaxAttempts = 64;

// Finite spaces up to this many points are listed when draws keep repeating.
inline constexpr int64_t kMaxEnumeratedPoints = int64_t{1} << 20;

// The grid to list in step 2: the space's grid when it is finite and has at
// most kMaxEnumeratedPoints points, nullopt otherwise.
std::optional<FiniteGrid> EnumerableGrid(const SearchSpace& space);

// Up to `count` (>= 0) suggestions, as described above. `used` holds the
// study's points; `next_point` advances the designer's stream.
std::vector<Suggestion> SampleUnique(
    const SearchSpace& space, const std::optional<FiniteGrid>& grid,
    AssignmentSet used, int count,
    const std::function<UnitPoint()>& next_point);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_COMMON_UNIQUE_SAMPLER_H_
