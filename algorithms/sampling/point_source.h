// PointSource: the stream of unit-cube points behind a sampling designer,
// the one thing in which random and quasi-random search differ.
//
// RANDOM_SEARCH draws independent uniform points (SplitMix64, Bergstra &
// Bengio, "Random Search for Hyper-Parameter Optimization", JMLR 2012);
// QUASI_RANDOM_SEARCH takes the points of a scrambled Halton sequence,
// which cover the cube more evenly for the same count (halton.h). Both
// streams are a pure function of (seed, position), so a source's whole state
// is its position. Used by SamplingDesigner (sampling_designer.h). Not
// thread-safe.
#ifndef HPTUNE_ALGORITHMS_SAMPLING_POINT_SOURCE_H_
#define HPTUNE_ALGORITHMS_SAMPLING_POINT_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "algorithms/common/unique_sampler.h"

namespace hptune::algorithms {

class PointSource {
 public:
  virtual ~PointSource() = default;

  // The point at position(), labelled with its origin; advances position().
  virtual UnitPoint Next() = 0;

  // How far the stream has advanced (draws taken, sequence index).
  virtual uint64_t position() const = 0;
  virtual void set_position(uint64_t position) = 0;

  // How the position is saved: "<tag>:<key>=<position>" (counter_state.h).
  virtual std::string_view state_tag() const = 0;
  virtual std::string_view state_key() const = 0;
  // The designer's name in error messages ("random designer").
  virtual std::string_view designer_name() const = 0;
};

// Independent uniform points: each coordinate is one SplitMix64 draw of
// `seed`'s stream. Position: the draws taken; origins "random[n]", n the
// first draw of the point. Saved as "random:draws=<n>".
std::unique_ptr<PointSource> NewRandomPoints(int dimension, uint64_t seed);

// Point i of ScrambledHalton(dimension, seed). Position: the index of the
// next point; origins "halton[i]". Saved as "halton:index=<i>".
// InvalidArgument above ScrambledHalton::kMaxDimension coordinates.
absl::StatusOr<std::unique_ptr<PointSource>> NewHaltonPoints(int dimension,
                                                             uint64_t seed);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_SAMPLING_POINT_SOURCE_H_
