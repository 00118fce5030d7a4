#include "algorithms/gp/acquisition_optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;

// An acquisition scored one point at a time.
class PointwiseAcquisition : public AcquisitionFunction {
 public:
  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override {
    values.resize(xs.rows());
    std::vector<double> ignored(xs.cols());
    for (Eigen::Index i = 0; i < xs.rows(); ++i) {
      values[i] = EvaluateWithGradient(
          std::span<const double>(xs.row(i).data(), xs.cols()), ignored);
    }
  }
};

// -|x - target|^2 over the continuous features, plus 1 for category 2.
class Bowl : public PointwiseAcquisition {
 public:
  Bowl(std::vector<double> target, int categorical)
      : target_(std::move(target)), categorical_(categorical) {}

  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override {
    double value = 0;
    for (size_t j = 0; j < x.size(); ++j) {
      gradient[j] = 0;
      if (static_cast<int>(j) == categorical_) {
        value += x[j] == 2 ? 1 : 0;
        continue;
      }
      value -= (x[j] - target_[j]) * (x[j] - target_[j]);
      gradient[j] = -2 * (x[j] - target_[j]);
    }
    ++evaluations_;
    return value;
  }

  mutable int evaluations_ = 0;

 private:
  std::vector<double> target_;
  int categorical_;
};

// A low peak at `near` and a high one at `far`, each a Gaussian bump of
// width 0.1: far apart, neither is reachable by ascent from the other.
class TwoPeaks : public PointwiseAcquisition {
 public:
  TwoPeaks(std::vector<double> near, std::vector<double> far)
      : near_(std::move(near)), far_(std::move(far)) {}

  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override {
    const double a = Bump(x, near_, 0.5), b = Bump(x, far_, 1.0);
    for (size_t j = 0; j < x.size(); ++j) {
      gradient[j] = -(a * (x[j] - near_[j]) + b * (x[j] - far_[j])) / kWidth2;
    }
    return a + b;
  }

 private:
  static constexpr double kWidth2 = 0.01;
  static double Bump(std::span<const double> x, const std::vector<double>& c,
                     double height) {
    double r2 = 0;
    for (size_t j = 0; j < x.size(); ++j) r2 += (x[j] - c[j]) * (x[j] - c[j]);
    return height * std::exp(-r2 / (2 * kWidth2));
  }
  std::vector<double> near_, far_;
};

// The best point of a 2-D search is (x, y).
void ExpectBestAt(const std::vector<ScoredPoint>& points, double x, double y,
                  double tolerance) {
  ASSERT_FALSE(points.empty());
  EXPECT_NEAR(points[0].x[0], x, tolerance);
  EXPECT_NEAR(points[0].x[1], y, tolerance);
}

FeatureEncoding Encoding() {
  return *FeatureEncoding::Create(SearchSpace(
      {DoubleParam("x", 0, 1), DoubleParam("y", 0, 1), IntegerParam("k", 1, 10),
       CategoricalParam("c", {"a", "b", "c", "d"})}));
}

TEST(AcquisitionOptimizerTest, FindsTheMaximumOfMixedFeatures) {
  const FeatureEncoding encoding = Encoding();
  // Far from the centre and from the anchor; k's best value is 8, whose
  // image is (8 - 0.5) / 10 = 0.75.
  const Bowl bowl({0.93, 0.04, 0.75, 0}, 3);
  const std::vector<std::vector<double>> anchors = {{0.2, 0.8, 0.15, 0}};
  std::vector<ScoredPoint> points =
      MaximizeAcquisition(bowl, encoding, anchors, 11,
                          AcquisitionOptimizerOptions())
          .Rest();
  ASSERT_FALSE(points.empty());
  const ParameterAssignment best = encoding.Decode(points[0].x);
  EXPECT_NEAR(best.at("x").AsDouble(), 0.93, 1e-4);
  EXPECT_NEAR(best.at("y").AsDouble(), 0.04, 1e-4);
  EXPECT_EQ(best.at("k"), ParameterValue::Integer(8));
  EXPECT_EQ(best.at("c"), ParameterValue::Categorical("c"));
}

