// The grid of a fully finite search space (INTEGER, DISCRETE and CATEGORICAL
// parameters only), enumerated by index without materialising it.
//
// Used by the grid designer, and by random and quasi-random search to sample
// among the unused points of a small space. Order: odometer order over the
// parameters as declared, the last parameter varying fastest; INTEGER values
// ascending from minValue, DISCRETE and CATEGORICAL values as declared. Index
// 0 is every parameter's first value. Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_ENCODING_FINITE_GRID_H_
#define HPTUNE_ALGORITHMS_ENCODING_FINITE_GRID_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

class FiniteGrid {
 public:
  // `space` must pass ValidateForEncoding. InvalidArgument when a parameter
  // is DOUBLE (naming it) or when the number of points overflows int64
  // (listing each parameter's count).
  static absl::StatusOr<FiniteGrid> Create(const SearchSpace& space);

  // The number of points: the product of the parameters' cardinalities (1
  // for a space with no parameters).
  int64_t size() const { return size_; }

  // The point at `index`, 0 <= index < size() (aborts otherwise).
  ParameterAssignment At(int64_t index) const;

 private:
  FiniteGrid(SearchSpace space, std::vector<int64_t> radices, int64_t size)
      : space_(std::move(space)), radices_(std::move(radices)), size_(size) {}

  SearchSpace space_;
  std::vector<int64_t> radices_;  // Cardinality of each parameter.
  int64_t size_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_FINITE_GRID_H_
