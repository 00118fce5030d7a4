// The GP designer on conditional search spaces: the kernel on imputed
// features (gp_features.h) is a valid covariance with exact gradients, the
// acquisition optimiser and the designer only produce valid active sets,
// and the model finds the best branch of a tree faster than random search.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Eigen/Eigenvalues"
#include "algorithms/common/splitmix64.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/encoding/unit_cube.h"
#include "algorithms/gp/acquisition.h"
#include "algorithms/gp/acquisition_optimizer.h"
#include "algorithms/gp/gaussian_process.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/gp/hyperparameters.h"
#include "algorithms/gp/matern_kernel.h"
#include "algorithms/gp/suggestion_policy.h"
#include "gtest/gtest.h"
#include "tests/algorithms/gp/designer_options.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune::algorithms::testing::TrialAt;

constexpr char kMetric[] = "loss";

// A random parameter named `name`: DOUBLE, INTEGER, DISCRETE or CATEGORICAL,
// with one to four values for the finite ones (one value now and then).
ParameterSpec RandomSpec(SplitMix64& rng, const std::string& name) {
  switch (rng.NextBelow(4)) {
    case 0:
      return rng.NextUnit() < 0.5
                 ? DoubleParam(name, -1, 2)
                 : DoubleParam(name, 1e-4, 1e-1, ScaleType::kLog);
    case 1: {
      const auto lo = static_cast<int64_t>(rng.NextBelow(3));
      return IntegerParam(name, lo,
                          lo + static_cast<int64_t>(rng.NextBelow(5)));
    }
    case 2: {
      std::vector<double> values;
      const auto n = 1 + rng.NextBelow(4);
      for (uint64_t i = 0; i < n; ++i)
        values.push_back(0.5 * (i + 1) * (i + 1));
      return DiscreteParam(name, values);
    }
    default: {
      std::vector<std::string> values;
      const auto n = 1 + rng.NextBelow(4);
      for (uint64_t i = 0; i < n; ++i) {
        values.push_back(std::string(1, static_cast<char>('a' + i)));
      }
      return CategoricalParam(name, values);
    }
  }
}

// A random non-empty subset of `spec`'s values, as a condition under it.
ParentCondition RandomCondition(SplitMix64& rng, const ParameterSpec& spec) {
  ParentCondition c{.parent = spec.name};
  auto pick = [&](auto& out, const auto& values) {
    for (const auto& v : values) {
      if (rng.NextUnit() < 0.5) out.push_back(v);
    }
    if (out.empty()) out.push_back(values[rng.NextBelow(values.size())]);
  };
  switch (spec.type) {
    case ParameterType::kInteger: {
      std::vector<int64_t> values;
      for (auto k = static_cast<int64_t>(spec.min_value);
           k <= static_cast<int64_t>(spec.max_value); ++k) {
        values.push_back(k);
      }
      pick(c.int_values, values);
      break;
    }
    case ParameterType::kDiscrete:
      pick(c.discrete_values, spec.discrete_values);
      break;
    default:
      pick(c.categorical_values, spec.categorical_values);
      break;
  }
  return c;
}

// Appends a random subtree, depth-first as the nested config lists it.
void AddSubtree(SplitMix64& rng, int depth,
                std::optional<ParentCondition> condition,
                std::vector<ParameterSpec>& specs) {
  ParameterSpec spec =
      RandomSpec(rng, "p" + std::to_string(static_cast<int>(specs.size())));
  spec.condition = std::move(condition);
  specs.push_back(spec);
  if (spec.type == ParameterType::kDouble || depth >= 2) return;
  const auto children = rng.NextBelow(3);
  for (uint64_t c = 0; c < children; ++c) {
    AddSubtree(rng, depth + 1, RandomCondition(rng, spec), specs);
  }
}

// Two or three random trees of depth up to 2 (at most 21 parameters).
SearchSpace RandomTree(uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<ParameterSpec> specs;
  const auto roots = 2 + rng.NextBelow(2);
  for (uint64_t r = 0; r < roots; ++r) AddSubtree(rng, 0, std::nullopt, specs);
  return SearchSpace(std::move(specs));
}

