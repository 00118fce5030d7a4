#include "algorithms/encoding/gp_features.h"

#include <cmath>
#include <string>
#include <vector>

#include "algorithms/common/splitmix64.h"
#include "algorithms/encoding/unit_cube.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

FeatureEncoding MakeEncoding(const SearchSpace& space) {
  auto encoding = FeatureEncoding::Create(space);
  EXPECT_OK(encoding);
  return *std::move(encoding);
}

// Every type, every scale.
SearchSpace AllKinds() {
  return SearchSpace({
      DoubleParam("lin", -2, 3, ScaleType::kLinear),
      DoubleParam("none", 0, 1, ScaleType::kNone),
      DoubleParam("log", 1e-5, 1e-1, ScaleType::kLog),
      DoubleParam("rlog", 0.5, 0.999, ScaleType::kReverseLog),
      IntegerParam("ilin", -3, 7),
      IntegerParam("ilog", 1, 1000, ScaleType::kLog),
      IntegerParam("irlog", 2, 50, ScaleType::kReverseLog),
      DiscreteParam("dnone", {1, 2, 4, 8}),
      DiscreteParam("dlog", {1e-4, 1e-3, 1e-1}, ScaleType::kLog),
      DiscreteParam("drlog", {0.9, 0.99, 0.999}, ScaleType::kReverseLog),
      CategoricalParam("cat", {"adam", "sgd", "rmsprop"}),
  });
}

TEST(GpFeaturesTest, OneFeaturePerParameterWithItsKind) {
  FeatureEncoding encoding = MakeEncoding(AllKinds());
  ASSERT_EQ(encoding.dimension(), 11);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(encoding.features()[i].kind, FeatureKind::kContinuous) << i;
  }
  EXPECT_EQ(encoding.features()[10].kind, FeatureKind::kCategorical);
  EXPECT_EQ(encoding.features()[10].num_categories, 3);
  EXPECT_FALSE(encoding.features()[0].discrete);
  EXPECT_TRUE(encoding.features()[4].discrete);
  EXPECT_TRUE(encoding.features()[7].discrete);
  EXPECT_TRUE(encoding.features()[10].discrete);
}

TEST(GpFeaturesTest, RoundTripsEveryTypeAndScale) {
  const SearchSpace space = AllKinds();
  FeatureEncoding encoding = MakeEncoding(space);
  // Feasible assignments spread over the space: decode grid points of the
  // features, then encode and decode again.
  for (int k = 0; k <= 20; ++k) {
    std::vector<double> x(encoding.dimension(), k / 20.0);
    x.back() = k % 3;
    const ParameterAssignment a = encoding.Decode(x);
    ASSERT_OK(space.CheckAssignment(a)) << k;
    auto encoded = encoding.Encode(a);
    ASSERT_OK(encoded);
    const ParameterAssignment back = encoding.Decode(*encoded);
    for (const auto& spec : space.parameters()) {
      if (spec.type == ParameterType::kDouble) {
        EXPECT_NEAR(back.at(spec.name).AsDouble(), a.at(spec.name).AsDouble(),
                    1e-12 * (spec.max_value - spec.min_value))
            << spec.name;
      } else {
        EXPECT_EQ(back.at(spec.name), a.at(spec.name)) << spec.name;
      }
    }
  }
}

TEST(GpFeaturesTest, ContinuousFeaturesAreUnitCubeCoordinates) {
  const SearchSpace space = AllKinds();
  FeatureEncoding encoding = MakeEncoding(space);
  ParameterAssignment a = encoding.Decode(
      std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2});
  auto x = encoding.Encode(a);
  ASSERT_OK(x);
  for (int i = 0; i < 10; ++i) {
    const auto& spec = space.parameters()[i];
    EXPECT_DOUBLE_EQ((*x)[i], *Encode(spec, a.at(spec.name))) << spec.name;
  }
  EXPECT_EQ(x->back(), 2.0);  // "rmsprop" is category 2.
}

TEST(GpFeaturesTest, CategoriesAreIndicesNotOrderedNumbers) {
  FeatureEncoding encoding =
      MakeEncoding(SearchSpace({CategoricalParam("c", {"a", "b", "c", "d"})}));
  for (int i = 0; i < 4; ++i) {
    const std::string value(1, static_cast<char>('a' + i));
    auto x = encoding.Encode({{"c", ParameterValue::Categorical(value)}});
    ASSERT_OK(x);
    EXPECT_THAT(*x, ElementsAre(static_cast<double>(i)));
  }
  // Relaxed indices round to the nearest category.
  EXPECT_EQ(encoding.Decode(std::vector<double>{1.4}).at("c").AsString(), "b");
  EXPECT_EQ(encoding.Decode(std::vector<double>{2.6}).at("c").AsString(), "d");
  EXPECT_EQ(encoding.Decode(std::vector<double>{-3}).at("c").AsString(), "a");
  EXPECT_EQ(encoding.Decode(std::vector<double>{9}).at("c").AsString(), "d");
}

