#include "algorithms/gp/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "algorithms/common/simd_clones.h"
#include "hptune/core/check.h"

namespace hptune::algorithms::gp {
namespace {

// Jitters tried in turn, times s2.
constexpr double kJitters[] = {0.0, 1e-8, 1e-6, 1e-4};
// A pending row's pivot floor, times s2.
constexpr double kPendingPivotFloor = 1e-6;

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

GaussianProcess::GaussianProcess(TrainingData data, std::vector<double> theta)
    : x_(std::move(data.x)),
      y_(std::move(data.y)),
      kinds_(std::move(data.kinds)),
      theta_(std::move(theta)),
      kernel_(kinds_, std::span<const double>(theta_).subspan(0, kinds_.size()),
              std::exp(theta_[SignalIndex(static_cast<int>(kinds_.size()))])),
      noise_(std::exp(theta_[NoiseIndex(static_cast<int>(kinds_.size()))])),
      mean_(theta_[MeanIndex(static_cast<int>(kinds_.size()))]),
      num_observed_(static_cast<int>(x_.rows())) {}

absl::StatusOr<GaussianProcess> GaussianProcess::Create(
    TrainingData data, std::vector<double> theta,
    const GaussianProcess* reuse) {
  const int d = static_cast<int>(data.kinds.size());
  HPTUNE_CHECK(static_cast<int>(theta.size()) == PackedSize(d) &&
                   data.x.cols() == d && data.x.rows() == data.y.size(),
               "GaussianProcess::Create: inconsistent sizes");
  GaussianProcess gp(std::move(data), std::move(theta));
  int start = 0;
  if (reuse != nullptr && reuse->kinds_ == gp.kinds_ &&
      SameBits(reuse->theta_, gp.theta_) &&
      reuse->num_observed_ <= gp.num_observed_ && reuse->num_observed_ > 0) {
    const int m = reuse->num_observed_;
    const auto bytes = static_cast<size_t>(m) * d * sizeof(double);
    if (std::memcmp(reuse->x_.data(), gp.x_.data(), bytes) == 0) {
      gp.chol_ = reuse->chol_;
      gp.chol_.Truncate(m);
      gp.jitter_ = reuse->jitter_;
      start = m;
    }
  }
  bool factored = gp.FactorObservedFrom(start);
  if (factored) gp.reused_rows_ = start;
  // Jitters below the reused one failed on the shared prefix already.
  for (double jitter : kJitters) {
    if (factored) break;
    if (jitter <= gp.jitter_) continue;
    gp.jitter_ = jitter;
    gp.chol_ = BorderedCholesky();
    factored = gp.FactorObservedFrom(0);
  }
  if (!factored) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the kernel matrix of ", gp.num_observed_,
        " points is not positive definite even with jitter 1e-4 * signal "
        "variance"));
  }
  std::vector<double> alpha(gp.y_.data(), gp.y_.data() + gp.y_.size());
  for (double& a : alpha) a -= gp.mean_;
  gp.chol_.SolveLower(alpha);
  gp.chol_.SolveUpper(alpha);
  gp.alpha_ = Eigen::Map<const Eigen::VectorXd>(
      alpha.data(), static_cast<Eigen::Index>(alpha.size()));
  if (!gp.alpha_.allFinite()) {
    return absl::FailedPreconditionError(
        "the GP's weights are not finite (targets or hyperparameters out of "
        "range)");
  }
  return gp;
}

void GaussianProcess::KernelRow(int row, std::vector<double>& out) const {
  out.resize(static_cast<size_t>(row) + 1);
  const double* xr = x_.row(row).data();
  for (int j = 0; j <= row; ++j) out[j] = kernel_(xr, x_.row(j).data());
}

bool GaussianProcess::FactorObservedFrom(int start) {
  const double diagonal_extra = noise_ + jitter_ * kernel_.signal_variance();
  std::vector<double> row;
  for (int i = start; i < num_observed_; ++i) {
    KernelRow(i, row);
    row[i] += diagonal_extra;
    if (!chol_.AppendRow(row)) return false;
  }
  return true;
}

void GaussianProcess::AddPending(std::span<const double> x) {
  HPTUNE_CHECK(static_cast<int>(x.size()) == dimension(),
               "GaussianProcess::AddPending: wrong dimension");
  const auto n = static_cast<int>(x_.rows());
  x_.conservativeResize(n + 1, Eigen::NoChange);
  for (int i = 0; i < dimension(); ++i) x_(n, i) = x[i];
  std::vector<double> row;
  KernelRow(n, row);
  const double s2 = kernel_.signal_variance();
  row[n] += noise_ + jitter_ * s2;
  chol_.AppendRow(row, kPendingPivotFloor * s2);
}

void GaussianProcess::KernelColumn(std::span<const double> x,
                                   std::vector<double>& k,
                                   std::vector<double>* slopes) const {
  const auto n = static_cast<int>(x_.rows());
  k.resize(n);
  if (slopes != nullptr) slopes->resize(n);
  for (int i = 0; i < n; ++i) {
    k[i] = kernel_.SquaredDistance(x.data(), x_.row(i).data());
  }
  kernel_.FromSquaredDistances(
      k, slopes == nullptr ? std::span<double>() : std::span(*slopes));
}