// Random valid assignments by the search prior of unit_cube.h.
ParameterAssignment RandomAssignment(const SearchSpace& space,
                                     SplitMix64& rng) {
  std::vector<double> u;
  for (size_t i = 0; i < space.parameters().size(); ++i) {
    u.push_back(rng.NextUnit());
  }
  return AssignmentFromUniform(space, u);
}

FeatureEncoding MakeEncoding(const SearchSpace& space) {
  auto encoding = FeatureEncoding::Create(space);
  EXPECT_OK(encoding);
  return *std::move(encoding);
}

// Encoded random points of `space`, every one valid.
std::vector<std::vector<double>> RandomPoints(const SearchSpace& space,
                                              const FeatureEncoding& encoding,
                                              int n, SplitMix64& rng) {
  std::vector<std::vector<double>> points;
  for (int i = 0; i < n; ++i) {
    const ParameterAssignment a = RandomAssignment(space, rng);
    EXPECT_OK(space.CheckAssignment(a));
    auto x = encoding.Encode(a);
    EXPECT_OK(x);
    points.push_back(*std::move(x));
  }
  return points;
}

std::vector<double> RandomLogLengthscales(int d, SplitMix64& rng) {
  std::vector<double> log_l;
  for (int i = 0; i < d; ++i) log_l.push_back(-2.5 + 3.5 * rng.NextUnit());
  return log_l;
}

// A smooth test function of the active parameters, for targets.
double TreeObjective(const SearchSpace& space, const ParameterAssignment& a) {
  double value = 0;
  for (size_t p = 0; p < space.parameters().size(); ++p) {
    const ParameterSpec& spec = space.parameters()[p];
    auto it = a.find(spec.name);
    if (it == a.end()) continue;
    const double u = *Encode(spec, it->second);
    const double centre = 0.2 + 0.6 * std::fmod(0.618 * (p + 1), 1.0);
    value += (1 + 0.3 * p) * (u - centre) * (u - centre) + 0.05 * p;
  }
  return value;
}

// Whether the active set of `space` varies (in 100 random draws).
bool HasVaryingActiveSets(const SearchSpace& space) {
  SplitMix64 rng(99);
  std::set<std::vector<bool>> sets;
  for (int i = 0; i < 100; ++i) {
    sets.insert(space.ActiveMask(RandomAssignment(space, rng)));
  }
  return sets.size() > 1;
}

// A second objective that conflicts with TreeObjective: larger
// coordinates and more active parameters cost more.
double TreeCost(const SearchSpace& space, const ParameterAssignment& a) {
  double cost = 0;
  for (const auto& [name, value] : a) {
    cost += 0.2 + *Encode(*space.Find(name), value);
  }
  return cost;
}

constexpr int kTrees = 12;

TEST(ConditionalGpTest, RandomTreesAreValidSpaces) {
  int varying = 0;
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    ASSERT_OK(ValidateForEncoding(space)) << seed;
    varying += HasVaryingActiveSets(space);
  }
  EXPECT_GE(varying, kTrees / 2);
}

// Zero distance exactly between points that decode to the same assignment:
// inactive coordinates never separate two points.
TEST(ConditionalGpTest, DistanceIsZeroExactlyForTheSameAssignment) {
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    const FeatureEncoding encoding = MakeEncoding(space);
    SplitMix64 rng(seed + 100);
    const MaternKernel kernel(
        encoding.kinds(), RandomLogLengthscales(encoding.dimension(), rng), 1);
    std::vector<ParameterAssignment> assignments;
    for (int i = 0; i < 30; ++i) {
      assignments.push_back(RandomAssignment(space, rng));
    }
    for (const auto& a : assignments) {
      for (const auto& b : assignments) {
        const std::vector<double> xa = *encoding.Encode(a);
        const std::vector<double> xb = *encoding.Encode(b);
        EXPECT_EQ(kernel.SquaredDistance(xa.data(), xb.data()) == 0, a == b)
            << "tree " << seed;
      }
    }
  }
}

