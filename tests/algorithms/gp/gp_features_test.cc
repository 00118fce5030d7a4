#include "algorithms/encoding/gp_features.h"

#include <string>
#include <vector>

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

}  // namespace
}  // namespace hptune::algorithms