TEST(AcquisitionOptimizerTest, ReturnsSnappedDistinctPointsBestFirst) {
  const FeatureEncoding encoding = Encoding();
  const Bowl bowl({0.5, 0.5, 0.5, 0}, 3);
  std::vector<ScoredPoint> points =
      MaximizeAcquisition(bowl, encoding, {}, 5, AcquisitionOptimizerOptions())
          .Rest();
  ASSERT_GT(points.size(), 100u);
  std::set<std::vector<double>> seen;
  for (size_t i = 0; i < points.size(); ++i) {
    std::vector<double> snapped = points[i].x;
    encoding.Snap(snapped);
    EXPECT_EQ(snapped, points[i].x);
    EXPECT_TRUE(seen.insert(points[i].x).second);
    if (i > 0) {
      EXPECT_GE(points[i - 1].score, points[i].score);
    }
  }
}

TEST(AcquisitionOptimizerTest, IsDeterministicForASeed) {
  const FeatureEncoding encoding = Encoding();
  const Bowl bowl({0.3, 0.6, 0.2, 0}, 3);
  const std::vector<std::vector<double>> anchors = {{0.1, 0.1, 0.05, 1}};
  auto a = MaximizeAcquisition(bowl, encoding, anchors, 9, {}).Rest();
  auto b = MaximizeAcquisition(bowl, encoding, anchors, 9, {}).Rest();
  auto c = MaximizeAcquisition(bowl, encoding, anchors, 10, {}).Rest();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].x, b[i].x);
  EXPECT_NE(a.back().x, c.back().x);
}

TEST(AcquisitionOptimizerTest, WorksWithOnlyCategoricalFeatures) {
  const FeatureEncoding encoding = *FeatureEncoding::Create(
      SearchSpace({CategoricalParam("c", {"a", "b", "c"}),
                   CategoricalParam("d", {"x", "y"})}));
  const Bowl bowl({0, 0}, 0);
  auto points = MaximizeAcquisition(bowl, encoding, {}, 1, {}).Rest();
  // Six combinations, each once.
  EXPECT_EQ(points.size(), 6u);
  EXPECT_EQ(encoding.Decode(points[0].x).at("c").AsString(), "c");
}

TEST(AcquisitionOptimizerTest, WithoutRandomCandidatesStaysNearTheAnchors) {
  const FeatureEncoding encoding = *FeatureEncoding::Create(
      SearchSpace({DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)}));
  const TwoPeaks peaks({0.25, 0.3}, {0.85, 0.8});
  const std::vector<std::vector<double>> anchors = {{0.2, 0.35}};
  ExpectBestAt(MaximizeAcquisition(peaks, encoding, anchors, 3, {}).Rest(),
               0.85, 0.8, 1e-3);

  AcquisitionOptimizerOptions local_only;
  local_only.random_candidates = 0;
  ExpectBestAt(
      MaximizeAcquisition(peaks, encoding, anchors, 3, local_only).Rest(), 0.25,
      0.3, 1e-3);
}

TEST(AcquisitionOptimizerTest, LocalRadiusKeepsTheSearchNearTheAnchors) {
  const FeatureEncoding encoding = *FeatureEncoding::Create(
      SearchSpace({DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)}));
  // Rises all the way to the far corner.
  const Bowl corner({1, 1}, -1);
  const std::vector<std::vector<double>> anchors = {{0.3, 0.3}, {0.5, 0.2}};
  AcquisitionOptimizerOptions options;
  options.random_candidates = 0;
  ExpectBestAt(
      MaximizeAcquisition(corner, encoding, anchors, 4, options).Rest(), 1, 1,
      1e-6);

  options.local_radius = 0.2;
  const std::vector<ScoredPoint> bounded =
      MaximizeAcquisition(corner, encoding, anchors, 4, options).Rest();
  ASSERT_FALSE(bounded.empty());
  for (const ScoredPoint& p : bounded) {
    const bool in_a_box = std::any_of(
        anchors.begin(), anchors.end(), [&](const std::vector<double>& a) {
          return std::fabs(p.x[0] - a[0]) <= 0.2 + 1e-12 &&
                 std::fabs(p.x[1] - a[1]) <= 0.2 + 1e-12;
        });
    EXPECT_TRUE(in_a_box) << p.x[0] << ", " << p.x[1];
  }
  // The corner of the second anchor's box nearest to (1, 1).
  ExpectBestAt(bounded, 0.7, 0.4, 1e-6);
}

