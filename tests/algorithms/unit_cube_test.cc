#include "algorithms/encoding/unit_cube.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

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
using ::hptune_testing::StatusHasCode;
using ::testing::HasSubstr;

constexpr ScaleType kAllScales[] = {ScaleType::kNone, ScaleType::kLinear,
                                    ScaleType::kLog, ScaleType::kReverseLog};

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

double EncodeOk(const ParameterSpec& spec, const ParameterValue& value) {
  auto u = Encode(spec, value);
  EXPECT_OK(u) << Message(u.status());
  return u.ok() ? *u : -1;
}

TEST(UnitCubeTest, LinearDoubleFollowsTheFormula) {
  ParameterSpec spec = DoubleParam("x", 2, 10);
  EXPECT_DOUBLE_EQ(EncodeOk(spec, ParameterValue::Double(4)), 0.25);
  EXPECT_DOUBLE_EQ(Decode(spec, 0.75).AsDouble(), 8);
}

TEST(UnitCubeTest, NoneScaleIsLinear) {
  ParameterSpec none = DoubleParam("x", 2, 10, ScaleType::kNone);
  ParameterSpec linear = DoubleParam("x", 2, 10, ScaleType::kLinear);
  for (double u : {0.1, 0.37, 0.9}) {
    EXPECT_EQ(Decode(none, u), Decode(linear, u));
  }
}

TEST(UnitCubeTest, LogDoubleMapsTheGeometricMidpointToOneHalf) {
  ParameterSpec spec = DoubleParam("lr", 1e-5, 1e-1, ScaleType::kLog);
  EXPECT_NEAR(EncodeOk(spec, ParameterValue::Double(1e-3)), 0.5, 1e-12);
  EXPECT_NEAR(Decode(spec, 0.25).AsDouble(), 1e-4, 1e-16);
}

TEST(UnitCubeTest, ReverseLogFollowsTheVizierFormula) {
  const double min = 0.5, max = 0.999;
  ParameterSpec spec =
      DoubleParam("momentum", min, max, ScaleType::kReverseLog);
  for (double u : {0.1, 0.25, 0.5, 0.8}) {
    double expected =
        max + min -
        std::exp(std::log(min) + (1 - u) * (std::log(max) - std::log(min)));
    EXPECT_NEAR(Decode(spec, u).AsDouble(), expected, 1e-14) << "u=" << u;
  }
}

TEST(UnitCubeTest, ReverseLogIsLogMirroredSoPointsAreDenserNearMax) {
  const double min = 1e-3, max = 1;
  ParameterSpec log = DoubleParam("x", min, max, ScaleType::kLog);
  ParameterSpec reverse = DoubleParam("x", min, max, ScaleType::kReverseLog);
  for (double u : {0.1, 0.5, 0.9}) {
    EXPECT_NEAR(Decode(reverse, u).AsDouble(),
                max + min - Decode(log, 1 - u).AsDouble(), 1e-14);
  }
  // Half the cube maps to the top 3% of the range.
  EXPECT_GT(Decode(reverse, 0.5).AsDouble(), 0.96);
}

TEST(UnitCubeTest, DoubleRoundTripsAndKeepsBoundsExactly) {
  for (ScaleType scale : kAllScales) {
    ParameterSpec spec = DoubleParam("x", 1e-4, 3.7, scale);
    SCOPED_TRACE(std::string(ToString(scale)));
    EXPECT_EQ(EncodeOk(spec, ParameterValue::Double(1e-4)), 0.0);
    EXPECT_EQ(EncodeOk(spec, ParameterValue::Double(3.7)), 1.0);
    EXPECT_EQ(Decode(spec, 0).AsDouble(), 1e-4);
    EXPECT_EQ(Decode(spec, 1).AsDouble(), 3.7);
    for (double x : {1e-4, 2e-4, 1e-3, 0.05, 0.5, 1.0, 2.2, 3.6999, 3.7}) {
      double u = EncodeOk(spec, ParameterValue::Double(x));
      EXPECT_GE(u, 0);
      EXPECT_LE(u, 1);
      EXPECT_NEAR(Decode(spec, u).AsDouble(), x, 1e-12 * std::max(1.0, x))
          << "x=" << x;
    }
  }
}

