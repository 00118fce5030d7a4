#include "algorithms/gp/acquisition_optimizer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/lbfgs.h"
#include "algorithms/gp/normal_draw.h"
#include "algorithms/quasi_random/halton.h"

namespace hptune::algorithms::gp {
namespace {

// Perturbation scales of the local candidates, in unit-cube coordinates.
constexpr double kScales[] = {0.003, 0.015, 0.06, 0.2};
// Start points closer than this (max norm) count as one.
constexpr double kDistinctStarts = 1e-4;
// Salt for the Halton permutations (independent of the perturbation stream).
constexpr uint64_t kHaltonSalt = 0x5ca1ab1e0ddba11ull;

double Coordinate(const Feature& f, double u) {
  if (f.kind == FeatureKind::kCategorical) {
    return std::min(std::floor(u * f.num_categories),
                    static_cast<double>(f.num_categories - 1));
  }
  return u;
}

// Moves feature j of x at random: a categorical one to another category, a
// numeric one by N(0, scale^2) (or, for INTEGER and DISCRETE, to a random
// neighbour half the time, which small scales would not reach).
void Perturb(const FeatureEncoding& encoding, int j, double scale,
             SplitMix64& rng, std::vector<double>& x) {
  const Feature& f = encoding.features()[j];
  if (f.discrete &&
      (f.kind == FeatureKind::kCategorical || rng.NextUnit() < 0.5)) {
    std::vector<double> neighbours = encoding.Neighbours(j, x[j]);
    if (!neighbours.empty())
      x[j] = neighbours[rng.NextBelow(neighbours.size())];
    return;
  }
  x[j] += scale * NextStandardNormal(rng);
}

// The features of `x` that are active and not in `before`: a move of a
// parent activated them, and they hold imputed values that say nothing. Each
// takes, half the time, its coordinate in the first anchor where it is active
// (the best observations' values of that subtree), else a uniform one; until
// no more appear (a filled child may activate its own children).
void FillActivated(const FeatureEncoding& encoding,
                   std::span<const std::vector<double>> anchors,
                   const std::vector<std::vector<bool>>& anchor_active,
                   std::vector<bool> before, SplitMix64& rng,
                   std::vector<double>& x) {
  const auto& features = encoding.features();
  for (;;) {
    const std::vector<bool> now = encoding.ActiveFeatures(x);
    bool filled = false;
    for (size_t j = 0; j < now.size(); ++j) {
      if (!now[j] || before[j]) continue;
      before[j] = filled = true;
      const Feature& f = features[j];
      size_t donor = 0;
      while (donor < anchors.size() && !anchor_active[donor][j]) ++donor;
      if (donor < anchors.size() && rng.NextUnit() < 0.5) {
        x[j] = anchors[donor][j];
      } else if (f.kind == FeatureKind::kCategorical) {
        x[j] = static_cast<double>(rng.NextBelow(f.num_categories));
      } else {
        x[j] = rng.NextUnit();
      }
    }
    if (!filled) return;
  }
}

double MaxDistance(const double* a, const double* b, int d) {
  double distance = 0;
  for (int i = 0; i < d; ++i) {
    distance = std::max(distance, std::fabs(a[i] - b[i]));
  }
  return distance;
}

// Where a search from one anchor may go (options.local_radius), per feature.
struct Box {
  std::vector<double> lower, upper;
};

// The anchor's box: +- radius around each continuous coordinate, widened
// for INTEGER and DISCRETE ones to their neighbouring values, which a
// coarse grid would otherwise put out of reach; within [0, 1]. A feature
// inactive at the anchor has no position there: all of [0, 1].
Box AnchorBox(const FeatureEncoding& encoding,
              const std::vector<int>& continuous,
              const std::vector<double>& anchor,
              const std::vector<bool>& active, double radius) {
  Box box{std::vector<double>(anchor.size(), 0.0),
          std::vector<double>(anchor.size(), 1.0)};
  for (int j : continuous) {
    if (!active[j]) continue;
    double lo = anchor[j] - radius;
    double hi = anchor[j] + radius;
    for (double v : encoding.Neighbours(j, anchor[j])) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    box.lower[j] = std::max(0.0, lo);
    box.upper[j] = std::min(1.0, hi);
  }
  return box;
}

RowMatrix ToMatrix(const std::vector<std::vector<double>>& points, int d) {
  RowMatrix m(static_cast<Eigen::Index>(points.size()), d);
  for (size_t i = 0; i < points.size(); ++i) {
    for (int j = 0; j < d; ++j)
      m(static_cast<Eigen::Index>(i), j) = points[i][j];
  }
  return m;
}

// NaN would break the orderings below; such a point is never chosen.
std::vector<double> Scores(const AcquisitionFunction& acquisition,
                           const RowMatrix& points) {
  if (points.rows() == 0) return {};
  Eigen::VectorXd values;
  acquisition.EvaluateBatch(points, values);
  std::vector<double> scores(values.data(), values.data() + values.size());
  for (double& s : scores) {
    if (std::isnan(s)) s = -std::numeric_limits<double>::infinity();
  }
  return scores;
}

std::vector<double> Scores(const AcquisitionFunction& acquisition,
                           const std::vector<std::vector<double>>& points,
                           int d) {
  return Scores(acquisition, ToMatrix(points, d));
}

// The candidates' scores as two orders: the first `global_count` rows (the
// global candidates) and the rest (the local ones).
std::vector<BestFirstOrder> SplitByKind(std::vector<double> scores,
                                        int global_count) {
  const auto split = scores.begin() + global_count;
  std::vector<BestFirstOrder> parts;
  parts.emplace_back(std::vector<double>(scores.begin(), split));
  parts.emplace_back(std::vector<double>(split, scores.end()),
                     static_cast<size_t>(global_count));
  return parts;
}

// Step 1's points, one snapped candidate a row: the global ones first.
struct Candidates {
  RowMatrix x;
  std::vector<const Box*> box;  // Where its search must stay; null for none.
};

void AddGlobalCandidates(const FeatureEncoding& encoding, uint64_t seed,
                         int count, Candidates& out) {
  const auto& features = encoding.features();
  const int d = encoding.dimension();
  const ScrambledHalton halton(d, seed ^ kHaltonSalt);
  std::vector<double> u(d);
  for (int i = 0; i < count; ++i) {
    halton.Point(static_cast<uint64_t>(i), u.data());
    for (int j = 0; j < d; ++j) u[j] = Coordinate(features[j], u[j]);
    encoding.Snap(u);
    const auto row = static_cast<Eigen::Index>(out.box.size());
    std::copy(u.begin(), u.end(), out.x.row(row).data());
    out.box.push_back(nullptr);
  }
}

// The anchors and where a search from each may go.
struct Anchors {
  std::span<const std::vector<double>> x;
  std::vector<std::vector<bool>> active;
  std::vector<Box> boxes;  // Empty without options.local_radius.
};

// With `radius` positive, each anchor's box (AnchorBox).
Anchors MakeAnchors(const FeatureEncoding& encoding,
                    const std::vector<int>& continuous,
                    std::span<const std::vector<double>> anchors,
                    double radius) {
  Anchors out{anchors, {}, {}};
  for (const auto& anchor : anchors) {
    out.active.push_back(encoding.ActiveFeatures(anchor));
  }
  if (radius > 0) {
    for (size_t a = 0; a < anchors.size(); ++a) {
      out.boxes.push_back(
          AnchorBox(encoding, continuous, anchors[a], out.active[a], radius));
    }
  }
  return out;
}

void AddLocalCandidates(const FeatureEncoding& encoding,
                        const std::vector<int>& continuous,
                        const Anchors& anchors, int count, SplitMix64& rng,
                        Candidates& out) {
  const int d = encoding.dimension();
  // Each anchor's active features, the ones a move may touch (an inactive
  // one's move would change nothing).
  std::vector<std::vector<int>> movable(anchors.x.size());
  for (size_t a = 0; a < anchors.x.size(); ++a) {
    for (int j = 0; j < d; ++j) {
      if (anchors.active[a][j]) movable[a].push_back(j);
    }
  }
  std::vector<double> x;
  for (int i = 0; i < count; ++i) {
    // Half of them around the best anchor, the rest round-robin.
    const size_t anchor = i % 2 == 0 ? 0 : (i / 2) % anchors.x.size();
    x = anchors.x[anchor];
    const std::vector<bool>& active = anchors.active[anchor];
    const double scale = kScales[rng.NextBelow(std::size(kScales))];
    if (rng.NextUnit() < 0.5) {
      for (int j : continuous) {
        if (active[j]) x[j] += scale * NextStandardNormal(rng);
      }
    } else {
      const std::vector<int>& features = movable[anchor];
      const auto moves = features.empty() ? 0 : 1 + rng.NextBelow(2);
      for (uint64_t m = 0; m < moves; ++m) {
        Perturb(encoding, features[rng.NextBelow(features.size())], scale, rng,
                x);
      }
    }
    if (encoding.conditional()) {
      FillActivated(encoding, anchors.x, anchors.active, active, rng, x);
    }
    const Box* box = anchors.boxes.empty() ? nullptr : &anchors.boxes[anchor];
    if (box != nullptr) {
      for (int j : continuous)
        x[j] = std::clamp(x[j], box->lower[j], box->upper[j]);
    }
    encoding.Snap(x);
    const auto row = static_cast<Eigen::Index>(out.box.size());
    std::copy(x.begin(), x.end(), out.x.row(row).data());
    out.box.push_back(box);
  }
}

// Step 2's start points (rows of `candidates`): the best ones of finite
// score in `order`, distinct from each other and from earlier `starts`, at
// most `limit` more.
void AddStarts(const RowMatrix& candidates, BestFirstOrder& order, int limit,
               std::vector<size_t>& starts) {
  const auto d = static_cast<int>(candidates.cols());
  int added = 0;
  for (size_t k = 0; k < order.size() && added < limit; ++k) {
    const size_t i = order[k];
    if (!std::isfinite(order.score(i))) continue;
    const double* x = candidates.row(static_cast<Eigen::Index>(i)).data();
    const bool distinct =
        std::none_of(starts.begin(), starts.end(), [&](size_t s) {
          return MaxDistance(
                     candidates.row(static_cast<Eigen::Index>(s)).data(), x,
                     d) < kDistinctStarts;
        });
    if (!distinct) continue;
    starts.push_back(i);
    ++added;
  }
}

// Step 2: L-BFGS over the continuous features from `start`, then snapped.
// Only the active ones that are no parent move: the active set, a function
// of the parents' values, stays that of `start`.
std::vector<double> Refine(const AcquisitionFunction& acquisition,
                           const FeatureEncoding& encoding,
                           const std::vector<int>& all_continuous,
                           const std::vector<double>& start, const Box* box,
                           const AcquisitionOptimizerOptions& options) {
  std::vector<double> full = start;
  std::vector<int> continuous;
  const std::vector<bool> active = encoding.ActiveFeatures(start);
  for (int j : all_continuous) {
    if (active[j] && !encoding.features()[j].parent) continuous.push_back(j);
  }
  if (continuous.empty()) return full;
  const int d = encoding.dimension();
  std::vector<double> full_gradient(d);
  Objective objective = [&](std::span<const double> z,
                            std::span<double> gradient) {
    for (size_t k = 0; k < continuous.size(); ++k) full[continuous[k]] = z[k];
    const double value = acquisition.EvaluateWithGradient(full, full_gradient);
    for (size_t k = 0; k < gradient.size(); ++k) {
      gradient[k] = -full_gradient[continuous[k]];
    }
    return -value;
  };
  std::vector<double> z0, lower(continuous.size(), 0.0),
      upper(continuous.size(), 1.0);
  for (size_t k = 0; k < continuous.size(); ++k) {
    z0.push_back(start[continuous[k]]);
    if (box != nullptr) {
      lower[k] = box->lower[continuous[k]];
      upper[k] = box->upper[continuous[k]];
    }
  }
  LbfgsOptions lbfgs;
  lbfgs.max_evaluations = options.max_lbfgs_evaluations;
  lbfgs.relative_tolerance = 1e-9;
  absl::StatusOr<LbfgsResult> result =
      MinimizeLbfgs(objective, z0, lower, upper, lbfgs);
  full = start;
  if (result.ok()) {
    for (size_t k = 0; k < continuous.size(); ++k) {
      full[continuous[k]] = result->x[k];
    }
  }
  encoding.Snap(full);
  return full;
}

// Step 3, in place on `point`: active features only; a move of a parent
// fills the children it activates (FillActivated) and imputes the ones it
// deactivates.
void ClimbDiscrete(const AcquisitionFunction& acquisition,
                   const FeatureEncoding& encoding,
                   const std::vector<int>& discrete, int rounds,
                   std::span<const std::vector<double>> anchors,
                   const std::vector<std::vector<bool>>& anchor_active,
                   SplitMix64& rng, ScoredPoint& point) {
  const int d = encoding.dimension();
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<double>> neighbours;
    const std::vector<bool> active = encoding.ActiveFeatures(point.x);
    for (int j : discrete) {
      if (!active[j]) continue;
      for (double v : encoding.Neighbours(j, point.x[j])) {
        neighbours.push_back(point.x);
        std::vector<double>& x = neighbours.back();
        x[j] = v;
        if (encoding.features()[j].parent) {
          FillActivated(encoding, anchors, anchor_active, active, rng, x);
          encoding.Snap(x);
        }
      }
    }
    const std::vector<double> scores = Scores(acquisition, neighbours, d);
    size_t best = scores.size();
    for (size_t i = 0; i < scores.size(); ++i) {
      if (scores[i] > point.score &&
          (best == scores.size() || scores[i] > scores[best])) {
        best = i;
      }
    }
    if (best == scores.size()) return;
    point.x = std::move(neighbours[best]);
    point.score = scores[best];
  }
}

}  // namespace