TEST(GpFeaturesTest, SingleValuedParametersAreLeftOutAndPutBack) {
  const SearchSpace space({IntegerParam("fixed_int", 4, 4),
                           DoubleParam("x", 0, 1),
                           DiscreteParam("fixed_discrete", {0.5}),
                           CategoricalParam("fixed_cat", {"only"})});
  FeatureEncoding encoding = MakeEncoding(space);
  ASSERT_EQ(encoding.dimension(), 1);
  EXPECT_EQ(encoding.features()[0].parameter, 1);
  const ParameterAssignment a = encoding.Decode(std::vector<double>{0.25});
  EXPECT_OK(space.CheckAssignment(a));
  EXPECT_EQ(a.at("fixed_int"), ParameterValue::Integer(4));
  EXPECT_EQ(a.at("fixed_discrete"), ParameterValue::Double(0.5));
  EXPECT_EQ(a.at("fixed_cat"), ParameterValue::Categorical("only"));
  EXPECT_EQ(a.at("x"), ParameterValue::Double(0.25));
}

TEST(GpFeaturesTest, SnapIsTheImageOfTheDecodedPoint) {
  const SearchSpace space = AllKinds();
  FeatureEncoding encoding = MakeEncoding(space);
  for (int k = 0; k < 50; ++k) {
    std::vector<double> x;
    for (int i = 0; i < 10; ++i) x.push_back(((k * 7 + i * 13) % 50) / 49.0);
    x.push_back(k * 0.07);
    std::vector<double> snapped = x;
    encoding.Snap(snapped);
    const ParameterAssignment decoded = encoding.Decode(x);
    EXPECT_EQ(encoding.Decode(snapped), decoded);
    auto image = encoding.Encode(decoded);
    ASSERT_OK(image);
    for (int i = 0; i < encoding.dimension(); ++i) {
      if (encoding.features()[i].discrete) {
        EXPECT_EQ(snapped[i], (*image)[i]) << "feature " << i;
      } else {
        EXPECT_NEAR(snapped[i], (*image)[i], 1e-12) << "feature " << i;
      }
    }
  }
}

TEST(GpFeaturesTest, SnapClampsOutOfRangeAndNan) {
  FeatureEncoding encoding = MakeEncoding(
      SearchSpace({DoubleParam("x", 0, 1), IntegerParam("k", 1, 3)}));
  std::vector<double> x = {-0.5, std::nan("")};
  encoding.Snap(x);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(encoding.Decode(x).at("k"), ParameterValue::Integer(1));
  x = {7, 7};
  encoding.Snap(x);
  EXPECT_EQ(x[0], 1.0);
  EXPECT_EQ(encoding.Decode(x).at("k"), ParameterValue::Integer(3));
}

TEST(GpFeaturesTest, NeighboursAreAdjacentValuesOrOtherCategories) {
  const SearchSpace space(
      {IntegerParam("k", 1, 5), DiscreteParam("d", {1, 2, 4, 8}),
       CategoricalParam("c", {"a", "b", "c"}), DoubleParam("x", 0, 1)});
  FeatureEncoding encoding = MakeEncoding(space);
  auto x = encoding.Encode({{"k", ParameterValue::Integer(1)},
                            {"d", ParameterValue::Double(4)},
                            {"c", ParameterValue::Categorical("b")},
                            {"x", ParameterValue::Double(0.5)}});
  ASSERT_OK(x);
  auto decode_k = [&](double v) {
    std::vector<double> y = *x;
    y[0] = v;
    return encoding.Decode(y).at("k").AsInteger();
  };
  std::vector<double> k_neighbours = encoding.Neighbours(0, (*x)[0]);
  ASSERT_EQ(k_neighbours.size(), 1u);  // 1 is the smallest.
  EXPECT_EQ(decode_k(k_neighbours[0]), 2);
  auto decode_d = [&](double v) {
    std::vector<double> y = *x;
    y[1] = v;
    return encoding.Decode(y).at("d").AsDouble();
  };
  std::vector<double> d_neighbours = encoding.Neighbours(1, (*x)[1]);
  ASSERT_EQ(d_neighbours.size(), 2u);
  EXPECT_EQ(decode_d(d_neighbours[0]), 2);
  EXPECT_EQ(decode_d(d_neighbours[1]), 8);
  EXPECT_THAT(encoding.Neighbours(2, (*x)[2]), ElementsAre(0.0, 2.0));
  EXPECT_TRUE(encoding.Neighbours(3, (*x)[3]).empty());
}