GaussianProcess::Prediction GaussianProcess::Predict(
    std::span<const double> x) const {
  std::vector<double> k;
  KernelColumn(x, k, nullptr);
  Prediction p;
  p.mean = mean_ + Dot(k.data(), alpha_.data(), num_observed_);
  chol_.SolveLower(k);
  p.variance = std::max(
      kernel_.signal_variance() - Dot(k.data(), k.data(), chol_.size()), 0.0);
  return p;
}

GaussianProcess::Prediction GaussianProcess::PredictWithGradient(
    std::span<const double> x, std::span<double> d_mean,
    std::span<double> d_variance) const {
  const int d = dimension();
  const auto n = static_cast<int>(x_.rows());
  std::vector<double> k;
  std::vector<double> slopes;
  KernelColumn(x, k, &slopes);
  Prediction p;
  p.mean = mean_ + Dot(k.data(), alpha_.data(), num_observed_);
  std::vector<double> w = k;
  chol_.SolveLower(w);
  p.variance =
      std::max(kernel_.signal_variance() - Dot(w.data(), w.data(), n), 0.0);
  chol_.SolveUpper(w);  // A^-1 k.
  for (int j = 0; j < d; ++j) {
    d_mean[j] = 0;
    d_variance[j] = 0;
    if (kernel_.kind(j) == FeatureKind::kCategorical) continue;
    const double inv_l2 = kernel_.inverse_squared_lengthscale(j);
    double sum_mean = 0;
    double sum_variance = 0;
    for (int i = 0; i < n; ++i) {
      // dk_i/dx_j = -g_i (x_j - X_ij) / l_j^2.
      const double dk = -slopes[i] * (x[j] - x_(i, j)) * inv_l2;
      if (i < num_observed_) sum_mean += dk * alpha_[i];
      sum_variance += dk * w[i];
    }
    d_mean[j] = sum_mean;
    d_variance[j] = -2 * sum_variance;
  }
  return p;
}

namespace {

// out_c += sum_i w_i rows_ic over `count` rows of `columns` entries, summed
// in order of i (so each column's bits are its own).
HPTUNE_SIMD_CLONES
void AddWeightedRows(const double* rows, const double* weights, int count,
                     int columns, double* __restrict out) {
  for (int i = 0; i < count; ++i) {
    const double* __restrict row = rows + static_cast<size_t>(i) * columns;
    const double w = weights[i];
    for (int c = 0; c < columns; ++c) out[c] += w * row[c];
  }
}

// out_c += sum_i rows_ic^2, in order of i.
HPTUNE_SIMD_CLONES
void AddSquaredRows(const double* rows, int count, int columns,
                    double* __restrict out) {
  for (int i = 0; i < count; ++i) {
    const double* __restrict row = rows + static_cast<size_t>(i) * columns;
    for (int c = 0; c < columns; ++c) out[c] += row[c] * row[c];
  }
}

}  // namespace

void GaussianProcess::PredictBatch(const RowMatrix& xs, Eigen::VectorXd& mean,
                                   Eigen::VectorXd& variance) const {
  // Candidates in blocks of kBlock: the n x kBlock block of kernel values
  // stays in cache through the solve, whose loops run along a row of it
  // (one entry per candidate), vectorised.
  constexpr int kBlock = 32;
  const auto m = static_cast<int>(xs.rows());
  const auto n = static_cast<int>(x_.rows());
  const double s2 = kernel_.signal_variance();
  mean.resize(m);
  variance.resize(m);
  RowMatrix kt(n, std::min(m, kBlock));
  // The block's candidates feature-major, as MaternKernel::RowValues reads.
  Eigen::MatrixXd points;
  Eigen::VectorXd mean_sum, squares;
  for (int start = 0; start < m; start += kBlock) {
    const int size = std::min(kBlock, m - start);
    if (kt.cols() != size) kt.resize(n, size);
    points = xs.middleRows(start, size);
    for (int i = 0; i < n; ++i) {
      kernel_.RowValues(x_.row(i).data(), points.data(), size,
                        kt.row(i).data());
    }
    // mean = m + k^T alpha over the observed rows; variance = s2 - |L^-1 k|^2.
    mean_sum.setZero(size);
    AddWeightedRows(kt.data(), alpha_.data(), num_observed_, size,
                    mean_sum.data());
    chol_.SolveLowerColumns(std::span(kt.data(), kt.size()), size);
    squares.setZero(size);
    AddSquaredRows(kt.data(), n, size, squares.data());
    for (int c = 0; c < size; ++c) {
      mean[start + c] = mean_ + mean_sum[c];
      variance[start + c] = std::max(s2 - squares[c], 0.0);
    }
  }
}

Eigen::VectorXd GaussianProcess::MeanAtObservations() const {
  // A alpha = y - m with A = K + (noise + jitter) I, so the noise-free
  // posterior mean m + K alpha is y - (noise + jitter) alpha.
  const double diagonal_extra = noise_ + jitter_ * kernel_.signal_variance();
  return y_ - diagonal_extra * alpha_;
}

}  // namespace hptune::algorithms::gp
