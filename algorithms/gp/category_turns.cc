#include "algorithms/gp/category_turns.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hptune::algorithms::gp {

namespace {

// What the rows say of one value of a categorical feature.
struct ValueHistory {
  int waited = -1;    // Active rows after its latest; -1: none holds it.
  size_t latest = 0;  // Its latest row.
  int recent = 0;     // Rows among the last `window` active ones.
  // Best value of its rows before the latest (-inf when none).
  double best_before = -std::numeric_limits<double>::infinity();
};

bool Observed(std::span<const double> values, size_t r) {
  return r < values.size() && !std::isnan(values[r]);
}

// A coordinate a sweep may move.
bool Sweepable(const Feature& f) {
  return f.kind == FeatureKind::kContinuous && !f.conditional;
}

}  // namespace

int TurnWindow(int num_categories, int active_rows) {
  return std::max(kTurnWindowPerCategory * num_categories,
                  active_rows / kTurnHistoryFraction);
}

int SweepWindow(int num_categories, int active_rows) {
  return std::max(num_categories, active_rows / kSweepHistoryFraction);
}

bool HasSweepCoordinate(const FeatureEncoding& encoding) {
  return std::ranges::any_of(encoding.features(), Sweepable);
}

std::optional<CategoryTurn> DueCategoryTurn(
    const FeatureEncoding& encoding, std::span<const std::vector<double>> rows,
    std::span<const double> values, const SweptBranch& swept) {
  size_t best_row = rows.size();
  for (size_t r = 0; r < rows.size(); ++r) {
    if (Observed(values, r) &&
        (best_row == rows.size() || values[r] > values[best_row])) {
      best_row = r;
    }
  }
  if (best_row == rows.size()) return std::nullopt;
  const double global_best = values[best_row];

  std::optional<CategoryTurn> streak, waited_longest;
  double longest = 1;  // Waited / window of waited_longest.
  const std::vector<Feature>& features = encoding.features();
  for (int j = 0; j < static_cast<int>(features.size()); ++j) {
    const Feature& f = features[j];
    if (f.kind != FeatureKind::kCategorical) continue;
    auto active = [&](size_t r) { return rows[r][j] < f.num_categories; };
    int active_rows = 0;
    for (size_t r = 0; r < rows.size(); ++r) active_rows += active(r);
    const int window = TurnWindow(f.num_categories, active_rows);
    if (active_rows < window) continue;
    std::vector<ValueHistory> history(f.num_categories);
    int after = 0;  // Active rows after r.
    for (size_t r = rows.size(); r-- > 0;) {
      if (!active(r)) continue;
      ValueHistory& h = history[static_cast<int>(rows[r][j])];
      if (h.waited < 0) {
        h.waited = after;
        h.latest = r;
      } else if (Observed(values, r)) {
        h.best_before = std::max(h.best_before, values[r]);
      }
      if (after < window) ++h.recent;
      ++after;
    }
    for (int v = 0; v < f.num_categories; ++v) {
      if (rows[best_row][j] == v) continue;  // The incumbent's own value.
      const ValueHistory& h = history[v];
      const double waited = h.waited < 0 ? active_rows : h.waited;
      const bool improving =
          h.waited >= 0 && h.waited < window && 2 * h.recent < window &&
          std::isfinite(h.best_before) && Observed(values, h.latest) &&
          values[h.latest] > h.best_before &&
          values[h.latest] - h.best_before >=
              kStreakGain * (global_best - h.best_before);
      const CategoryTurn turn{.feature = j, .value = static_cast<double>(v)};
      if (improving && !streak) streak = turn;
      const double share =
          waited / (swept && swept(turn)
                        ? SweepWindow(f.num_categories, active_rows)
                        : window);
      if (share >= longest && (!waited_longest || share > longest)) {
        longest = share;
        waited_longest = turn;
      }
    }
  }
  return streak ? streak : waited_longest;
}

bool BranchSeenNarrowly(const RowMatrix& rows, const Eigen::VectorXd& mean,
                        CategoryTurn turn) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  double branch_low = low, branch_high = high;
  for (Eigen::Index r = 0; r < mean.size(); ++r) {
    low = std::min(low, mean[r]);
    high = std::max(high, mean[r]);
    if (rows(r, turn.feature) == turn.value) {
      branch_low = std::min(branch_low, mean[r]);
      branch_high = std::max(branch_high, mean[r]);
    }
  }
  if (branch_high < branch_low) return false;  // No observed trial.
  if (high <= low) return true;
  return branch_high - branch_low < kNarrowBranchSpan * (high - low);
}

std::vector<std::vector<double>> SweepPoints(const FeatureEncoding& encoding,
                                             const RowMatrix& rows,
                                             CategoryTurn turn,
                                             std::span<const double> base) {
  std::vector<std::vector<double>> points;
  const std::vector<Feature>& features = encoding.features();
  for (int j = 0; j < static_cast<int>(features.size()); ++j) {
    if (!Sweepable(features[j])) continue;
    std::vector<double> cuts = {0.0, 1.0};
    for (Eigen::Index r = 0; r < rows.rows(); ++r) {
      if (rows(r, turn.feature) == turn.value) cuts.push_back(rows(r, j));
    }
    std::sort(cuts.begin(), cuts.end());
    for (size_t k = 1; k < cuts.size(); ++k) {
      if (cuts[k] - cuts[k - 1] < 1e-9) continue;
      std::vector<double> x(base.begin(), base.end());
      x[j] = (cuts[k] + cuts[k - 1]) / 2;
      encoding.Snap(x);
      points.push_back(std::move(x));
    }
  }
  return points;
}

void CategoryTurnAcquisition::EvaluateBatch(const RowMatrix& xs,
                                            Eigen::VectorXd& values) const {
  acquisition_.EvaluateBatch(xs, values);
  for (Eigen::Index i = 0; i < xs.rows(); ++i) {
    if (xs(i, turn_.feature) != turn_.value) values[i] = kOutside;
  }
}

double CategoryTurnAcquisition::EvaluateWithGradient(
    std::span<const double> x, std::span<double> gradient) const {
  if (!InBranch(x)) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    return kOutside;
  }
  return acquisition_.EvaluateWithGradient(x, gradient);
}

}  // namespace hptune::algorithms::gp
