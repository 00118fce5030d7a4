// HPTUNE_SIMD_CLONES, placed before a function, compiles it once per vector
// width (SSE2, AVX2, AVX-512F) and runs the widest the CPU has, chosen when
// the program loads (GCC's and Clang's target_clones; one version on other
// architectures). Lanes is eight doubles as one value (GCC's and Clang's
// vector extension), which each clone keeps in registers of its width: one,
// two or four. Together they carry the GP's batched kernel values and
// triangular solves, a suggestion's largest costs on small spaces
// (benchmarks/RESULTS.md, "Vector widths chosen at load time"). A function
// a clone calls must be HPTUNE_CLONE_INLINE, so that it is compiled into
// each clone at the clone's width (plain `inline` leaves the compiler free
// to call one SSE2 copy).
//
// Every clone gives the same bits: the algorithms library is built with
// -ffp-contract=off, so no clone fuses a multiply and an add; without
// -ffast-math a compiler never reorders a sum, so each lane performs the
// scalar loop's IEEE operations in its order; and the clones call no
// library math (sqrt is correctly rounded, exp is lanes_exp.h's). The
// width a CPU has never changes a seeded study's suggestions.
// Used by algorithms/gp. Header only; no state.
#ifndef HPTUNE_ALGORITHMS_COMMON_SIMD_CLONES_H_
#define HPTUNE_ALGORITHMS_COMMON_SIMD_CLONES_H_

#include <cstring>

#define HPTUNE_CLONE_INLINE inline __attribute__((always_inline))

#if defined(__x86_64__)
#define HPTUNE_SIMD_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HPTUNE_SIMD_CLONES
#endif

namespace hptune::algorithms {

inline constexpr int kLanes = 8;
typedef double Lanes __attribute__((vector_size(kLanes * sizeof(double))));

// v <- p[0..kLanes) and back, at any alignment. (By reference: a vector
// passed by value would follow each clone's own calling convention.)
HPTUNE_CLONE_INLINE void LoadLanes(const double* p, Lanes& v) {
  std::memcpy(&v, p, sizeof v);
}
HPTUNE_CLONE_INLINE void StoreLanes(double* p, const Lanes& v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_COMMON_SIMD_CLONES_H_
