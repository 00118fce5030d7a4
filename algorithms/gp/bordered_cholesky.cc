#include "algorithms/gp/bordered_cholesky.h"

#include <cmath>

#include "hptune/core/check.h"

namespace hptune::algorithms::gp {
namespace {}  // namespace

double Dot(const double* a, const double* b, int n) {
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
  ++n_;
  return true;
}

void BorderedCholesky::Truncate(int n) {
  HPTUNE_CHECK(n >= 0 && n <= n_, "BorderedCholesky::Truncate beyond size");
  n_ = n;
  data_.resize(Offset(n));
}

void BorderedCholesky::SolveLower(std::span<double> b) const {
  HPTUNE_CHECK(b.size() == static_cast<size_t>(n_),
               "BorderedCholesky::SolveLower: wrong length");
  for (int i = 0; i < n_; ++i) {
    const double* li = data_.data() + Offset(i);
    b[i] = (b[i] - Dot(li, b.data(), i)) / li[i];
  }
}

void BorderedCholesky::SolveUpper(std::span<double> b) const {
  HPTUNE_CHECK(b.size() == static_cast<size_t>(n_),
               "BorderedCholesky::SolveUpper: wrong length");
  // Column-oriented: after b_i is final, remove its share from b_0..b_i-1.
  for (int i = n_ - 1; i >= 0; --i) {
    const double* li = data_.data() + Offset(i);
    b[i] /= li[i];
    const double bi = b[i];
    for (int k = 0; k < i; ++k) b[k] -= li[k] * bi;
  }
}

double BorderedCholesky::HalfLogDeterminant() const {
  double sum = 0;
  for (int i = 0; i < n_; ++i) sum += std::log(At(i, i));
  return sum;
}

Eigen::MatrixXd BorderedCholesky::ToDense() const {
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(n_, n_);
  for (int i = 0; i < n_; ++i) {
    for (int j = 0; j <= i; ++j) l(i, j) = At(i, j);
  }
  return l;
}

}  // namespace hptune::algorithms::gp
