#include "algorithms/quasi_random/halton.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "algorithms/common/splitmix64.h"

namespace hptune::algorithms {
namespace {

// K: the smallest number of base-b digits that resolves 2^-53.
int DigitsFor(int base) {
  int digits = 0;
  for (double power = 1; power < 0x1.0p53; power *= base) ++digits;
  return digits;
}

// `digits` identity permutations of {0, ..., base - 1}, one after another.
std::vector<uint16_t> Identities(int base, int digits) {
  std::vector<uint16_t> permutations(static_cast<size_t>(base) * digits);
  for (size_t i = 0; i < permutations.size(); ++i) {
    permutations[i] = static_cast<uint16_t>(i % base);
  }
  return permutations;
}

}  // namespace

std::vector<int> ScrambledHalton::FirstPrimes(int n) {
  std::vector<int> primes;
  for (int candidate = 2; static_cast<int>(primes.size()) < n; ++candidate) {
    bool prime = true;
    for (int p : primes) {
      if (p * p > candidate) break;
      if (candidate % p == 0) {
        prime = false;
        break;
      }
    }
    if (prime) primes.push_back(candidate);
  }
  return primes;
}

ScrambledHalton::ScrambledHalton(int dimension, uint64_t seed) {
  HPTUNE_CHECK(dimension >= 0 && dimension <= kMaxDimension,
               absl::StrCat("ScrambledHalton(", dimension, ")"));
  SplitMix64 rng(seed);
  for (int base : FirstPrimes(dimension)) {
    const int digits = DigitsFor(base);
    Axis axis{base, digits, Identities(base, digits)};
    for (int k = 0; k < digits; ++k) {
      uint16_t* permutation = axis.permutations.data() + k * base;
      // Fisher-Yates: position i takes a uniform pick of [0, i].
      for (int i = base - 1; i > 0; --i) {
        auto j = static_cast<int>(rng.NextBelow(static_cast<uint64_t>(i) + 1));
        std::swap(permutation[i], permutation[j]);
      }
    }
    axes_.push_back(std::move(axis));
  }
}

ScrambledHalton ScrambledHalton::Unscrambled(int dimension) {
  std::vector<Axis> axes;
  for (int base : FirstPrimes(dimension)) {
    const int digits = DigitsFor(base);
    axes.push_back({base, digits, Identities(base, digits)});
  }
  return ScrambledHalton(std::move(axes));
}

double ScrambledHalton::RadicalInverse(const Axis& axis, uint64_t index) {
  const auto base = static_cast<uint64_t>(axis.base);
  const double inverse_base = 1.0 / axis.base;
  double scale = inverse_base;
  double u = 0;
  // All K digits, not only the non-zero ones: sigma(0) need not be 0. Once
  // the index is used up its digits are 0, which needs no division (most of
  // the K digits of a small index).
  for (int k = 0; k < axis.digits; ++k) {
    uint64_t digit = 0;
    if (index != 0) {
      digit = index % base;
      index /= base;
    }
    u += axis.permutations[k * base + digit] * scale;
    scale *= inverse_base;
  }
  // The digit sum is < 1 exactly but may round up to 1.0.
  return std::min(u, std::nextafter(1.0, 0.0));
}

std::vector<double> ScrambledHalton::Point(uint64_t index) const {
  std::vector<double> point(axes_.size());
  Point(index, point.data());
  return point;
}

void ScrambledHalton::Point(uint64_t index, double* out) const {
  for (size_t j = 0; j < axes_.size(); ++j) {
    out[j] = RadicalInverse(axes_[j], index);
  }
}

}  // namespace hptune::algorithms
