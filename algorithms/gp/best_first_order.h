// Indices of a vector of scores, best score first, ties in index order (the
// order std::stable_sort gives), sorted lazily: only the prefix read so far
// is put in order, so a reader that stops after a few of ~1,000 acquisition
// candidates does not pay for sorting them all. The scores may be a slice of
// a longer list that starts at `first_index`; indices are the long list's.
// Scores must be ordered (no NaN). Used by the acquisition optimiser
// (acquisition_optimizer.h).
// Thread-compatible: reading sorts, so one thread at a time.
#ifndef HPTUNE_ALGORITHMS_GP_BEST_FIRST_ORDER_H_
#define HPTUNE_ALGORITHMS_GP_BEST_FIRST_ORDER_H_

#include <cstddef>
#include <vector>

namespace hptune::algorithms::gp {

class BestFirstOrder {
 public:
  explicit BestFirstOrder(std::vector<double> scores, size_t first_index = 0);

  size_t size() const { return indices_.size(); }
  // The index with the k-th best score (k < size()).
  size_t operator[](size_t k);
  double score(size_t index) const { return scores_[index - first_index_]; }

 private:
  // Orders at least the first k + 1 positions.
  void SortThrough(size_t k);

  std::vector<double> scores_;
  size_t first_index_;
  std::vector<size_t> indices_;  // Into scores_.
  size_t sorted_ = 0;            // indices_[0, sorted_) are the best, in order.
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_BEST_FIRST_ORDER_H_