TEST(ConditionalGpTest, KernelMatrixIsPositiveSemidefiniteOnRandomTrees) {
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    const FeatureEncoding encoding = MakeEncoding(space);
    SplitMix64 rng(seed + 200);
    const std::vector<std::vector<double>> points =
        RandomPoints(space, encoding, 60, rng);
    for (int trial = 0; trial < 3; ++trial) {
      const MaternKernel kernel(
          encoding.kinds(), RandomLogLengthscales(encoding.dimension(), rng),
          0.5 + rng.NextUnit());
      const auto n = static_cast<Eigen::Index>(points.size());
      Eigen::MatrixXd k(n, n);
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < n; ++j) {
          k(i, j) = kernel(points[i].data(), points[j].data());
        }
      }
      ASSERT_TRUE(k.allFinite());
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(k);
      const Eigen::VectorXd eigenvalues = solver.eigenvalues();
      EXPECT_GE(eigenvalues.minCoeff(), -1e-9 * eigenvalues.maxCoeff())
          << "tree " << seed << " trial " << trial;
    }
  }
}

TEST(ConditionalGpTest, LengthscaleGradientMatchesFiniteDifferences) {
  constexpr double kStep = 1e-5;
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    const FeatureEncoding encoding = MakeEncoding(space);
    const int d = encoding.dimension();
    SplitMix64 rng(seed + 300);
    const std::vector<std::vector<double>> points =
        RandomPoints(space, encoding, 8, rng);
    const std::vector<double> log_l = RandomLogLengthscales(d, rng);
    const MaternKernel kernel(encoding.kinds(), log_l, 1.3);
    for (size_t a = 0; a < points.size(); ++a) {
      for (size_t b = 0; b < points.size(); ++b) {
        const double* pa = points[a].data();
        const double* pb = points[b].data();
        const double slope =
            kernel.SlopeFromSquaredDistance(kernel.SquaredDistance(pa, pb));
        for (int i = 0; i < d; ++i) {
          const double analytic = slope * kernel.Term(i, pa[i], pb[i]);
          std::vector<double> up = log_l, down = log_l;
          up[i] += kStep;
          down[i] -= kStep;
          const double numeric =
              (MaternKernel(encoding.kinds(), up, 1.3)(pa, pb) -
               MaternKernel(encoding.kinds(), down, 1.3)(pa, pb)) /
              (2 * kStep);
          EXPECT_NEAR(analytic, numeric, 1e-7 + 1e-5 * std::fabs(numeric))
              << "tree " << seed << " feature " << i;
        }
      }
    }
  }
}

// A GP on random observations of a random tree.
GaussianProcess FitGp(const SearchSpace& space, const FeatureEncoding& encoding,
                      int n, SplitMix64& rng) {
  TrainingData data;
  data.kinds = encoding.kinds();
  const int d = encoding.dimension();
  data.x.resize(n, d);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    const ParameterAssignment a = RandomAssignment(space, rng);
    const std::vector<double> x = *encoding.Encode(a);
    for (int j = 0; j < d; ++j) data.x(i, j) = x[j];
    data.y[i] = TreeObjective(space, a);
  }
  data.y =
      (data.y.array() - data.y.mean()) /
      std::max(1e-9,
               std::sqrt((data.y.array() - data.y.mean()).square().mean()));
  std::vector<double> theta = RandomLogLengthscales(d, rng);
  theta.push_back(0);     // log s2
  theta.push_back(-5);    // log noise
  theta.push_back(0.05);  // mean
  auto gp = GaussianProcess::Create(std::move(data), std::move(theta));
  EXPECT_OK(gp);
  return *std::move(gp);
}

