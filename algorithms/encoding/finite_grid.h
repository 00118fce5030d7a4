// The grid of a fully finite search space (INTEGER, DISCRETE and CATEGORICAL
// parameters only), enumerated by index without materialising it.
//
// Used by the grid designer, and by random and quasi-random search to sample
// among the unused points of a small space. A point holds only the
// parameters it activates, so a conditional space (search_space.h) has
// exactly its active combinations, SearchSpace::PointCount of them: with
// C(p, v) the children that value v of parameter p activates,
//   count(p) = sum over v of prod over c in C(p, v) of count(c)
//   size     = prod over the root parameters r of count(r).
// Order: odometer order over the roots as declared, the last varying
// fastest; within a parameter, its values in order (INTEGER ascending from
// minValue, DISCRETE and CATEGORICAL as declared), each value followed by
// the odometer over the children it activates. Without conditions this is
// the plain odometer over all parameters; index 0 is every parameter's first
// value. Value type; thread-compatible.
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

  // The number of points (1 for a space with no parameters).
  int64_t size() const { return size_; }

  // The point at `index`, 0 <= index < size() (aborts otherwise).
  ParameterAssignment At(int64_t index) const;

 private:
  // A value of a parameter that activates children, and the number of
  // points below it (the product of those children's counts).
  struct Branch {
    int64_t value_index = 0;
    std::vector<int> children;
    int64_t points = 1;
  };
  struct Node {
    int64_t values = 0;            // The parameter's cardinality.
    std::vector<Branch> branches;  // By value_index, ascending.
    int64_t count = 0;             // Points of the subtree.
  };

  FiniteGrid(SearchSpace space, std::vector<Node> nodes, std::vector<int> roots,
             int64_t size)
      : space_(std::move(space)),
        nodes_(std::move(nodes)),
        roots_(std::move(roots)),
        size_(size) {}

  // Fills `point` with the odometer digit `index` over `group`.
  void FillGroup(const std::vector<int>& group, int64_t index,
                 ParameterAssignment& point) const;
  // Fills parameter `i` and its active descendants for subtree index `k`.
  void FillNode(int i, int64_t k, ParameterAssignment& point) const;
  void Emplace(int i, int64_t value_index, ParameterAssignment& point) const;

  SearchSpace space_;
  std::vector<Node> nodes_;  // One per parameter.
  std::vector<int> roots_;
  int64_t size_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_FINITE_GRID_H_