TEST(UnitCubeTest, DecodeClampsOutOfRangeAndNan) {
  ParameterSpec spec = DoubleParam("x", -1, 1);
  EXPECT_EQ(Decode(spec, -0.5).AsDouble(), -1);
  EXPECT_EQ(Decode(spec, 1.5).AsDouble(), 1);
  EXPECT_EQ(Decode(spec, std::nan("")).AsDouble(), -1);
  ParameterSpec integer = IntegerParam("k", 3, 7);
  EXPECT_EQ(Decode(integer, -2).AsInteger(), 3);
  EXPECT_EQ(Decode(integer, 2).AsInteger(), 7);
}

TEST(UnitCubeTest, DecodeIsMonotoneForEveryNumericTypeAndScale) {
  for (ScaleType scale : kAllScales) {
    SCOPED_TRACE(std::string(ToString(scale)));
    std::vector<ParameterSpec> specs = {
        DoubleParam("x", 0.01, 100, scale), IntegerParam("k", 1, 50, scale),
        DiscreteParam("d", {0.5, 1, 2, 8, 9, 64}, scale)};
    for (const auto& spec : specs) {
      double previous = -1e300;
      for (int i = 0; i <= 10000; ++i) {
        double x = Decode(spec, i / 10000.0).AsDouble();
        EXPECT_GE(x, previous) << spec.name << " at u=" << i / 10000.0;
        previous = x;
      }
    }
  }
}

TEST(UnitCubeTest, EncodeIsStrictlyIncreasingOnFeasibleValues) {
  for (ScaleType scale : kAllScales) {
    SCOPED_TRACE(std::string(ToString(scale)));
    ParameterSpec integer = IntegerParam("k", 1, 30, scale);
    double previous = -1;
    for (int64_t k = 1; k <= 30; ++k) {
      double u = EncodeOk(integer, ParameterValue::Integer(k));
      EXPECT_GT(u, previous);
      previous = u;
    }
    ParameterSpec discrete = DiscreteParam("d", {0.5, 1, 2, 8, 9, 64}, scale);
    previous = -1;
    for (double v : discrete.discrete_values) {
      double u = EncodeOk(discrete, ParameterValue::Double(v));
      EXPECT_GT(u, previous);
      previous = u;
    }
  }
}

TEST(UnitCubeTest, IntegerRoundTripsExactlyUnderEveryScale) {
  for (ScaleType scale : kAllScales) {
    ParameterSpec spec = IntegerParam("k", 1, 40, scale);
    for (int64_t k = 1; k <= 40; ++k) {
      double u = EncodeOk(spec, ParameterValue::Integer(k));
      EXPECT_EQ(Decode(spec, u), ParameterValue::Integer(k))
          << ToString(scale) << " k=" << k;
    }
    EXPECT_EQ(Decode(spec, 0).AsInteger(), 1);
    EXPECT_EQ(Decode(spec, 1).AsInteger(), 40);
  }
}

// The fraction of a fine, even grid of u that decodes to each value.
std::map<int64_t, double> IntegerShares(const ParameterSpec& spec) {
  constexpr int kSteps = 1000000;
  std::map<int64_t, double> shares;
  for (int i = 0; i < kSteps; ++i) {
    shares[Decode(spec, (i + 0.5) / kSteps).AsInteger()] += 1.0 / kSteps;
  }
  return shares;
}

TEST(UnitCubeTest, LinearIntegerGivesEveryValueAnEqualShareEndsIncluded) {
  ParameterSpec spec = IntegerParam("k", -2, 7);
  std::map<int64_t, double> shares = IntegerShares(spec);
  ASSERT_EQ(shares.size(), 10u);
  for (const auto& [k, share] : shares) {
    EXPECT_NEAR(share, 0.1, 1e-5) << "k=" << k;
  }
}

TEST(UnitCubeTest, LogIntegerSharesFollowTheLogWidthOfEachInterval) {
  ParameterSpec spec = IntegerParam("k", 1, 100, ScaleType::kLog);
  std::map<int64_t, double> shares = IntegerShares(spec);
  const double total = std::log(100.5 / 0.5);
  for (int64_t k : {1, 2, 10, 100}) {
    EXPECT_NEAR(shares[k], std::log((k + 0.5) / (k - 0.5)) / total, 1e-5)
        << "k=" << k;
  }
}

TEST(UnitCubeTest, DiscreteRoundTripsExactly) {
  for (ScaleType scale : kAllScales) {
    ParameterSpec spec = DiscreteParam("d", {0.1, 0.3, 1, 7.5, 100}, scale);
    for (double v : spec.discrete_values) {
      EXPECT_EQ(Decode(spec, EncodeOk(spec, ParameterValue::Double(v))),
                ParameterValue::Double(v))
          << ToString(scale) << " v=" << v;
    }
    EXPECT_EQ(Decode(spec, 0).AsDouble(), 0.1);
    EXPECT_EQ(Decode(spec, 1).AsDouble(), 100);
  }
}

