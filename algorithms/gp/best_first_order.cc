#include "algorithms/gp/best_first_order.h"

#include <algorithm>
#include <numeric>

namespace hptune::algorithms::gp {
namespace {

// Positions ordered by the first read. A later read past the ordered part
// doubles it: a selection over the rest (O(n)) and a sort of the new part.
constexpr size_t kFirstSorted = 32;

}  // namespace

BestFirstOrder::BestFirstOrder(std::vector<double> scores, size_t first_index)
    : scores_(std::move(scores)),
      first_index_(first_index),
      indices_(scores_.size()) {
  std::iota(indices_.begin(), indices_.end(), size_t{0});
}

size_t BestFirstOrder::operator[](size_t k) {
  if (k >= sorted_) SortThrough(k);
  return first_index_ + indices_[k];
}

void BestFirstOrder::SortThrough(size_t k) {
  const size_t end =
      std::min(indices_.size(), std::max({k + 1, 2 * sorted_, kFirstSorted}));
  // Descending score, then ascending index: a strict total order, so the
  // prefix equals that of a stable sort by score.
  const auto better = [this](size_t a, size_t b) {
    return scores_[a] > scores_[b] || (scores_[a] == scores_[b] && a < b);
  };
  const auto first = indices_.begin() + static_cast<std::ptrdiff_t>(sorted_);
  const auto last = indices_.begin() + static_cast<std::ptrdiff_t>(end);
  if (last != indices_.end())
    std::nth_element(first, last - 1, indices_.end(), better);
  std::sort(first, last, better);
  sorted_ = end;
}

}  // namespace hptune::algorithms::gp
