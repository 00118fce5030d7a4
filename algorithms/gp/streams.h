// The GP designer's derived random streams: one SplitMix64 stream per
// purpose, so that changing how many draws one purpose takes leaves the
// others' draws alone. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_STREAMS_H_
#define HPTUNE_ALGORITHMS_GP_STREAMS_H_

#include <cstdint>

#include "algorithms/common/splitmix64.h"

namespace hptune::algorithms::gp {

// Salts of the streams (the first words of SHA-512's initial hash).
inline constexpr uint64_t kFitSalt = 0x6a09e667f3bcc908ull;
inline constexpr uint64_t kAcquisitionSalt = 0xbb67ae8584caa73bull;
inline constexpr uint64_t kExplorationSalt = 0x3c6ef372fe94f82bull;
inline constexpr uint64_t kScalarizationSalt = 0xa54ff53a5f1d36f1ull;
inline constexpr uint64_t kTiedBestSalt = 0x510e527fade682d1ull;
inline constexpr uint64_t kCurveFitSalt = 0x9b05688c2b3e6c1full;

// Output n of the stream (seed ^ salt).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t salt, uint64_t n) {
  return SplitMix64(seed ^ salt, n).Next();
}

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_STREAMS_H_