TEST(ConditionalGpTest, PosteriorGradientMatchesFiniteDifferences) {
  constexpr double kStep = 1e-6;
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    const FeatureEncoding encoding = MakeEncoding(space);
    const int d = encoding.dimension();
    if (d == 0) continue;
    SplitMix64 rng(seed + 400);
    const GaussianProcess gp = FitGp(space, encoding, 20, rng);
    for (const std::vector<double>& x :
         RandomPoints(space, encoding, 10, rng)) {
      std::vector<double> d_mean(d), d_variance(d);
      gp.PredictWithGradient(x, d_mean, d_variance);
      const std::vector<bool> active = encoding.ActiveFeatures(x);
      for (int j = 0; j < d; ++j) {
        if (!active[j] ||
            encoding.features()[j].kind != FeatureKind::kContinuous) {
          continue;
        }
        std::vector<double> up = x, down = x;
        up[j] += kStep;
        down[j] -= kStep;
        const auto p_up = gp.Predict(up), p_down = gp.Predict(down);
        const double mean = (p_up.mean - p_down.mean) / (2 * kStep);
        const double variance = (p_up.variance - p_down.variance) / (2 * kStep);
        EXPECT_NEAR(d_mean[j], mean, 1e-5 + 1e-4 * std::fabs(mean))
            << "tree " << seed << " feature " << j;
        EXPECT_NEAR(d_variance[j], variance, 1e-5 + 1e-4 * std::fabs(variance))
            << "tree " << seed << " feature " << j;
      }
    }
  }
}

TEST(ConditionalGpTest, AcquisitionOptimizerReturnsOnlyValidActiveSets) {
  for (uint64_t seed = 0; seed < kTrees; ++seed) {
    const SearchSpace space = RandomTree(seed);
    const FeatureEncoding encoding = MakeEncoding(space);
    if (encoding.dimension() == 0) continue;
    SplitMix64 rng(seed + 500);
    const GaussianProcess gp = FitGp(space, encoding, 15, rng);
    const Eigen::VectorXd mean = gp.MeanAtObservations();
    std::vector<std::vector<double>> anchors;
    for (int i = 0; i < 3; ++i) {
      const RowMatrix& rows = gp.rows();
      anchors.emplace_back(rows.row(i).data(),
                           rows.row(i).data() + rows.cols());
    }
    const LogExpectedImprovementAcquisition ei(gp, mean.maxCoeff());
    for (double radius : {0.0, 0.1}) {
      AcquisitionOptimizerOptions options;
      options.random_candidates = radius > 0 ? 0 : 128;
      options.local_candidates = 128;
      options.restarts = 4;
      options.local_radius = radius;
      const std::vector<ScoredPoint> points =
          MaximizeAcquisition(ei, encoding, anchors, seed, options).Rest();
      ASSERT_FALSE(points.empty());
      std::set<std::vector<bool>> active_sets;
      for (const ScoredPoint& p : points) {
        std::vector<double> snapped = p.x;
        encoding.Snap(snapped);
        EXPECT_EQ(snapped, p.x) << "tree " << seed;
        const ParameterAssignment a = encoding.Decode(p.x);
        ASSERT_OK(space.CheckAssignment(a)) << "tree " << seed;
        auto back = encoding.Encode(a);
        ASSERT_OK(back);
        for (int j = 0; j < encoding.dimension(); ++j) {
          EXPECT_NEAR((*back)[j], p.x[j], 1e-12);
        }
        active_sets.insert(space.ActiveMask(a));
      }
      // The search crosses branches of the tree, not only the anchors'.
      if (HasVaryingActiveSets(space) && radius == 0) {
        EXPECT_GT(active_sets.size(), 1u) << "tree " << seed;
      }
    }
  }
}

StudySpec Spec(SearchSpace space) {
  StudySpec spec;
  spec.search_space = std::move(space);
  spec.SetSingleMetric(kMetric, Goal::kMinimize);
  return spec;
}

Trial Completed(int64_t number, ParameterAssignment parameters,
                const std::vector<std::pair<std::string, double>>& values) {
  Trial t = TrialAt(std::move(parameters));
  t.number = number;
  t.end_time = Timestamp{} + std::chrono::seconds(number);
  Measurement m{.step = 1};
  for (const auto& [id, v] : values) m.metrics[id] = v;
  t.final_measurement = m;
  return t;
}

