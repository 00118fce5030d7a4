#include "src/dashboard/edf.h"

#include <algorithm>
#include <cmath>

#include "src/dashboard/thinning.h"

namespace hptune::dashboard {

Edf EmpiricalDistribution(std::vector<double> values, bool maximize,
                          size_t max_points) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  std::sort(values.begin(), values.end());
  Edf edf;
  edf.total = values.size();
  if (values.empty()) return edf;
  const double n = static_cast<double>(values.size());
  // Every distinct value with F there: #{v <= y} is the index past its last
  // copy; #{v >= y} the count from its first copy on.
  std::vector<EdfPoint> all;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    const size_t reached = maximize ? values.size() - i : j;
    all.push_back({values[i], static_cast<double>(reached) / n});
    i = j;
  }
  edf.distinct = all.size();
  for (size_t k : EvenlySpread(all.size(), std::max<size_t>(2, max_points))) {
    edf.points.push_back(all[k]);
  }
  return edf;
}

}  // namespace hptune::dashboard