RankedPoints MaximizeAcquisition(const AcquisitionFunction& acquisition,
                                 const FeatureEncoding& encoding,
                                 std::span<const std::vector<double>> anchors,
                                 uint64_t seed,
                                 const AcquisitionOptimizerOptions& options) {
  const int d = encoding.dimension();
  const auto& features = encoding.features();
  std::vector<int> continuous, discrete;
  for (int j = 0; j < d; ++j) {
    if (features[j].kind == FeatureKind::kContinuous) continuous.push_back(j);
    if (features[j].discrete) discrete.push_back(j);
  }
  SplitMix64 rng(seed);
  const Anchors anchor_set =
      MakeAnchors(encoding, continuous, anchors, options.local_radius);

  // 1. Candidates.
  const int local = anchors.empty() ? 0 : options.local_candidates;
  Candidates candidates{RowMatrix(options.random_candidates + local, d), {}};
  AddGlobalCandidates(encoding, seed, options.random_candidates, candidates);
  AddLocalCandidates(encoding, continuous, anchor_set, local, rng, candidates);
  std::vector<BestFirstOrder> parts =
      SplitByKind(Scores(acquisition, candidates.x), options.random_candidates);

  // 2. L-BFGS from the best distinct candidates, half of them global ones:
  // local candidates score highest near the incumbent, and refining only
  // those would never look at a better basin elsewhere.
  std::vector<size_t> starts;  // Rows of candidates.x.
  AddStarts(candidates.x, parts[0],
            local == 0 ? options.restarts : options.restarts / 2, starts);
  AddStarts(candidates.x, parts[1],
            options.restarts - static_cast<int>(starts.size()), starts);
  std::vector<std::vector<double>> refined;
  for (size_t i : starts) {
    const auto row = candidates.x.row(static_cast<Eigen::Index>(i));
    refined.push_back(Refine(acquisition, encoding, continuous,
                             std::vector<double>(row.data(), row.data() + d),
                             candidates.box[i], options));
  }
  const std::vector<double> refined_scores = Scores(acquisition, refined, d);

  // 3. Discrete moves, then everything by score.
  std::vector<ScoredPoint> points;
  for (size_t i = 0; i < refined.size(); ++i) {
    ScoredPoint p{std::move(refined[i]), refined_scores[i]};
    if (!discrete.empty()) {
      const std::vector<bool> before = encoding.ActiveFeatures(p.x);
      ClimbDiscrete(acquisition, encoding, discrete, options.discrete_rounds,
                    anchors, anchor_set.active, rng, p);
      // A parent's move activated children that step 2 never refined.
      if (encoding.ActiveFeatures(p.x) != before) {
        std::vector<std::vector<double>> again = {
            Refine(acquisition, encoding, continuous, p.x,
                   candidates.box[starts[i]], options)};
        const double score = Scores(acquisition, again, d).front();
        if (score > p.score) p = {std::move(again.front()), score};
      }
    }
    points.push_back(std::move(p));
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const ScoredPoint& a, const ScoredPoint& b) {
                     return a.score > b.score;
                   });
  return RankedPoints(std::move(points), std::move(candidates.x),
                      std::move(parts));
}

