#include "algorithms/gp/bordered_cholesky.h"

#include <cmath>

#include "algorithms/common/simd_clones.h"
#include "hptune/core/check.h"

namespace hptune::algorithms::gp {
namespace {

// Dot's sum, inline in the vector clones below.
HPTUNE_CLONE_INLINE double InlineDot(const double* a, const double* b, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

constexpr int kTile = 4 * kLanes;  // Columns per tile.

// Columns [c0, c0 + kTile) of SolveLowerColumns, all rows, each entry
// summed in registers (four named sums: -O2 keeps an array of them in
// memory).
HPTUNE_CLONE_INLINE void SubstituteTile(const double* packed,
                                        const double* inverse_pivots, int n,
                                        double* b, int columns, int c0) {
  for (int i = 0; i < n; ++i) {
    const double* li = packed + static_cast<size_t>(i) * (i + 1) / 2;
    double* bi = b + static_cast<size_t>(i) * columns + c0;
    Lanes s0, s1, s2, s3, row;
    LoadLanes(bi, s0);
    LoadLanes(bi + kLanes, s1);
    LoadLanes(bi + 2 * kLanes, s2);
    LoadLanes(bi + 3 * kLanes, s3);
    for (int j = 0; j < i; ++j) {
      const double* bj = b + static_cast<size_t>(j) * columns + c0;
      const double l = li[j];
      LoadLanes(bj, row);
      s0 -= l * row;
      LoadLanes(bj + kLanes, row);
      s1 -= l * row;
      LoadLanes(bj + 2 * kLanes, row);
      s2 -= l * row;
      LoadLanes(bj + 3 * kLanes, row);
      s3 -= l * row;
    }
    const double inverse = inverse_pivots[i];
    s0 *= inverse;
    s1 *= inverse;
    s2 *= inverse;
    s3 *= inverse;
    StoreLanes(bi, s0);
    StoreLanes(bi + kLanes, s1);
    StoreLanes(bi + 2 * kLanes, s2);
    StoreLanes(bi + 3 * kLanes, s3);
  }
}

// The same operations on columns [c0, columns), fewer than a tile.
HPTUNE_CLONE_INLINE void SubstituteRest(const double* packed,
                                        const double* inverse_pivots, int n,
                                        double* b, int columns, int c0) {
  for (int i = 0; i < n; ++i) {
    const double* li = packed + static_cast<size_t>(i) * (i + 1) / 2;
    double* bi = b + static_cast<size_t>(i) * columns;
    for (int c = c0; c < columns; ++c) {
      double sum = bi[c];
      for (int j = 0; j < i; ++j) {
        sum -= li[j] * b[static_cast<size_t>(j) * columns + c];
      }
      bi[c] = sum * inverse_pivots[i];
    }
  }
}

// SolveLower and SolveUpper on the row-packed factor `packed` of n rows.
HPTUNE_SIMD_CLONES
void ForwardSubstitute(const double* packed, const double* inverse_pivots,
                       int n, double* b) {
  for (int i = 0; i < n; ++i) {
    const double* li = packed + static_cast<size_t>(i) * (i + 1) / 2;
    b[i] = (b[i] - InlineDot(li, b, i)) * inverse_pivots[i];
  }
}

HPTUNE_SIMD_CLONES
void BackSubstitute(const double* packed, const double* inverse_pivots, int n,
                    double* __restrict b) {
  // Column-oriented: after b_i is final, remove its share from b_0..b_i-1.
  for (int i = n - 1; i >= 0; --i) {
    const double* __restrict li = packed + static_cast<size_t>(i) * (i + 1) / 2;
    b[i] *= inverse_pivots[i];
    const double bi = b[i];
    for (int k = 0; k < i; ++k) b[k] -= li[k] * bi;
  }
}

// SolveLowerColumns on the row-packed factor `packed` of n rows.
HPTUNE_SIMD_CLONES
void ForwardSubstituteColumns(const double* packed,
                              const double* inverse_pivots, int n, double* b,
                              int columns) {
  int c0 = 0;
  for (; c0 + kTile <= columns; c0 += kTile) {
    SubstituteTile(packed, inverse_pivots, n, b, columns, c0);
  }
  if (c0 < columns) {
    SubstituteRest(packed, inverse_pivots, n, b, columns, c0);
  }
}

}  // namespace

double Dot(const double* a, const double* b, int n) {
  return InlineDot(a, b, n);
}

bool BorderedCholesky::AppendRow(std::span<const double> row,
                                 double min_pivot_squared) {
  HPTUNE_CHECK(row.size() == static_cast<size_t>(n_) + 1,
               "BorderedCholesky::AppendRow: row of the wrong length");
  const size_t start = Offset(n_);
  data_.resize(Offset(n_ + 1));
  double* l = data_.data() + start;
  for (int j = 0; j < n_; ++j) {
    const double* lj = data_.data() + Offset(j);
    l[j] = (row[j] - Dot(l, lj, j)) / lj[j];
  }
  double pivot_squared = row[n_] - Dot(l, l, n_);
  if (std::isfinite(pivot_squared) && pivot_squared < min_pivot_squared) {
    pivot_squared = min_pivot_squared;
  }
  if (!(pivot_squared > 0) || !std::isfinite(pivot_squared)) {
    data_.resize(start);
    return false;
  }
  l[n_] = std::sqrt(pivot_squared);
  inverse_pivots_.push_back(1 / l[n_]);
  ++n_;
  return true;
}

void BorderedCholesky::Truncate(int n) {
  HPTUNE_CHECK(n >= 0 && n <= n_, "BorderedCholesky::Truncate beyond size");
  n_ = n;
  data_.resize(Offset(n));
  inverse_pivots_.resize(n);
}

void BorderedCholesky::SolveLower(std::span<double> b) const {
  HPTUNE_CHECK(b.size() == static_cast<size_t>(n_),
               "BorderedCholesky::SolveLower: wrong length");
  ForwardSubstitute(data_.data(), inverse_pivots_.data(), n_, b.data());
}

void BorderedCholesky::SolveUpper(std::span<double> b) const {
  HPTUNE_CHECK(b.size() == static_cast<size_t>(n_),
               "BorderedCholesky::SolveUpper: wrong length");
  BackSubstitute(data_.data(), inverse_pivots_.data(), n_, b.data());
}

void BorderedCholesky::SolveLowerColumns(std::span<double> b,
                                         int columns) const {
  HPTUNE_CHECK(columns >= 0 && b.size() == static_cast<size_t>(n_) *
                                               static_cast<size_t>(columns),
               "BorderedCholesky::SolveLowerColumns: wrong length");
  if (columns > 0) {
    ForwardSubstituteColumns(data_.data(), inverse_pivots_.data(), n_, b.data(),
                             columns);
  }
}

double BorderedCholesky::HalfLogDeterminant() const {
  double sum = 0;
  for (int i = 0; i < n_; ++i) sum += std::log(At(i, i));
  return sum;
}

}  // namespace hptune::algorithms::gp