// The engine's loop: a fresh designer per round restored from the saved
// state (and, with `defer`, the deferred refit run and its result
// accepted), the last suggestion of each round left pending for the next.
// Every suggestion must be a valid, unused assignment. Counts in
// *from_model those that came from the model.
void RunValidityStudy(const StudySpec& spec, uint64_t seed, int rounds,
                      bool defer, int* from_model) {
  *from_model = 0;
  const SearchSpace& space = spec.search_space;
  std::vector<Trial> completed, pending;
  std::string state, deferred_result;
  AssignmentSet seen;
  int64_t number = 0;
  for (int r = 0; r < rounds; ++r) {
    auto designer = GpDesigner::Create(spec, OptionsOf(spec), seed);
    ASSERT_OK(designer);
    ASSERT_OK((*designer)->RestoreState(state));
    if (defer) {
      (*designer)->DeferWork();
      ASSERT_OK((*designer)->AcceptDeferredResult(deferred_result));
    }
    ASSERT_OK((*designer)->Update(completed, pending));
    EXPECT_TRUE((*designer)->skipped_reasons().empty())
        << (*designer)->skipped_reasons().front();
    auto suggestions = (*designer)->Suggest(2);
    ASSERT_OK(suggestions);
    state = (*designer)->SaveState();
    if (auto work = (*designer)->TakeDeferredWork()) {
      const std::atomic<bool> cancelled = false;
      deferred_result = (*work)(cancelled);
    }
    for (const Trial& t : pending) {
      std::vector<std::pair<std::string, double>> values;
      for (const MetricSpec& m : spec.AllMetrics()) {
        values.emplace_back(m.id, m.id == kMetric
                                      ? TreeObjective(space, t.parameters)
                                      : TreeCost(space, t.parameters));
      }
      completed.push_back(Completed(t.number, t.parameters, values));
    }
    pending.clear();
    for (const Suggestion& s : *suggestions) {
      ASSERT_OK(space.CheckAssignment(s.parameters))
          << s.origin << " in round " << r;
      EXPECT_TRUE(seen.Insert(s.parameters)) << s.origin << " repeats";
      *from_model += s.origin.starts_with("gp-");
      Trial t = TrialAt(s.parameters, TrialState::kActive);
      t.number = ++number;
      pending.push_back(t);
    }
  }
}

TEST(ConditionalGpTest, DesignerSuggestsOnlyValidActiveSetsOnRandomTrees) {
  int studies = 0;
  for (uint64_t seed = 0; studies < 6; ++seed) {
    const SearchSpace space = RandomTree(seed);
    if (!HasVaryingActiveSets(space)) continue;
    SCOPED_TRACE(seed);
    // The suggestions after the seeding ones (at most 20) are the model's.
    int from_model = 0;
    const StudySpec spec = Spec(space);
    RunValidityStudy(spec, seed, 16, /*defer=*/studies++ % 2 == 1, &from_model);
    EXPECT_EQ(from_model,
              32 - InitialPoints(FeatureEncoding::Create(space)->dimension(),
                                 spec.max_trials));
  }
}

TEST(ConditionalGpTest, MultiMetricDesignerSuggestsOnlyValidActiveSets) {
  uint64_t seed = 0;
  while (!HasVaryingActiveSets(RandomTree(seed))) ++seed;
  StudySpec spec = Spec(RandomTree(seed));
  spec.SetMetrics({{.id = kMetric, .goal = Goal::kMinimize},
                   {.id = "cost", .goal = Goal::kMinimize}});
  // Scalarised UCB may find no improvement and fall back now and then.
  int from_model = 0;
  RunValidityStudy(spec, seed, 16, /*defer=*/false, &from_model);
  EXPECT_GE(from_model, 8);
}

// The model's suggestions and then the grid of unused points (FiniteGrid)
// cover the 2 + 3 + 1 active combinations of a small tree, then stop.
TEST(ConditionalGpTest, ExhaustsASmallConditionalSpace) {
  ParameterSpec k = IntegerParam("k", 1, 2);
  k.condition = ParentCondition{.parent = "c", .categorical_values = {"a"}};
  ParameterSpec d = DiscreteParam("d", {1, 2, 3});
  d.condition = ParentCondition{.parent = "c", .categorical_values = {"b"}};
  const StudySpec spec =
      Spec(SearchSpace({CategoricalParam("c", {"a", "b", "none"}), k, d}));
  std::vector<Trial> completed;
  AssignmentSet seen;
  for (int round = 0; round < 4; ++round) {
    auto designer = GpDesigner::Create(spec, OptionsOf(spec), 5);
    ASSERT_OK(designer);
    ASSERT_OK((*designer)->Update(completed, {}));
    auto suggestions = (*designer)->Suggest(2);
    ASSERT_OK(suggestions);
    for (const Suggestion& s : *suggestions) {
      ASSERT_OK(spec.search_space.CheckAssignment(s.parameters)) << s.origin;
      EXPECT_TRUE(seen.Insert(s.parameters)) << s.origin;
      completed.push_back(Completed(
          static_cast<int64_t>(completed.size()) + 1, s.parameters,
          {{kMetric, TreeObjective(spec.search_space, s.parameters)}}));
    }
  }
  EXPECT_EQ(completed.size(), 6u);
}