TEST(GpFeaturesTest, EncodeNamesTheParameterOfAnInfeasibleValue) {
  FeatureEncoding encoding = MakeEncoding(
      SearchSpace({DoubleParam("lr", 0.001, 0.1), IntegerParam("k", 1, 3)}));
  auto missing = encoding.Encode({{"lr", ParameterValue::Double(0.01)}});
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kInvalidArgument,
                                "parameter \"k\" has no value"));
  auto outside = encoding.Encode(
      {{"lr", ParameterValue::Double(1)}, {"k", ParameterValue::Integer(2)}});
  EXPECT_THAT(outside,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("parameter \"lr\": cannot encode 1")));
}

TEST(GpFeaturesTest, InvalidSpaceIsRefused) {
  auto encoding = FeatureEncoding::Create(
      SearchSpace({DoubleParam("lr", 0, 1, ScaleType::kLog)}));
  EXPECT_THAT(
      encoding,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("parameter \"lr\": UNIT_LOG_SCALE needs a strictly "
                         "positive range")));
}

// Conditional spaces.

ParameterSpec Under(ParameterSpec spec, std::string parent,
                    std::vector<std::string> values) {
  spec.condition = ParentCondition{.parent = std::move(parent),
                                   .categorical_values = std::move(values)};
  return spec;
}
ParameterSpec UnderInt(ParameterSpec spec, std::string parent,
                       std::vector<int64_t> values) {
  spec.condition = ParentCondition{.parent = std::move(parent),
                                   .int_values = std::move(values)};
  return spec;
}
ParameterSpec UnderDiscrete(ParameterSpec spec, std::string parent,
                            std::vector<double> values) {
  spec.condition = ParentCondition{.parent = std::move(parent),
                                   .discrete_values = std::move(values)};
  return spec;
}

// Every kind of parent, depth 2, single-valued parent and child; in the
// depth-first order of the nested config.
SearchSpace Tree() {
  return SearchSpace({
      CategoricalParam("optimizer", {"sgd", "adam", "lbfgs"}),
      Under(DoubleParam("lr", 1e-4, 1, ScaleType::kLog), "optimizer",
            {"sgd", "adam"}),
      Under(CategoricalParam("momentum_kind", {"none", "nesterov", "classic"}),
            "optimizer", {"sgd"}),
      Under(DoubleParam("momentum", 0, 1), "momentum_kind",
            {"nesterov", "classic"}),
      Under(DiscreteParam("beta2", {0.9, 0.99, 0.999}), "optimizer", {"adam"}),
      IntegerParam("layers", 1, 3),
      UnderInt(IntegerParam("width2", 8, 64, ScaleType::kLog), "layers",
               {2, 3}),
      UnderInt(IntegerParam("width3", 8, 64), "layers", {3}),
      UnderInt(IntegerParam("fixed", 4, 4), "layers", {1}),
      DiscreteParam("dropout", {0, 0.1, 0.5}),
      UnderDiscrete(IntegerParam("dropout_seed", 0, 10), "dropout", {0.1, 0.5}),
      CategoricalParam("schedule", {"cosine"}),
      Under(DoubleParam("warmup", 0, 1), "schedule", {"cosine"}),
  });
}

// A relaxed feature vector: coordinates a little outside [0, 1], indices
// anywhere from -1 to n + 1 (the imputed index n included).
std::vector<double> RelaxedPoint(const FeatureEncoding& encoding,
                                 SplitMix64& rng) {
  std::vector<double> x;
  for (const Feature& f : encoding.features()) {
    if (f.kind == FeatureKind::kCategorical) {
      x.push_back(rng.NextUnit() * (f.num_categories + 2) - 1);
    } else {
      x.push_back(rng.NextUnit() * 1.2 - 0.1);
    }
  }
  return x;
}

