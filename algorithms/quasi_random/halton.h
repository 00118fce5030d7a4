// The Halton sequence with random digit permutations: a low-discrepancy
// sequence of points in [0, 1)^d, the stream of quasi-random search.
//
// Halton (J. H. Halton, "On the efficiency of certain quasi-random sequences
// of points in evaluating multi-dimensional integrals", Numerische
// Mathematik 2, 1960): coordinate j of point i is the radical inverse of i in
// base b_j, the j-th prime,
//   phi_b(i) = sum_k a_k(i) b^-(k+1),   i = sum_k a_k(i) b^k.
// Scrambled (A. B. Owen, "A randomized Halton algorithm in R",
// arXiv:1706.02808, 2017): each digit position k of each coordinate j gets
// its own uniformly random permutation sigma_jk of {0, ..., b_j - 1}, and
//   u_j(i) = sum_{k < K_j} sigma_jk(a_k(i)) b_j^-(k+1),
// with K_j the smallest K such that b_j^K >= 2^53 (beyond it the digits are
// below double precision). Scrambling keeps the stratification that gives
// Halton its low discrepancy (the first b^m points put one point in each
// b-adic interval of length b^-m, per coordinate), makes each point uniform
// on the cube, and breaks the strong correlation between coordinates with
// large, close bases that the plain sequence shows for its first points.
// The permutations come from SplitMix64(seed) by Fisher-Yates shuffles, in
// the order coordinate 0 digit 0, coordinate 0 digit 1, ...
//
// Used by quasi-random search (sampling/point_source.h) and the GP
// designer's seeding. Immutable after construction; thread-safe.
#ifndef HPTUNE_ALGORITHMS_QUASI_RANDOM_HALTON_H_
#define HPTUNE_ALGORITHMS_QUASI_RANDOM_HALTON_H_

#include <cstdint>
#include <vector>

namespace hptune::algorithms {

class ScrambledHalton {
 public:
  // The permutations hold sum_j K_j b_j entries: 0.3 MB for 100
  // coordinates, 37 MB for 1000. Past that, bases in the thousands give a
  // poorly spread sequence anyway; RANDOM_SEARCH is the better tool.
  static constexpr int kMaxDimension = 1000;

  // 0 <= `dimension` <= kMaxDimension coordinates (aborts otherwise),
  // permutations drawn from `seed`.
  ScrambledHalton(int dimension, uint64_t seed);

  // The plain Halton sequence (identity permutations), for comparisons.
  static ScrambledHalton Unscrambled(int dimension);

  int dimension() const { return static_cast<int>(axes_.size()); }

  // Point `index` (0, 1, 2, ...); every coordinate in [0, 1).
  std::vector<double> Point(uint64_t index) const;
  // The same into out[0, dimension()), for callers filling a matrix.
  void Point(uint64_t index, double* out) const;

  // The first `n` primes, 2, 3, 5, ...
  static std::vector<int> FirstPrimes(int n);

 private:
  struct Axis {
    int base;
    int digits;  // K_j.
    // permutations[k * base + digit]: sigma for digit position k, in one
    // block (a suggestion builds these each time).
    std::vector<uint16_t> permutations;
  };
  explicit ScrambledHalton(std::vector<Axis> axes) : axes_(std::move(axes)) {}
  static double RadicalInverse(const Axis& axis, uint64_t index);

  std::vector<Axis> axes_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_QUASI_RANDOM_HALTON_H_
