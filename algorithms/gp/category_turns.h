// Category turns: the GP designer's guard against abandoning a categorical
// value on the strength of a few trials (docs/designers.md).
//
// Why: once one category's optimum is refined, most trials sit there, the
// output warp (output_warping.h) ranks other categories' trials below that
// cluster, and log EI never leaves the incumbent's category, even when
// another holds a better, narrower optimum its first trials missed.
//
// Rule: for each categorical feature, over the rows (observations, then
// pending trials) where it is active, a value's window is
//   W = max(kTurnWindowPerCategory * K, active rows / kTurnHistoryFraction)
// (K its number of values). A value that is not the best observation's is
// due a turn at once when its latest row is among the last W, holds a
// result that closed at least kStreakGain of its gap to the best, and the
// value holds under half of the last W rows; else when no row among the
// last W holds it (longest wait relative to its window first). A turn is
// log EI restricted to the branch, around the branch's best observations,
// against the branch's best posterior mean. A branch seen narrowly (the
// model's mean over its trials spans under kNarrowBranchSpan of the span
// over all trials) is swept instead: its best observation with one
// continuous coordinate moved to the midpoint of a gap between the
// branch's trials (the box's edges count), the candidate of highest log EI;
// such a value waits max(K, active rows / kSweepHistoryFraction).
// Conditional features are not swept. This is forced exploration on a
// schedule that thins out as the epsilon_n-greedy rule's (Auer,
// Cesa-Bianchi & Fischer, "Finite-time Analysis of the Multiarmed Bandit
// Problem", Machine Learning 2002). Spaces without a categorical parameter
// are unaffected. Measurements: benchmarks/RESULTS.md, design history.
// Used by GpModelBuilder and SuggestFromModel. Pure functions and an
// immutable acquisition wrapper; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_CATEGORY_TURNS_H_
#define HPTUNE_ALGORITHMS_GP_CATEGORY_TURNS_H_

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/acquisition.h"

namespace hptune::algorithms::gp {

// A value's window: this many trials per value of its categorical, or
// 1 / kTurnHistoryFraction of the rows where it is active if more. One per
// value (not two) gives each value its first turns early, while its
// space-filling trials are all it has.
inline constexpr int kTurnWindowPerCategory = 1;
inline constexpr int kTurnHistoryFraction = 4;
// The history fraction of a value whose turn would be a sweep (above).
inline constexpr int kSweepHistoryFraction = 8;
// A turn whose trial closed this fraction of its branch's gap to the best
// value gets another at once.
inline constexpr double kStreakGain = 0.1;

// The window of a categorical of `num_categories` values active in
// `active_rows` rows.
int TurnWindow(int num_categories, int active_rows);
// The window of a value whose turn would be a sweep.
int SweepWindow(int num_categories, int active_rows);

struct CategoryTurn {
  int feature = 0;   // Index of a categorical feature.
  double value = 0;  // Its category index, active (< num_categories).
};

// A branch is seen narrowly when its span of posterior means is under this
// fraction of the span over all observed trials.
inline constexpr double kNarrowBranchSpan = 0.4;

// Whether the branch of `turn` is seen narrowly (above), from the posterior
// means `mean` at the observed rows of `rows` (one per row; rows past
// mean.size() are pending and ignored). A branch with no observed trial is
// not: a turn there is log EI's.
bool BranchSeenNarrowly(const RowMatrix& rows, const Eigen::VectorXd& mean,
                        CategoryTurn turn);

// The sweep points of the branch of `turn` from `base` (a feature vector in
// the branch, e.g. its best observation): for each continuous feature that
// is not conditional, `base` with that coordinate at the midpoint of each
// gap between the coordinates of `rows` in the branch (observed and
// pending), 0 and 1 included. Snapped (gp_features.h); features in order,
// then gaps from low to high.
std::vector<std::vector<double>> SweepPoints(const FeatureEncoding& encoding,
                                             const RowMatrix& rows,
                                             CategoryTurn turn,
                                             std::span<const double> base);

// Whether `encoding` has a coordinate to sweep: a continuous feature that
// is not conditional.
bool HasSweepCoordinate(const FeatureEncoding& encoding);

// Whether a value's turn would sweep its branch (null: none would).
using SweptBranch = std::function<bool(CategoryTurn)>;

// The turn due for `rows` (feature vectors in the order trials ended, the
// pending ones last), or nullopt when no value is due one (above). A value
// for which `swept` holds waits its SweepWindow instead of the TurnWindow.
std::optional<CategoryTurn> DueCategoryTurn(
    const FeatureEncoding& encoding, std::span<const std::vector<double>> rows,
    std::span<const double> values, const SweptBranch& swept = nullptr);

// `acquisition` on the branch where feature `turn.feature` holds
// `turn.value`; the lowest finite score elsewhere, so that the optimiser's
// results put those points last.
class CategoryTurnAcquisition : public AcquisitionFunction {
 public:
  // `acquisition` must outlive this object.
  CategoryTurnAcquisition(const AcquisitionFunction& acquisition,
                          CategoryTurn turn)
      : acquisition_(acquisition), turn_(turn) {}

  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override;
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override;

  bool InBranch(std::span<const double> x) const {
    return x[turn_.feature] == turn_.value;
  }

  static constexpr double kOutside = -1e300;

 private:
  const AcquisitionFunction& acquisition_;
  CategoryTurn turn_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_CATEGORY_TURNS_H_
