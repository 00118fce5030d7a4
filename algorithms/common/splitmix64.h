// SplitMix64: the small, fully specified pseudo-random generator behind every
// seeded algorithm in hptune (random search draws, Halton scrambling).
//
// Why not <random>: std::uniform_real_distribution and friends are
// implementation-defined, so the same seed could give other suggestions after
// a compiler upgrade; a study must replay exactly. Why SplitMix64: its n-th
// output is a pure function of (seed, n), so a designer's whole stream state
// is one draw counter, and restoring it is O(1).
//
// Algorithm (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014; constants of Vigna's reference splitmix64.c):
//   z = seed + (n + 1) * 0x9E3779B97F4A7C15            (mod 2^64)
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//   output_n = z ^ (z >> 31)
// Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_COMMON_SPLITMIX64_H_
#define HPTUNE_ALGORITHMS_COMMON_SPLITMIX64_H_

#include <cstdint>

namespace hptune::algorithms {

class SplitMix64 {
 public:
  // The stream of `seed`, positioned after `draws` outputs.
  explicit SplitMix64(uint64_t seed, uint64_t draws = 0)
      : seed_(seed), draws_(draws) {}

  uint64_t Next() {
    ++draws_;
    uint64_t z = seed_ + draws_ * kGamma;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform on [0, 1) with 53 random bits: top 53 bits of Next() * 2^-53.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform on {0, ..., n - 1}, n > 0, by Lemire's multiply-shift (the high
  // 64 bits of Next() * n; "Fast Random Integer Generation in an Interval",
  // ACM TOMACS 2019) without the rejection step: one draw per call, and a
  // bias below n / 2^64, far under anything a test could see.
  uint64_t NextBelow(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                                 64);
  }

  // Outputs drawn so far from this seed's stream.
  uint64_t draws() const { return draws_; }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

  uint64_t seed_;
  uint64_t draws_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_COMMON_SPLITMIX64_H_