TEST(UnitCubeTest, DiscreteDecodesToTheNearestValueInTheScaledSpace) {
  // Linear images of {1, 10, 100}: 0, 1/11, 1. Log images: 0, 1/2, 1.
  ParameterSpec linear = DiscreteParam("d", {1, 10, 100}, ScaleType::kLinear);
  ParameterSpec log = DiscreteParam("d", {1, 10, 100}, ScaleType::kLog);
  EXPECT_EQ(Decode(linear, 0.6).AsDouble(), 100);
  EXPECT_EQ(Decode(log, 0.6).AsDouble(), 10);
  EXPECT_EQ(Decode(log, 0.74).AsDouble(), 10);
  EXPECT_EQ(Decode(log, 0.76).AsDouble(), 100);
  EXPECT_EQ(Decode(log, 0.2).AsDouble(), 1);
}

TEST(UnitCubeTest, SingleDiscreteValueSitsInTheMiddle) {
  ParameterSpec spec = DiscreteParam("d", {4});
  EXPECT_EQ(EncodeOk(spec, ParameterValue::Double(4)), 0.5);
  EXPECT_EQ(Decode(spec, 0.1).AsDouble(), 4);
  EXPECT_EQ(ValueFromUniform(spec, 0.9).AsDouble(), 4);
}

TEST(UnitCubeTest, CategoricalEncodesByIndexAtTheCentreOfEachBin) {
  ParameterSpec spec = CategoricalParam("cell", {"GRU", "LSTM", "RNN", "TCN"});
  EXPECT_EQ(EncodeOk(spec, ParameterValue::Categorical("GRU")), 0.125);
  EXPECT_EQ(EncodeOk(spec, ParameterValue::Categorical("TCN")), 0.875);
  for (const auto& v : spec.categorical_values) {
    auto value = ParameterValue::Categorical(v);
    EXPECT_EQ(Decode(spec, EncodeOk(spec, value)), value);
  }
  EXPECT_EQ(Decode(spec, 0.2499).AsString(), "GRU");
  EXPECT_EQ(Decode(spec, 0.25).AsString(), "LSTM");
  EXPECT_EQ(Decode(spec, 1.0).AsString(), "TCN");
}

TEST(UnitCubeTest, ValueFromUniformPicksDiscreteValuesByIndex) {
  ParameterSpec spec = DiscreteParam("d", {1, 10, 100}, ScaleType::kLinear);
  EXPECT_EQ(ValueFromUniform(spec, 0.0).AsDouble(), 1);
  EXPECT_EQ(ValueFromUniform(spec, 0.33).AsDouble(), 1);
  EXPECT_EQ(ValueFromUniform(spec, 0.34).AsDouble(), 10);
  EXPECT_EQ(ValueFromUniform(spec, 0.66).AsDouble(), 10);
  EXPECT_EQ(ValueFromUniform(spec, 0.67).AsDouble(), 100);
  EXPECT_EQ(ValueFromUniform(spec, 1.0).AsDouble(), 100);
  // Other types: the same as Decode.
  ParameterSpec lr = DoubleParam("lr", 1e-4, 1, ScaleType::kLog);
  EXPECT_EQ(ValueFromUniform(lr, 0.3), Decode(lr, 0.3));
}

