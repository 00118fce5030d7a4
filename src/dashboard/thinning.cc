#include "src/dashboard/thinning.h"

#include <algorithm>
#include <numeric>

namespace hptune::dashboard {

std::vector<size_t> EvenlySpread(size_t n, size_t max_points) {
  std::vector<size_t> kept;
  if (n == 0 || max_points == 0) return kept;
  if (n <= max_points) {
    kept.resize(n);
    std::iota(kept.begin(), kept.end(), 0);
    return kept;
  }
  if (max_points == 1) return {n - 1};
  for (size_t k = 0; k < max_points; ++k) {
    kept.push_back(k * (n - 1) / (max_points - 1));
  }
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

std::vector<size_t> ThinHistory(const std::vector<double>& values,
                                const std::vector<double>& best,
                                size_t max_points) {
  const size_t n = values.size();
  if (n <= max_points) return EvenlySpread(n, n);
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || best[i] != best[i - 1]) kept.push_back(i);
  }
  const auto [lowest, highest] =
      std::minmax_element(values.begin(), values.end());
  kept.push_back(lowest - values.begin());
  kept.push_back(highest - values.begin());
  const size_t room = max_points > kept.size() ? max_points - kept.size() : 0;
  for (size_t i : EvenlySpread(n, room)) kept.push_back(i);
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

std::vector<size_t> SampleBestAndSpread(const std::vector<double>& values,
                                        bool maximize, size_t max_points) {
  const size_t n = values.size();
  if (n <= max_points) return EvenlySpread(n, n);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const size_t best_count = max_points / 10;
  std::partial_sort(order.begin(), order.begin() + best_count, order.end(),
                    [&](size_t a, size_t b) {
                      return maximize ? values[a] > values[b]
                                      : values[a] < values[b];
                    });
  std::vector<size_t> kept(order.begin(), order.begin() + best_count);
  std::vector<size_t> rest(order.begin() + best_count, order.end());
  std::sort(rest.begin(), rest.end());
  for (size_t i : EvenlySpread(rest.size(), max_points - best_count)) {
    kept.push_back(rest[i]);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace hptune::dashboard
