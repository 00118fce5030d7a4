// The JSON codec of SqliteStore: exact round trips (doubles bit for bit,
// integer vs double parameters) and clear errors instead of exceptions.
#include "src/store/record_codec.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store::internal {
namespace {

using ::absl::StatusCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(RecordCodecTest, RandomDoublesRoundTripBitForBit) {
  std::mt19937_64 rng(20261121);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    const double value = std::bit_cast<double>(rng());  // Any bit pattern.
    if (!std::isfinite(value)) continue;
    ASSERT_OK_AND_ASSIGN(std::string json, EncodeMetrics({{"m", value}}));
    ASSERT_OK_AND_ASSIGN(MetricMap decoded, DecodeMetrics(json));
    ASSERT_EQ(std::bit_cast<uint64_t>(decoded.at("m")),
              std::bit_cast<uint64_t>(value))
        << json;
    ++checked;
  }
  EXPECT_GT(checked, 19000);
}

TEST(RecordCodecTest, IntegerAndDoubleParametersStayApart) {
  const ParameterAssignment params = {
      {"d", ParameterValue::Double(3.0)},
      {"i", ParameterValue::Integer(3)},
      {"big", ParameterValue::Integer(std::numeric_limits<int64_t>::max())},
      {"neg", ParameterValue::Integer(std::numeric_limits<int64_t>::min())},
      {"s", ParameterValue::Categorical("3")}};
  ASSERT_OK_AND_ASSIGN(std::string json, EncodeParameters(params));
  EXPECT_THAT(DecodeParameters(json), test::IsOkAndHolds(params));
  EXPECT_THAT(json, HasSubstr("\"d\":3.0"));
  EXPECT_THAT(json, HasSubstr("\"i\":3"));
}

TEST(RecordCodecTest, SlurmJobOptionsRoundTripAndNoneIsAnEmptyObject) {
  const SlurmJobOptions slurm{.partition = "gpu",
                              .account = "ml",
                              .time = "2:00:00",
                              .options = {"--qos=high", "--nice=3"}};
  EXPECT_THAT(DecodeSlurmJobOptions(*EncodeSlurmJobOptions(slurm)),
              test::IsOkAndHolds(slurm));
  EXPECT_THAT(EncodeSlurmJobOptions({}), test::IsOkAndHolds(std::string("{}")));
  EXPECT_THAT(DecodeSlurmJobOptions("{}"),
              test::IsOkAndHolds(SlurmJobOptions{}));
  EXPECT_EQ(
      DecodeSlurmJobOptions(R"({"options": "--qos=high"})").status().code(),
      absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, JobLabelsRoundTripAndNoneIsAnEmptyObject) {
  const JobLabels labels = {{"team", "vision"}, {"draft", ""}};
  EXPECT_THAT(DecodeJobLabels(*EncodeJobLabels(labels)),
              test::IsOkAndHolds(labels));
  EXPECT_THAT(EncodeJobLabels({}), test::IsOkAndHolds(std::string("{}")));
  EXPECT_THAT(DecodeJobLabels("{}"), test::IsOkAndHolds(JobLabels{}));
  EXPECT_EQ(DecodeJobLabels(R"({"team": 2})").status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeJobLabels(R"(["team"])").status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, NonFiniteValuesCannotBeStored) {
  EXPECT_THAT(EncodeMetrics({{"loss", NAN}}),
              StatusIs(StatusCode::kInvalidArgument,
                       "cannot store metrics: metric \"loss\" must be finite, "
                       "got nan"));
  EXPECT_THAT(EncodeParameters({{"lr", ParameterValue::Double(INFINITY)}}),
              StatusIs(StatusCode::kInvalidArgument,
                       "cannot store parameters: parameter \"lr\" must be "
                       "finite, got inf"));
}

TEST(RecordCodecTest, InvalidUtf8IsAnErrorNotAnException) {
  EXPECT_THAT(EncodeParameters({{"cell", ParameterValue::Categorical("\xff")}}),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("cannot store parameters: ")));
}

TEST(RecordCodecTest, DamagedJsonIsDataLoss) {
  EXPECT_THAT(DecodeMetrics("{\"a\": "),
              StatusIs(StatusCode::kDataLoss,
                       HasSubstr("cannot read stored metrics: ")));
  EXPECT_THAT(DecodeMetrics("{\"a\": \"x\"}"),
              StatusIs(StatusCode::kDataLoss,
                       "cannot read stored metrics: metric \"a\": not a "
                       "number"));
  EXPECT_THAT(DecodeParameters("[1]"),
              StatusIs(StatusCode::kDataLoss,
                       "cannot read stored parameters: not an object"));
  EXPECT_THAT(DecodeMeasurement("{\"step\": 1}"),
              StatusIs(StatusCode::kDataLoss,
                       HasSubstr("cannot read stored measurement: ")));
}

}  // namespace
}  // namespace hptune::store::internal