TEST(UnitCubeTest, EncodeRejectsInfeasibleValuesNamingThem) {
  struct Case {
    ParameterSpec spec;
    ParameterValue value;
    std::string message;
  };
  std::vector<Case> cases = {
      {DoubleParam("lr", 0, 1), ParameterValue::Double(2),
       "parameter \"lr\": cannot encode 2: outside [minValue, maxValue]"},
      {DoubleParam("lr", 0, 1), ParameterValue::Categorical("a"),
       "parameter \"lr\": cannot encode a: not a number"},
      {IntegerParam("k", 1, 5), ParameterValue::Double(2.5),
       "parameter \"k\": cannot encode 2.5: INTEGER needs an integer value"},
      {IntegerParam("k", 1, 5), ParameterValue::Integer(9),
       "parameter \"k\": cannot encode 9: outside [minValue, maxValue]"},
      {DiscreteParam("d", {1, 2}), ParameterValue::Double(1.5),
       "parameter \"d\": cannot encode 1.5: not one of its discreteValues"},
      {CategoricalParam("c", {"a"}), ParameterValue::Categorical("b"),
       "parameter \"c\": cannot encode b: not one of its categoricalValues"},
      {CategoricalParam("c", {"a"}), ParameterValue::Integer(0),
       "parameter \"c\": cannot encode 0: CATEGORICAL needs a string value"},
  };
  for (const auto& c : cases) {
    auto u = Encode(c.spec, c.value);
    ASSERT_FALSE(u.ok()) << c.message;
    EXPECT_THAT(u, StatusHasCode(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(Message(u.status()), c.message);
  }
}

TEST(UnitCubeTest, ValidateForEncodingExplainsEachProblem) {
  struct Case {
    ParameterSpec spec;
    std::string message;
  };
  std::vector<Case> cases = {
      {DoubleParam("lr", 0, 1, ScaleType::kLog),
       "parameter \"lr\": UNIT_LOG_SCALE needs a strictly positive range, got "
       "minimum 0"},
      {DiscreteParam("d", {-1, 2}, ScaleType::kReverseLog),
       "parameter \"d\": UNIT_REVERSE_LOG_SCALE needs a strictly positive "
       "range, got minimum -1"},
      {DoubleParam("x", 1, 1),
       "parameter \"x\": DOUBLE needs finite minValue < maxValue, got [1, 1]"},
      {IntegerParam("k", 5, 4),
       "parameter \"k\": INTEGER needs minValue <= maxValue, got [5, 4]"},
      {DiscreteParam("d", {1, 1}),
       "parameter \"d\": discreteValues must be strictly increasing, got 1 "
       "before 1"},
      {DiscreteParam("d", {}),
       "parameter \"d\": DISCRETE needs at least one value"},
      {CategoricalParam("c", {}),
       "parameter \"c\": CATEGORICAL needs at least one value"},
      {CategoricalParam("c", {"a", "b", "a"}),
       "parameter \"c\": categorical value \"a\" appears more than once"},
  };
  for (const auto& c : cases) {
    absl::Status status = ValidateForEncoding(SearchSpace({c.spec}));
    EXPECT_THAT(status, StatusHasCode(absl::StatusCode::kInvalidArgument))
        << c.message;
    EXPECT_EQ(Message(status), c.message);
  }
  ParameterSpec fractional = IntegerParam("k", 0, 4);
  fractional.min_value = 0.5;
  EXPECT_THAT(Message(ValidateForEncoding(SearchSpace({fractional}))),
              HasSubstr("INTEGER bounds must be integers within +-2^53"));
  EXPECT_THAT(Message(ValidateForEncoding(SearchSpace(
                  {DoubleParam("x", 0, 1), DoubleParam("x", 0, 2)}))),
              HasSubstr("parameter \"x\" appears more than once"));
}

SearchSpace MixedSpace() {
  return SearchSpace(
      {DoubleParam("lr", 1e-5, 1e-1, ScaleType::kLog),
       IntegerParam("hidden", 40, 400), DiscreteParam("layers", {1, 2, 4}),
       CategoricalParam("cell", {"GRU", "LSTM"}),
       DoubleParam("momentum", 0.5, 0.99, ScaleType::kReverseLog)});
}

TEST(UnitCubeTest, WholeAssignmentsRoundTripAndDecodeToFeasiblePoints) {
  SearchSpace space = MixedSpace();
  ASSERT_OK(ValidateForEncoding(space));
  ParameterAssignment point = {
      {"lr", ParameterValue::Double(1e-5)},
      {"hidden", ParameterValue::Integer(123)},
      {"layers", ParameterValue::Double(4)},
      {"cell", ParameterValue::Categorical("LSTM")},
      {"momentum", ParameterValue::Double(0.99)},
  };
  auto u = EncodeAssignment(space, point);
  ASSERT_OK(u) << Message(u.status());
  ASSERT_EQ(u->size(), 5u);
  EXPECT_EQ(DecodeAssignment(space, *u), point);

  for (double t : {0.0, 0.13, 0.5, 0.77, 0.999999, 1.0}) {
    std::vector<double> corner(5, t);
    EXPECT_OK(space.CheckAssignment(DecodeAssignment(space, corner)));
    EXPECT_OK(space.CheckAssignment(AssignmentFromUniform(space, corner)));
  }
}

TEST(UnitCubeTest, EncodeAssignmentNamesAMissingParameter) {
  auto u =
      EncodeAssignment(MixedSpace(), {{"lr", ParameterValue::Double(1e-3)}});
  EXPECT_THAT(u, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(Message(u.status()), "parameter \"hidden\" has no value");
}

}  // namespace
}  // namespace hptune::algorithms
