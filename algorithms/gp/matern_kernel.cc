#include "algorithms/gp/matern_kernel.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "algorithms/common/lanes_exp.h"
#include "algorithms/common/simd_clones.h"
#include "hptune/core/check.h"

namespace hptune::algorithms::gp {
namespace {

// The kernel's values (and slopes, with kSlopes) from the r^2 in `values`,
// in place, in the order of FromSquaredDistance's and ValueAndSlope's
// expressions.
template <bool kSlopes>
HPTUNE_CLONE_INLINE void MaternLanes(Lanes& values, Lanes& slopes, double s2) {
  constexpr double kSqrt5 = MaternKernel::kSqrt5;
  Lanes r;
  for (int l = 0; l < kLanes; ++l) r[l] = std::sqrt(values[l]);
  Lanes e = -kSqrt5 * r;
  ExpLanes(e);
  if constexpr (kSlopes) {
    e = s2 * e;
    slopes = (5.0 / 3.0) * (1 + kSqrt5 * r) * e;
    values = (1 + kSqrt5 * r + (5.0 / 3.0) * values) * e;
  } else {
    values = s2 * (1 + kSqrt5 * r + (5.0 / 3.0) * values) * e;
  }
}

// MaternLanes over `count` entries, the last ones padded into lanes.
template <bool kSlopes>
HPTUNE_CLONE_INLINE void MaternInPlace(double* values, double* slopes,
                                       int count, double s2) {
  Lanes v, g;
  int c = 0;
  for (; c + kLanes <= count; c += kLanes) {
    LoadLanes(values + c, v);
    MaternLanes<kSlopes>(v, g, s2);
    StoreLanes(values + c, v);
    if constexpr (kSlopes) StoreLanes(slopes + c, g);
  }
  if (c == count) return;
  double rest[kLanes] = {};
  for (int l = 0; c + l < count; ++l) rest[l] = values[c + l];
  LoadLanes(rest, v);
  MaternLanes<kSlopes>(v, g, s2);
  for (int l = 0; c + l < count; ++l) values[c + l] = v[l];
  if constexpr (kSlopes) {
    for (int l = 0; c + l < count; ++l) slopes[c + l] = g[l];
  }
}

HPTUNE_SIMD_CLONES
void MaternValuesInPlace(double* values, double* slopes, int count, double s2) {
  if (slopes == nullptr) {
    MaternInPlace<false>(values, nullptr, count, s2);
  } else {
    MaternInPlace<true>(values, slopes, count, s2);
  }
}

// MaternKernel::RowValues with the kernel's parts as arrays.
HPTUNE_SIMD_CLONES
void MaternRowValues(const double* row, const double* points, int count,
                     std::span<const int> continuous,
                     std::span<const int> categorical, const double* inv_l2,
                     double s2, double* __restrict out) {
  std::fill(out, out + count, 0.0);
  for (int f : continuous) {
    const double* __restrict column = points + static_cast<size_t>(f) * count;
    const double a = row[f], w = inv_l2[f];
    for (int c = 0; c < count; ++c) {
      const double diff = column[c] - a;
      out[c] += diff * diff * w;
    }
  }
  for (int f : categorical) {
    const double* __restrict column = points + static_cast<size_t>(f) * count;
    const double a = row[f], w = inv_l2[f];
    for (int c = 0; c < count; ++c) out[c] += column[c] != a ? w : 0.0;
  }
  MaternInPlace<false>(out, nullptr, count, s2);
}

}  // namespace

MaternKernel::MaternKernel(std::vector<FeatureKind> kinds,
                           std::span<const double> log_lengthscales,
                           double signal_variance)
    : kinds_(std::move(kinds)), signal_variance_(signal_variance) {
  HPTUNE_CHECK(kinds_.size() == log_lengthscales.size(),
               absl::StrCat("MaternKernel with ", kinds_.size(), " kinds and ",
                            log_lengthscales.size(), " lengthscales"));
  for (size_t i = 0; i < kinds_.size(); ++i) {
    (kinds_[i] == FeatureKind::kCategorical ? categorical_ : continuous_)
        .push_back(static_cast<int>(i));
    inv_l2_.push_back(std::exp(-2 * log_lengthscales[i]));
  }
}

void MaternKernel::FromSquaredDistances(std::span<double> values,
                                        std::span<double> slopes) const {
  HPTUNE_CHECK(slopes.empty() || slopes.size() == values.size(),
               "MaternKernel::FromSquaredDistances: slopes of the wrong size");
  MaternValuesInPlace(values.data(), slopes.empty() ? nullptr : slopes.data(),
                      static_cast<int>(values.size()), signal_variance_);
}

void MaternKernel::RowValues(const double* row, const double* points, int count,
                             double* out) const {
  MaternRowValues(row, points, count, continuous_, categorical_, inv_l2_.data(),
                  signal_variance_, out);
}

}  // namespace hptune::algorithms::gp