TEST(GpFeaturesTest, ConditionalFeaturesKnowTheTree) {
  const SearchSpace space = Tree();
  FeatureEncoding encoding = MakeEncoding(space);
  EXPECT_TRUE(encoding.conditional());
  EXPECT_FALSE(MakeEncoding(AllKinds()).conditional());
  // "fixed" and "schedule" have one value each.
  ASSERT_EQ(encoding.dimension(), 11);
  std::vector<std::string> conditional, parents;
  for (const Feature& f : encoding.features()) {
    const std::string& name = space.parameters()[f.parameter].name;
    if (f.conditional) conditional.push_back(name);
    if (f.parent) parents.push_back(name);
    EXPECT_EQ(f.imputed,
              f.kind == FeatureKind::kCategorical ? f.num_categories : 0.5)
        << name;
  }
  EXPECT_THAT(conditional,
              ElementsAre("lr", "momentum_kind", "momentum", "beta2", "width2",
                          "width3", "dropout_seed", "warmup"));
  EXPECT_THAT(parents,
              ElementsAre("optimizer", "momentum_kind", "layers", "dropout"));
}

TEST(GpFeaturesTest, ConditionalRoundTripsHaveOnlyTheActiveParameters) {
  const SearchSpace space = Tree();
  FeatureEncoding encoding = MakeEncoding(space);
  SplitMix64 rng(7);
  std::vector<int> active_count(space.parameters().size(), 0);
  constexpr int kPoints = 400;
  for (int k = 0; k < kPoints; ++k) {
    const std::vector<double> x = RelaxedPoint(encoding, rng);
    const ParameterAssignment a = encoding.Decode(x);
    ASSERT_OK(space.CheckAssignment(a)) << k;
    const std::vector<bool> active = encoding.ActiveParameters(x);
    EXPECT_EQ(active, space.ActiveMask(a)) << k;
    for (size_t p = 0; p < active.size(); ++p) {
      active_count[p] += active[p];
      EXPECT_EQ(a.contains(space.parameters()[p].name), active[p]) << k;
    }
    auto encoded = encoding.Encode(a);
    ASSERT_OK(encoded);
    const std::vector<bool> active_features = encoding.ActiveFeatures(x);
    for (int i = 0; i < encoding.dimension(); ++i) {
      if (!active_features[i]) {
        EXPECT_EQ((*encoded)[i], encoding.features()[i].imputed) << k;
      }
    }
    const ParameterAssignment back = encoding.Decode(*encoded);
    ASSERT_EQ(back.size(), a.size()) << k;
    for (const auto& [name, value] : a) {
      if (value.is_double() &&
          space.Find(name)->type == ParameterType::kDouble) {
        EXPECT_NEAR(back.at(name).AsDouble(), value.AsDouble(), 1e-12) << name;
      } else {
        EXPECT_EQ(back.at(name), value) << name;
      }
    }
    // Encode(Decode(x)) == Snap(x).
    std::vector<double> snapped = x;
    encoding.Snap(snapped);
    for (int i = 0; i < encoding.dimension(); ++i) {
      EXPECT_NEAR(snapped[i], (*encoded)[i], 1e-12) << k << " feature " << i;
    }
  }
  // The sample saw every parameter both active and (for children) not.
  for (size_t p = 0; p < space.parameters().size(); ++p) {
    const std::string& name = space.parameters()[p].name;
    EXPECT_GT(active_count[p], 0) << name;
    if (space.parameters()[p].condition && name != "warmup") {
      EXPECT_LT(active_count[p], kPoints) << name;
    }
  }
  // The single-valued parent activates its child always; a single-valued
  // child is there only when active.
  EXPECT_EQ(active_count[space.IndexOf("warmup")], kPoints);
  EXPECT_EQ(active_count[space.IndexOf("schedule")], kPoints);
}

TEST(GpFeaturesTest, SingleValuedChildIsPutBackOnlyWhenActive) {
  const SearchSpace space = Tree();
  FeatureEncoding encoding = MakeEncoding(space);
  const int layers = space.IndexOf("layers");
  std::vector<double> x(encoding.dimension(), 0.5);
  for (int i = 0; i < encoding.dimension(); ++i) {
    if (encoding.features()[i].parameter == layers) x[i] = 0;  // 1 layer.
  }
  ParameterAssignment a = encoding.Decode(x);
  EXPECT_EQ(a.at("fixed"), ParameterValue::Integer(4));
  EXPECT_FALSE(a.contains("width2"));
  EXPECT_EQ(a.at("schedule"), ParameterValue::Categorical("cosine"));
  for (int i = 0; i < encoding.dimension(); ++i) {
    if (encoding.features()[i].parameter == layers) x[i] = 1;  // 3 layers.
  }
  a = encoding.Decode(x);
  EXPECT_FALSE(a.contains("fixed"));
  EXPECT_TRUE(a.contains("width2"));
  EXPECT_TRUE(a.contains("width3"));
}