RankedPoints::RankedPoints(std::vector<ScoredPoint> refined,
                           RowMatrix candidates,
                           std::vector<BestFirstOrder> parts)
    : refined_(std::move(refined)),
      candidates_(std::move(candidates)),
      parts_(std::move(parts)),
      next_in_part_(parts_.size(), 0),
      seen_(0, HashX{static_cast<int>(candidates_.cols())},
            EqualX{static_cast<int>(candidates_.cols())}) {}

size_t RankedPoints::HashX::operator()(const double* x) const {
  // FNV-1a over the bits; +0 and -0 compare equal, so they hash alike.
  uint64_t h = 1469598103934665603ull;
  for (int j = 0; j < d; ++j) {
    h = (h ^ std::bit_cast<uint64_t>(x[j] == 0 ? 0.0 : x[j])) *
        1099511628211ull;
  }
  return static_cast<size_t>(h);
}

bool RankedPoints::EqualX::operator()(const double* a, const double* b) const {
  return std::equal(a, a + d, b);
}

// A stable merge: on equal scores the refined point, listed first, leads,
// then the earlier part.
const ScoredPoint* RankedPoints::TakeBest() {
  size_t best = parts_.size();  // The part whose next row leads, if any.
  for (size_t p = 0; p < parts_.size(); ++p) {
    if (next_in_part_[p] == parts_[p].size()) continue;
    if (best == parts_.size() || Head(p) > Head(best)) best = p;
  }
  const bool refined_left = next_refined_ < refined_.size();
  if (refined_left && (best == parts_.size() ||
                       !(Head(best) > refined_[next_refined_].score))) {
    return &refined_[next_refined_++];
  }
  if (best == parts_.size()) return nullptr;
  current_row_ = parts_[best][next_in_part_[best]++];
  const auto row = candidates_.row(static_cast<Eigen::Index>(current_row_));
  current_.x.assign(row.data(), row.data() + candidates_.cols());
  current_.score = parts_[best].score(current_row_);
  return &current_;
}

double RankedPoints::Head(size_t part) {
  return parts_[part].score(parts_[part][next_in_part_[part]]);
}

const ScoredPoint* RankedPoints::Next() {
  while (const ScoredPoint* p = TakeBest()) {
    // The key points at the point's storage, which stays put: a refined
    // point's vector or the candidate's row.
    const double* key =
        p == &current_
            ? candidates_.row(static_cast<Eigen::Index>(current_row_)).data()
            : p->x.data();
    if (std::isfinite(p->score) && seen_.insert(key).second) return p;
  }
  return nullptr;
}

std::vector<ScoredPoint> RankedPoints::Rest() {
  std::vector<ScoredPoint> rest;
  while (const ScoredPoint* p = Next()) rest.push_back(*p);
  return rest;
}

}  // namespace hptune::algorithms::gp
