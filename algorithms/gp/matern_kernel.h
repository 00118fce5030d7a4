// The Matérn-5/2 ARD kernel over mixed continuous and categorical features,
// the covariance of the GP designer's model.
//
// Space: GP features (encoding/gp_features.h): continuous coordinates in
// [0, 1], categorical indices compared by equality. With one lengthscale l_i
// per feature and signal variance s2,
//   r^2(a, b) = sum_{continuous i} ((a_i - b_i) / l_i)^2
//             + sum_{categorical j} [a_j != b_j] / l_j^2
//   k(a, b)   = s2 (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
// (Rasmussen & Williams, "Gaussian Processes for Machine Learning", 2006,
// eq. 4.17). [a_j != b_j] = |e(a_j) - e(b_j)|^2 / 2 for one-hot vectors e,
// so r is a Euclidean distance between scaled one-hot embeddings and k stays
// positive definite: a categorical parameter is a one-hot block sharing one
// lengthscale, not an ordered number.
// Conditional spaces need no other kernel: gp_features.h imputes inactive
// parameters (a constant coordinate, or one more category), an embedding
// into the same space, so k stays positive definite on it.
// Derivatives, with the slope g(r) = s2 (5/3) (1 + sqrt5 r) exp(-sqrt5 r)
// (finite at r = 0, so no case for coincident points):
//   dk/d(log l_i) = g(r) d_i(a, b),  d_i the i-th term of r^2 above,
//   dk/d(a_i)     = -g(r) (a_i - b_i) / l_i^2   (continuous features).
// Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_GP_MATERN_KERNEL_H_
#define HPTUNE_ALGORITHMS_GP_MATERN_KERNEL_H_

#include <cmath>
#include <span>
#include <vector>

#include "algorithms/encoding/gp_features.h"

namespace hptune::algorithms::gp {

class MaternKernel {
 public:
  static constexpr double kSqrt5 = 2.23606797749978969641;

  // One kind and one log-lengthscale per feature (same sizes; aborts
  // otherwise).
  MaternKernel(std::vector<FeatureKind> kinds,
               std::span<const double> log_lengthscales,
               double signal_variance);

  int dimension() const { return static_cast<int>(kinds_.size()); }
  double signal_variance() const { return signal_variance_; }
  FeatureKind kind(int i) const { return kinds_[i]; }
  // 1 / l_i^2.
  double inverse_squared_lengthscale(int i) const { return inv_l2_[i]; }

  // r^2(a, b); a and b have dimension() coordinates.
  double SquaredDistance(const double* a, const double* b) const {
    double r2 = 0;
    for (int i : continuous_) {
      const double diff = a[i] - b[i];
      r2 += diff * diff * inv_l2_[i];
    }
    for (int i : categorical_) {
      if (a[i] != b[i]) r2 += inv_l2_[i];
    }
    return r2;
  }

  // d_i(a, b): feature i's term of r^2.
  double Term(int i, double a, double b) const {
    if (kinds_[i] == FeatureKind::kCategorical)
      return a != b ? inv_l2_[i] : 0.0;
    const double diff = a - b;
    return diff * diff * inv_l2_[i];
  }

  // k as a function of r^2.
  double FromSquaredDistance(double r2) const {
    const double r = std::sqrt(r2);
    return signal_variance_ * (1 + kSqrt5 * r + (5.0 / 3.0) * r2) *
           std::exp(-kSqrt5 * r);
  }

  // g(r) as a function of r^2.
  double SlopeFromSquaredDistance(double r2) const {
    const double r = std::sqrt(r2);
    return signal_variance_ * (5.0 / 3.0) * (1 + kSqrt5 * r) *
           std::exp(-kSqrt5 * r);
  }

  // k and g together from r^2 (one sqrt and one exp).
  void ValueAndSlope(double r2, double& value, double& slope) const {
    const double r = std::sqrt(r2);
    const double e = signal_variance_ * std::exp(-kSqrt5 * r);
    value = (1 + kSqrt5 * r + (5.0 / 3.0) * r2) * e;
    slope = (5.0 / 3.0) * (1 + kSqrt5 * r) * e;
  }

  // In place, each r^2 of `values` becomes k, and its g goes to `slopes`
  // when that is not empty (then of the same size): FromSquaredDistance and
  // ValueAndSlope vectorised, with lanes_exp.h's exp (within a few ulp).
  void FromSquaredDistances(std::span<double> values,
                            std::span<double> slopes = {}) const;

  // out[c] = k(row, point c) for `count` points stored feature-major:
  // points[f * count + c] is point c's feature f. r^2 is summed as in
  // SquaredDistance, then as FromSquaredDistances.
  void RowValues(const double* row, const double* points, int count,
                 double* out) const;

  double operator()(const double* a, const double* b) const {
    return FromSquaredDistance(SquaredDistance(a, b));
  }

 private:
  std::vector<FeatureKind> kinds_;
  // Feature indices by kind, so the distance loops do not branch.
  std::vector<int> continuous_;
  std::vector<int> categorical_;
  std::vector<double> inv_l2_;
  double signal_variance_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MATERN_KERNEL_H_
