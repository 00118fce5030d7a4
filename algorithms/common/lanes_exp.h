// exp(x) for each of the eight doubles of a Lanes (simd_clones.h), for the
// GP's batched kernel values. Cephes' method (S. L. Moshier, "Methods and
// Programs for Mathematical Functions", 1989; cephes/double/exp.c):
//   n = round(x / ln 2),  r = x - n ln 2  (ln 2 in two parts, so r is exact
//   to working precision), |r| <= ln(2) / 2,
//   exp(r) = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2))   (a Padé form),
//   exp(x) = 2^n exp(r), 2^n written into the exponent bits.
// Relative error within about 2 ulp of exp's (lanes_exp_test.cc checks it).
// Arguments below -708 give 0, where exp's result would be subnormal; above
// 709 the result is not defined. Only IEEE additions, multiplications,
// divisions and bit moves, so every vector width gives the same bits.
// Used by algorithms/gp/matern_kernel.cc. Header only; no state.
#ifndef HPTUNE_ALGORITHMS_COMMON_LANES_EXP_H_
#define HPTUNE_ALGORITHMS_COMMON_LANES_EXP_H_

#include <cstdint>
#include <cstring>

#include "algorithms/common/simd_clones.h"

namespace hptune::algorithms {

typedef int64_t LaneInts __attribute__((vector_size(sizeof(Lanes))));

HPTUNE_CLONE_INLINE void ExpLanes(Lanes& x) {
  constexpr double kLog2e = 1.4426950408889634073599;
  constexpr double kLn2High = 6.93145751953125E-1;
  constexpr double kLn2Low = 1.42860682030941723212E-6;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52.
  constexpr double kLowest = -708.0;
  const Lanes lowest = Lanes{} + kLowest;
  const LaneInts underflow = x < lowest;
  x = underflow ? lowest : x;
  // n = round(x / ln 2): adding 1.5 * 2^52 rounds to an integer, which the
  // low bits then hold.
  const Lanes shifted = x * kLog2e + kRound;
  const Lanes n = shifted - kRound;
  x = x - n * kLn2High;
  x = x - n * kLn2Low;
  const Lanes xx = x * x;
  const Lanes px =
      x * ((1.26177193074810590878E-4 * xx + 3.02994407707441961300E-2) * xx +
           9.99999999999999999910E-1);
  const Lanes qx =
      ((3.00198505138664455042E-6 * xx + 2.52448340349684104192E-3) * xx +
       2.27265548208155028766E-1) *
          xx +
      2.00000000000000000009E0;
  const Lanes e = 1.0 + 2.0 * (px / (qx - px));
  LaneInts bits, round_bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  const Lanes round_lanes = Lanes{} + kRound;
  std::memcpy(&round_bits, &round_lanes, sizeof round_bits);
  LaneInts scale_bits = (bits - round_bits + 1023) << 52;
  scale_bits &= ~underflow;  // 0.0 where x was below kLowest.
  Lanes scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  x = e * scale;
}

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_COMMON_LANES_EXP_H_
