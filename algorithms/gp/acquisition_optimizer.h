// Maximises an acquisition function over the GP feature space of a search
// space, continuous, integer, discrete and categorical features together.
//
// 1. Candidates: `random_candidates` points of a scrambled Halton sequence
//    over the feature space (categorical indices from their coordinate), and
//    `local_candidates` perturbations of the anchor points (the best
//    observations, best first): half move every continuous coordinate by
//    N(0, s^2), half move one or two features (a categorical one to a random
//    other category), s drawn from {0.003, 0.015, 0.06, 0.2} per candidate.
//    The local ones refine the incumbent region to the precision a small
//    regret needs; the global ones find other basins, wherever the optimum
//    lies in the box (with random_candidates = 0 every start is near an
//    anchor, though step 2 may climb away unless local_radius bounds it).
//    With local_radius, a local candidate is clamped into its anchor's box.
//    Every candidate is snapped (gp_features.h) and scored in one batch.
// 2. L-BFGS (gp/lbfgs.h) from `restarts` distinct candidates, the best
//    global ones for half of them and the best local ones for the rest (the
//    local ones always score highest near the incumbent, and refining only
//    those would never look at another basin), over the continuous features
//    (INTEGER and DISCRETE relaxed to [0, 1], categorical ones held), within
//    the start's anchor box when there is one, then snapped.
// 3. Discrete hill climbing from each refined point: move to the best
//    neighbour (next integer or discrete value, any other category) while
//    that improves the score, at most `discrete_rounds` moves.
// Conditional spaces (gp_features.h): the search runs over active subspaces.
// Every candidate is snapped, so inactive features hold their imputed values;
// perturbations and hill-climbing moves touch active features only. A move
// of a parent that activates children fills each new child's coordinate from
// the first anchor where it is active half the time, else uniformly (an
// imputed value would put every new child at the same point). L-BFGS moves
// only the active continuous features that are no parent: an INTEGER or
// DISCRETE parent is held like a categorical one, so the active set stays
// fixed during the descent; step 3 may move it, and a point whose active
// set step 3 changed is refined once more (kept when that scores higher).
// The result ranks the refined points and then the candidates, best score
// first, without repeated vectors or non-finite scores, and is read lazily:
// the designer takes the first that decodes to an unused assignment, so the
// ~2,000 candidates are neither fully sorted nor compared for repeats on
// each suggestion. Deterministic for a seed. MaximizeAcquisition is
// stateless and thread-safe; a RankedPoints is for one thread.
#ifndef HPTUNE_ALGORITHMS_GP_ACQUISITION_OPTIMIZER_H_
#define HPTUNE_ALGORITHMS_GP_ACQUISITION_OPTIMIZER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_set>
#include <vector>

#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/best_first_order.h"

namespace hptune::algorithms::gp {

struct AcquisitionOptimizerOptions {
  int random_candidates = 1024;
  int local_candidates = 1024;
  int restarts = 8;
  int max_lbfgs_evaluations = 50;
  int discrete_rounds = 4;
  // When positive, steps 1 and 2 keep a search from an anchor in its box:
  // each numeric feature within this distance of the anchor's (unit-cube
  // coordinates), widened to the neighbouring INTEGER or DISCRETE values.
  // Step 3 may still move up to discrete_rounds grid values beyond it.
  double local_radius = 0;
};

struct ScoredPoint {
  std::vector<double> x;  // Snapped features.
  double score = 0;
};

// Points best score first, each vector once (its first occurrence), finite
// scores only: `refined`, already sorted by descending score, and the rows
// of `candidates` in each of `parts` (disjoint sets of rows, best first, with
// their scores), merged on demand; on equal scores the refined point leads,
// then the earlier part.
class RankedPoints {
 public:
  RankedPoints(std::vector<ScoredPoint> refined, RowMatrix candidates,
               std::vector<BestFirstOrder> parts);
  RankedPoints(RankedPoints&&) = default;
  RankedPoints& operator=(RankedPoints&&) = default;

  // The next point, or null when none is left; valid until the next call.
  const ScoredPoint* Next();
  // Every point not yet read, in order (tests and small spaces).
  std::vector<ScoredPoint> Rest();

 private:
  // Over a point's d features, read in place.
  struct HashX {
    int d;
    size_t operator()(const double* x) const;
  };
  struct EqualX {
    int d;
    bool operator()(const double* a, const double* b) const;
  };
  const ScoredPoint* TakeBest();
  double Head(size_t part);  // The score of the part's next row.

  std::vector<ScoredPoint> refined_;
  RowMatrix candidates_;
  std::vector<BestFirstOrder> parts_;  // Rows of candidates_, best first.
  size_t next_refined_ = 0;
  std::vector<size_t> next_in_part_;
  ScoredPoint current_;  // The candidate last handed out.
  size_t current_row_ = 0;
  // The points handed out, in the storage of refined_ and candidates_,
  // which stays put when a RankedPoints moves.
  std::unordered_set<const double*, HashX, EqualX> seen_;
};

// `anchors` are snapped feature vectors (may be empty).
RankedPoints MaximizeAcquisition(const AcquisitionFunction& acquisition,
                                 const FeatureEncoding& encoding,
                                 std::span<const std::vector<double>> anchors,
                                 uint64_t seed,
                                 const AcquisitionOptimizerOptions& options);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_ACQUISITION_OPTIMIZER_H_