TEST(AcquisitionOptimizerTest, LocalRadiusStillReachesTheNextGridValue) {
  // Neighbouring values are a third of the unit interval apart, further
  // than the radius.
  const FeatureEncoding encoding = *FeatureEncoding::Create(
      SearchSpace({DiscreteParam("d", {1, 2, 3}), DoubleParam("x", 0, 1)}));
  const Bowl right({1, 0.5}, -1);
  std::vector<double> anchor = {0, 0.5};
  encoding.Snap(anchor);
  ASSERT_EQ(encoding.Decode(anchor).at("d").AsDouble(), 1);
  AcquisitionOptimizerOptions options;
  options.random_candidates = 0;
  options.discrete_rounds = 0;  // Only the box may lead to d = 2.
  options.local_radius = 0.1;
  const std::vector<std::vector<double>> anchors = {anchor};
  const std::vector<ScoredPoint> points =
      MaximizeAcquisition(right, encoding, anchors, 6, options).Rest();
  ASSERT_FALSE(points.empty());
  EXPECT_EQ(encoding.Decode(points[0].x).at("d").AsDouble(), 2);
}

// Candidates as the rows of a matrix, with their scores.
RowMatrix Rows(const std::vector<std::vector<double>>& xs) {
  RowMatrix m(static_cast<Eigen::Index>(xs.size()),
              static_cast<Eigen::Index>(xs.front().size()));
  for (size_t i = 0; i < xs.size(); ++i) {
    for (size_t j = 0; j < xs[i].size(); ++j) {
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = xs[i][j];
    }
  }
  return m;
}

template <typename... Orders>
std::vector<BestFirstOrder> Parts(Orders... orders) {
  std::vector<BestFirstOrder> parts;
  (parts.push_back(std::move(orders)), ...);
  return parts;
}

TEST(BestFirstOrderTest, ReadsAsAStableSortByDescendingScore) {
  // Few distinct values, so most scores tie; -inf stands for NaN.
  std::mt19937_64 rng(7);
  std::vector<double> scores(2000);
  for (double& s : scores) {
    const auto v = static_cast<int>(rng() % 9);
    s = v == 0 ? -std::numeric_limits<double>::infinity() : v;
  }
  std::vector<size_t> expected(scores.size());
  std::iota(expected.begin(), expected.end(), size_t{0});
  std::stable_sort(expected.begin(), expected.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  // Read from the front, and with a jump well past the ordered prefix.
  BestFirstOrder in_turn(scores), jumping(scores);
  EXPECT_EQ(jumping[1500], expected[1500]);
  for (size_t k = 0; k < scores.size(); ++k) {
    ASSERT_EQ(in_turn[k], expected[k]) << "position " << k;
    ASSERT_EQ(jumping[k], expected[k]) << "position " << k;
  }
  EXPECT_EQ(in_turn.score(expected[0]), 8);
  // A slice of a longer list answers in the longer list's indices.
  BestFirstOrder slice({3, 5}, 10);
  EXPECT_EQ(slice[0], 11u);
  EXPECT_EQ(slice.score(11), 5);
}

TEST(RankedPointsTest, MergesBestFirstWithRefinedPointsFirstOnTies) {
  const double inf = std::numeric_limits<double>::infinity();
  RankedPoints ranked(
      {{{0.6}, 0.9}, {{0.7}, 0.6}}, Rows({{0.1}, {0.2}, {0.3}, {0.4}, {0.5}}),
      Parts(BestFirstOrder({0.5, 0.9, -inf}), BestFirstOrder({0.7, 0.5}, 3)));
  std::vector<double> xs;
  for (const ScoredPoint& p : ranked.Rest()) xs.push_back(p.x[0]);
  // 0.9: the refined point first; 0.5: the first part's row first.
  EXPECT_EQ(xs, (std::vector<double>{0.6, 0.2, 0.4, 0.7, 0.1, 0.5}));
}

TEST(RankedPointsTest, KeepsEachVectorsFirstOccurrenceOnly) {
  // -0 equals +0, as the vectors' operator== has it.
  RankedPoints ranked({{{0.5, 1}, 0.7}},
                      Rows({{0.0, 1}, {0.5, 1}, {-0.0, 1}, {0.5, 1}}),
                      Parts(BestFirstOrder({0.8, 0.6, 0.4, 0.3})));
  const ScoredPoint* first = ranked.Next();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->score, 0.8);
  const ScoredPoint* second = ranked.Next();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->score, 0.7);  // The refined (0.5, 1), not the candidate.
  EXPECT_EQ(ranked.Next(), nullptr);
  EXPECT_TRUE(ranked.Rest().empty());
}

}  // namespace
}  // namespace hptune::algorithms::gp
