// The warm-up the median and dominance stopping rules share: no trial is
// judged before a fraction of the longest completed curve, so early,
// noisy steps never stop one. Used by median_stopping_policy.cc and
// dominance_stopping_policy.cc. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_WARM_UP_H_
#define HPTUNE_ALGORITHMS_STOPPING_WARM_UP_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::algorithms {

// The first step at which a trial may be judged: ceil(fraction * longest),
// at least 1.
inline int64_t FirstJudgedStep(double fraction, int64_t longest) {
  return std::max<int64_t>(
      1,
      static_cast<int64_t>(std::ceil(fraction * static_cast<double>(longest))));
}

// Why a trial at `step` is not judged yet.
inline std::string TooEarlyReason(int64_t step, int64_t first_step,
                                  double fraction, int64_t longest) {
  return absl::StrCat("step ", step, " is before step ", first_step, " (",
                      fraction, " of the longest completed curve, ", longest,
                      " steps)");
}

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_WARM_UP_H_
