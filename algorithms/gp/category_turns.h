// Category turns: the GP designer's guard against abandoning a categorical
// value on the strength of a few trials.
//
// Why: once one category's optimum is refined, most trials sit there, the
// output warp (output_warping.h) ranks every other category's trials below
// that cluster, and the model's mean for an untried region of another
// category sinks with each new trial of the incumbent's; log EI and pure
// exploration then never leave the incumbent's category, even when another
// one holds a better, narrower optimum that its first few (space-filling)
// trials missed. Seen on the quality harness's optimizer_choice problem:
// the model's mean at adam's optimum fell from 1.35 to -0.44 standardised
// units over 60 trials while every trial refined rmsprop's 1-D optimum.
//
// Rule: for each categorical feature, take the rows (observations, then
// pending trials, in completion order) where it is active; its window is
//   W = max(kTurnWindowPerCategory * K, active rows / kTurnHistoryFraction)
// (K its number of values), so that forced trials thin out as the study
// grows. A value that is not the best observation's is due a turn
//  - at once, when its latest row is among the last W, holds a result, and
//    closed at least kStreakGain of the gap between the value's best before
//    it and the best value overall, and the value holds under half of the
//    last W rows (a branch that is catching up is followed up);
//  - else when no row among the last W holds it, the value that waited
//    longest relative to its window first.
// A turn is log EI restricted to the branch (the feature held at the
// value), searched around the branch's best observations, with the best
// posterior mean among the branch's observations as its incumbent: it
// seeks the branch's own improvement, where EI against the overall best
// would be variance alone, which puts trials on the edges of the box. A
// turn takes the first suggestion of a Suggest call (single objective).
// A branch seen narrowly is swept instead: when the model's mean over the
// branch's observed trials spans under kNarrowBranchSpan of its span over
// all observed trials, those trials have shown log EI little of the branch:
// it is flat there (a plateau), or they sit around one point of it. Log EI
// around them would keep them there while a narrow optimum elsewhere in the
// branch goes unseen. A sweep takes the branch's best observation and moves
// one continuous coordinate to the midpoint of a gap between the branch's
// trials in that coordinate (the box's edges count as trials); of all such
// points the one of highest log EI on the branch is suggested. Repeated
// sweeps spread the branch's trials along each coordinate, and once one
// finds a slope, sweeps from the new best bisect towards it. Conditional
// features are not swept. A value whose turn would be a sweep waits a
// shorter window, max(K, active rows / kSweepHistoryFraction): one sweep
// halves one gap along one coordinate, so a narrow optimum needs several,
// where a log EI turn refines what its branch has already shown. Measured
// in benchmarks/RESULTS.md ("Turns on narrow_category", fifth and sixth
// rounds).
// The values are a bandit's arms and turns its forced exploration, on a
// schedule that thins out like the epsilon_n-greedy rule's (exploration
// probability falling as 1/n: Auer, Cesa-Bianchi & Fischer, "Finite-time
// Analysis of the Multiarmed Bandit Problem", Machine Learning 2002), each
// pull the model's best point of its branch rather than a random one. Spaces
// without a categorical parameter are unaffected. Measured in
// benchmarks/RESULTS.md ("GP designer: design history", category turns). Used
// by GpModelBuilder and SuggestFromModel. Pure functions and an immutable
// acquisition wrapper; thread-safe.
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