TEST(GpFeaturesTest, SnapIsIdempotentAndImputesInactiveCoordinates) {
  FeatureEncoding encoding = MakeEncoding(Tree());
  SplitMix64 rng(11);
  for (int k = 0; k < 200; ++k) {
    std::vector<double> x = RelaxedPoint(encoding, rng);
    encoding.Snap(x);
    const std::vector<bool> active = encoding.ActiveFeatures(x);
    for (int i = 0; i < encoding.dimension(); ++i) {
      if (!active[i]) {
        EXPECT_EQ(x[i], encoding.features()[i].imputed);
      }
    }
    std::vector<double> again = x;
    encoding.Snap(again);
    EXPECT_EQ(again, x) << k;
    // Another vector of the same point (inactive coordinates moved) snaps
    // to the same vector.
    std::vector<double> moved = RelaxedPoint(encoding, rng);
    for (int i = 0; i < encoding.dimension(); ++i) {
      if (active[i]) moved[i] = x[i];
    }
    encoding.Snap(moved);
    EXPECT_EQ(moved, x) << k;
  }
}

TEST(GpFeaturesTest, EncodeRefusesMissingActiveAndPresentInactive) {
  FeatureEncoding encoding = MakeEncoding(Tree());
  ParameterAssignment a = {
      {"optimizer", ParameterValue::Categorical("adam")},
      {"lr", ParameterValue::Double(0.01)},
      {"beta2", ParameterValue::Double(0.99)},
      {"layers", ParameterValue::Integer(1)},
      {"dropout", ParameterValue::Double(0)},
      {"warmup", ParameterValue::Double(0.5)},
  };
  EXPECT_OK(encoding.Encode(a));
  ParameterAssignment missing = a;
  missing.erase("beta2");
  EXPECT_THAT(encoding.Encode(missing),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "parameter \"beta2\" has no value"));
  ParameterAssignment extra = a;
  extra.emplace("momentum_kind", ParameterValue::Categorical("none"));
  EXPECT_THAT(
      encoding.Encode(extra),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("parameter \"momentum_kind\" is not active (its "
                         "parent \"optimizer\" is adam)")));
  ParameterAssignment deeper = a;
  deeper.emplace("momentum", ParameterValue::Double(0.9));
  EXPECT_THAT(encoding.Encode(deeper),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("parameter \"momentum\" is not active (its "
                                 "parent \"momentum_kind\" is not active)")));
}

TEST(GpFeaturesTest, TheImputedCategoryHasEveryCategoryAsNeighbour) {
  FeatureEncoding encoding = MakeEncoding(Tree());
  // momentum_kind, inactive: index 3.
  EXPECT_THAT(encoding.Neighbours(2, 3.0), ElementsAre(0.0, 1.0, 2.0));
  EXPECT_THAT(encoding.Neighbours(2, 1.0), ElementsAre(0.0, 2.0));
}

TEST(GpFeaturesTest, AParentAfterItsChildIsRefused) {
  auto encoding = FeatureEncoding::Create(
      SearchSpace({Under(DoubleParam("lr", 0, 1), "opt", {"sgd"}),
                   CategoricalParam("opt", {"sgd", "adam"})}));
  EXPECT_THAT(encoding, StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("\"lr\" needs its parent \"opt\"")));
}

// Define-by-run: trials from before a parameter joined lack it, and keep
// their place in the history with the parameter imputed; a decoded point
// always has it.
TEST(GpFeaturesTest, AParameterThatJoinedLaterIsImputedWhereATrialLacksIt) {
  ParameterSpec rate = DoubleParam("rate", 0, 1, ScaleType::kLinear);
  ParameterSpec cell = CategoricalParam("cell", {"gru", "lstm", "rnn"});
  rate.first_trial = 4;
  cell.first_trial = 6;
  const FeatureEncoding encoding =
      MakeEncoding(SearchSpace({IntegerParam("units", 1, 9), rate, cell}));
  auto older = encoding.Encode({{"units", ParameterValue::Integer(5)}});
  ASSERT_OK(older);
  EXPECT_THAT(*older, ElementsAre(0.5, 0.5, 3));  // Centre; category n.
  auto newer = encoding.Encode({{"units", ParameterValue::Integer(5)},
                                {"rate", ParameterValue::Double(0.2)},
                                {"cell", ParameterValue::Categorical("rnn")}});
  ASSERT_OK(newer);
  EXPECT_THAT(*newer, ElementsAre(0.5, 0.2, 2));
  EXPECT_EQ(encoding.Decode(*older).size(), 3u);
  EXPECT_THAT(encoding.Encode({{"rate", ParameterValue::Double(0.2)}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"units\" has no value")));
}

}  // namespace
}  // namespace hptune::algorithms
