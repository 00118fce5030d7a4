// A Cholesky factor built one row at a time (the bordered, or "up-looking",
// algorithm), so that a GP conditioned on n points is extended to n + m
// points in O(m n^2) instead of being refactored in O(n^3).
//
// For a symmetric positive-definite A with A = L L^T, row i of L follows
// from row i of A and the rows above it (Golub & Van Loan, "Matrix
// Computations", 4th ed., 2013, section 4.2.5):
//   L_ij = (A_ij - sum_{k<j} L_ik L_jk) / L_jj      for j < i,
//   L_ii = sqrt(A_ii - sum_{k<i} L_ik^2).
// Every row is computed by the same loops whether the factor is built at
// once or extended later, with a fixed summation order, so both give the
// same bits: a designer extended with new trials suggests exactly what a
// fresh one restored from its saved state does. L is kept row-packed (row i
// holds its i + 1 entries contiguously) so each dot product reads two
// contiguous rows.
// Used by GaussianProcess. Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_BORDERED_CHOLESKY_H_
#define HPTUNE_ALGORITHMS_GP_BORDERED_CHOLESKY_H_

#include <cstddef>
#include <span>
#include <vector>

namespace hptune::algorithms::gp {

class BorderedCholesky {
 public:
  int size() const { return n_; }

  // Appends row n = size() of A: `row` holds A_n0 .. A_nn (n + 1 entries;
  // aborts otherwise). False, leaving the factor unchanged, when the pivot
  // A_nn - |L_n,0:n|^2 is not positive (A is not positive definite to
  // working precision). With `min_pivot_squared` > 0 a smaller pivot is
  // raised to it instead (a local jitter) and the row is always accepted.
  bool AppendRow(std::span<const double> row, double min_pivot_squared = 0);

  // Keeps the first `n` rows (n <= size()).
  void Truncate(int n);

  double At(int i, int j) const { return data_[Offset(i) + j]; }  // j <= i.

  // In place, b of size() entries (aborts otherwise): b <- L^-1 b (forward
  // substitution) and b <- L^-T b (back substitution). Each divides by L_ii
  // as a multiplication by 1 / L_ii, kept when the row is appended.
  void SolveLower(std::span<double> b) const;
  void SolveUpper(std::span<double> b) const;

  // In place, many right-hand sides at once: `b` holds size() rows of
  // `columns` entries (row-major), and each column becomes L^-1 times it.
  // Entry (i, c) is b_ic minus sum_{j<i} L_ij x_jc, summed in order of j,
  // times 1 / L_ii: the columns are independent, so a column's bits do not
  // depend on the others, and the loop over them is vectorised
  // (simd_clones.h). Aborts when b.size() != size() * columns.
  void SolveLowerColumns(std::span<double> b, int columns) const;

  // sum_i log L_ii = log det(A) / 2.
  double HalfLogDeterminant() const;

 private:
  static size_t Offset(int i) {
    return static_cast<size_t>(i) * static_cast<size_t>(i + 1) / 2;
  }

  int n_ = 0;
  std::vector<double> data_;  // Row-packed lower triangle.
  // 1 / L_ii: the solves multiply by it, as a division would lengthen each
  // row's chain of dependent steps.
  std::vector<double> inverse_pivots_;
};

// sum_k a_k b_k with four partial sums in a fixed order: the same bits for
// the same inputs wherever they lie in memory.
double Dot(const double* a, const double* b, int n);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_BORDERED_CHOLESKY_H_
