// Standard normal draws from a SplitMix64 stream, for the GP designer's
// random restarts and perturbations.
//
// Box-Muller (Box & Muller, "A Note on the Generation of Random Normal
// Deviates", Ann. Math. Statist. 29, 1958): z = sqrt(-2 ln u1) cos(2 pi u2),
// two uniforms per draw, so the stream position is a function of the number
// of draws and results are exactly reproducible (std::normal_distribution is
// implementation-defined). Header-only; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_NORMAL_DRAW_H_
#define HPTUNE_ALGORITHMS_GP_NORMAL_DRAW_H_

#include <cmath>
#include <numbers>

#include "algorithms/common/splitmix64.h"

namespace hptune::algorithms::gp {

inline double NextStandardNormal(SplitMix64& rng) {
  const double u1 = 1.0 - rng.NextUnit();  // In (0, 1]: log is finite.
  const double u2 = rng.NextUnit();
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_NORMAL_DRAW_H_