// optimizer in {sgd, adam}; sgd has lr and momentum, adam lr and beta2; a
// shared batch size. The best sgd point scores 0.4, the best adam one 0.
SearchSpace OptimizerTree() {
  ParameterSpec sgd_lr = DoubleParam("sgd_lr", 1e-4, 1, ScaleType::kLog);
  sgd_lr.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"sgd"}};
  ParameterSpec momentum = DoubleParam("momentum", 0, 1);
  momentum.condition = sgd_lr.condition;
  ParameterSpec adam_lr = DoubleParam("adam_lr", 1e-5, 1e-1, ScaleType::kLog);
  adam_lr.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"adam"}};
  ParameterSpec beta2 = DoubleParam("beta2", 0.9, 0.999);
  beta2.condition = adam_lr.condition;
  return SearchSpace({CategoricalParam("optimizer", {"sgd", "adam"}), sgd_lr,
                      momentum, adam_lr, beta2,
                      IntegerParam("batch", 16, 256, ScaleType::kLog)});
}

double OptimizerLoss(const ParameterAssignment& a) {
  const double batch = std::log2(a.at("batch").AsDouble()) - 6;  // 64 best.
  double loss = 0.05 * batch * batch;
  if (a.at("optimizer").AsString() == "sgd") {
    const double lr = std::log10(a.at("sgd_lr").AsDouble()) + 1.5;
    const double m = a.at("momentum").AsDouble() - 0.9;
    return loss + 0.4 + lr * lr + 2 * m * m;
  }
  const double lr = std::log10(a.at("adam_lr").AsDouble()) + 3.2;
  const double b = (a.at("beta2").AsDouble() - 0.98) / 0.05;
  return loss + lr * lr + b * b;
}

TEST(ConditionalGpTest, FindsTheBestBranchFasterThanRandomSearch) {
  const SearchSpace space = OptimizerTree();
  const StudySpec spec = Spec(space);
  constexpr int kBudget = 30;
  int gp_wins = 0;
  double gp_worst = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<Trial> completed;
    std::string state;
    double gp_best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kBudget; ++i) {
      auto designer = GpDesigner::Create(spec, OptionsOf(spec), seed);
      ASSERT_OK(designer);
      ASSERT_OK((*designer)->RestoreState(state));
      ASSERT_OK((*designer)->Update(completed, {}));
      auto s = (*designer)->Suggest(1);
      ASSERT_OK(s);
      ASSERT_EQ(s->size(), 1u);
      state = (*designer)->SaveState();
      const double loss = OptimizerLoss(s->front().parameters);
      gp_best = std::min(gp_best, loss);
      completed.push_back(
          Completed(i + 1, s->front().parameters, {{kMetric, loss}}));
    }
    SplitMix64 rng(seed);
    double random_best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kBudget; ++i) {
      random_best =
          std::min(random_best, OptimizerLoss(RandomAssignment(space, rng)));
    }
    gp_wins += gp_best < random_best;
    gp_worst = std::max(gp_worst, gp_best);
    std::printf("seed %d: gp %.4f random %.4f\n", static_cast<int>(seed),
                gp_best, random_best);
  }
  EXPECT_EQ(gp_wins, 3);
  // In the adam branch, near its optimum (sgd's best is 0.4).
  EXPECT_LT(gp_worst, 0.1);
}

}  // namespace
}  // namespace hptune::algorithms::gp
