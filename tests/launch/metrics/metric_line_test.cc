#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/launch/metrics.h"
#include "src/launch/metrics/rfc3339.h"

namespace hptune::launch {
namespace {

using Metrics = std::map<std::string, double>;

// 2026-11-21T10:00:00Z in microseconds since the epoch.
constexpr int64_t kTenOClock = 1795255200LL * 1'000'000;

std::optional<int64_t> Micros(std::string_view text) {
  std::optional<Timestamp> t = ParseRfc3339(text);
  if (!t) return std::nullopt;
  return ToUnixMicros(*t);
}

TEST(ParseRfc3339Test, UtcAndOffsetsAndFractions) {
  EXPECT_EQ(Micros("2026-11-21T10:00:00Z"), kTenOClock);
  EXPECT_EQ(Micros("2026-11-21t10:00:00z"), kTenOClock);
  EXPECT_EQ(Micros("2026-11-21T11:30:00+01:30"), kTenOClock);
  EXPECT_EQ(Micros("2026-11-21T05:00:00-05:00"), kTenOClock);
  EXPECT_EQ(Micros("2026-11-21T10:00:00.5Z"), kTenOClock + 500000);
  EXPECT_EQ(Micros("2026-11-21T10:00:00.123456789Z"), kTenOClock + 123456);
  EXPECT_EQ(Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Micros("2024-02-29T00:00:00Z"), 1709164800LL * 1'000'000);
}

TEST(ParseRfc3339Test, RejectsWhatIsNotADateTime) {
  for (const char* text :
       {"", "2026-11-21", "2026-11-21T10:00:00", "2026-11-21 10:00:00Z",
        "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-21T24:00:00Z",
        "2026-11-21T10:60:00Z", "2026-11-21T10:00:61Z", "2026-11-21T10:00:00.Z",
        "2026-11-21T10:00:00+0100", "2026-11-21T10:00:00Zjunk",
        "26-11-21T10:00:00Z", "accuracy=0.9"}) {
    EXPECT_EQ(ParseRfc3339(text), std::nullopt) << text;
  }
}

TEST(ParseMetricLineTest, PairsBecomeMetrics) {
  std::optional<Measurement> m =
      ParseMetricLine("accuracy=0.9412 loss=0.17", "accuracy", 7);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->metrics, (Metrics{{"accuracy", 0.9412}, {"loss", 0.17}}));
  EXPECT_EQ(m->step, 7);
  EXPECT_EQ(m->time, Timestamp{});
}

TEST(ParseMetricLineTest, LeadingTimestampIsTheTime) {
  std::optional<Measurement> m = ParseMetricLine(
      "2026-11-21T11:00:00.25+01:00 accuracy=0.9", "accuracy", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ToUnixMicros(m->time), kTenOClock + 250000);
  EXPECT_EQ(m->metrics, (Metrics{{"accuracy", 0.9}}));
}

TEST(ParseMetricLineTest, CommasAndSpacesSeparatePairs) {
  for (const char* line :
       {"accuracy=0.9,loss=0.1", "accuracy=0.9, loss=0.1",
        "  accuracy=0.9 ,\tloss=0.1 ", "accuracy=0.9,,loss=0.1\r"}) {
    std::optional<Measurement> m = ParseMetricLine(line, "accuracy", 1);
    ASSERT_TRUE(m.has_value()) << line;
    EXPECT_EQ(m->metrics, (Metrics{{"accuracy", 0.9}, {"loss", 0.1}})) << line;
  }
}

TEST(ParseMetricLineTest, LineWithoutTheMetricDoesNotCount) {
  EXPECT_EQ(ParseMetricLine("loss=0.1 step=3", "accuracy", 1), std::nullopt);
  EXPECT_EQ(ParseMetricLine("", "accuracy", 1), std::nullopt);
  EXPECT_EQ(ParseMetricLine("accuracy_top5=0.9", "accuracy", 1), std::nullopt);
}

TEST(ParseMetricLineTest, NonFiniteOrMalformedValuesDoNotCount) {
  for (const char* line :
       {"accuracy=nan", "accuracy=NaN loss=0.1", "accuracy=inf",
        "accuracy=-infinity", "accuracy=1e999", "accuracy=", "accuracy=0x10",
        "accuracy=0.9;", "accuracy=0.9%", "accuracy=++1"}) {
    EXPECT_EQ(ParseMetricLine(line, "accuracy", 1), std::nullopt) << line;
  }
}

TEST(ParseMetricLineTest, NumberForms) {
  EXPECT_EQ(ParseMetricLine("accuracy=+0.5", "accuracy", 1)->metrics,
            (Metrics{{"accuracy", 0.5}}));
  EXPECT_EQ(ParseMetricLine("accuracy=-1e-3", "accuracy", 1)->metrics,
            (Metrics{{"accuracy", -0.001}}));
  EXPECT_EQ(ParseMetricLine("accuracy=3", "accuracy", 1)->metrics,
            (Metrics{{"accuracy", 3}}));
  EXPECT_EQ(ParseMetricLine("accuracy=.5", "accuracy", 1)->metrics,
            (Metrics{{"accuracy", 0.5}}));
}

TEST(ParseMetricLineTest, StepComesFromGlobalStepThenStepThenEpoch) {
  EXPECT_EQ(ParseMetricLine("epoch=2 step=30 global_step=400 accuracy=0.9",
                            "accuracy", 1)
                ->step,
            400);
  EXPECT_EQ(
      ParseMetricLine("epoch=2 step=30 accuracy=0.9", "accuracy", 1)->step, 30);
  EXPECT_EQ(ParseMetricLine("epoch=2 accuracy=0.9", "accuracy", 1)->step, 2);
  EXPECT_EQ(ParseMetricLine("accuracy=0.9", "accuracy", 5)->step, 5);
  // Step keys are metrics too, as every numeric pair is kept.
  EXPECT_EQ(ParseMetricLine("epoch=2 accuracy=0.9", "accuracy", 1)->metrics,
            (Metrics{{"accuracy", 0.9}, {"epoch", 2}}));
}

TEST(ParseMetricLineTest, InvalidStepsFallBack) {
  // A negative or fractional step is no step; the next key or the default
  // applies.
  EXPECT_EQ(ParseMetricLine("step=-3 accuracy=0.9", "accuracy", 5)->step, 5);
  EXPECT_EQ(
      ParseMetricLine("step=2.5 epoch=4 accuracy=0.9", "accuracy", 5)->step, 4);
  EXPECT_EQ(ParseMetricLine("step=1e300 accuracy=0.9", "accuracy", 5)->step, 5);
}

TEST(ParseMetricLineTest, FreeTextTokensAreIgnored) {
  std::optional<Measurement> m =
      ParseMetricLine("Epoch 3: loss=0.2 accuracy=0.9", "accuracy", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->metrics, (Metrics{{"accuracy", 0.9}, {"loss", 0.2}}));
  m = ParseMetricLine("[INFO] trainer.py:42 accuracy=0.8 (best so far)",
                      "accuracy", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->metrics, (Metrics{{"accuracy", 0.8}}));
  // A timestamp after free text is free text: the time stays unset.
  m = ParseMetricLine("INFO 2026-11-21T10:00:00Z accuracy=0.7", "accuracy", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->time, Timestamp{});
}

TEST(ParseMetricLineTest, ThingsThatLookLikePairsButAreNot) {
  for (const char* line :
       {"accuracy: 0.9", "accuracy = 0.9", "--accuracy=0.9", "{accuracy=0.9}",
        "\"accuracy\"=0.9", "3accuracy=0.9", "accuracy==0.9",
        "accuracy=0.9=1"}) {
    EXPECT_EQ(ParseMetricLine(line, "accuracy", 1), std::nullopt) << line;
  }
}

TEST(ParseMetricLineTest, NamesWithSlashesDotsAndDashes) {
  std::optional<Measurement> m =
      ParseMetricLine("training/hptuning/metric=0.5 val.top-1=0.7",
                      "training/hptuning/metric", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->metrics,
            (Metrics{{"training/hptuning/metric", 0.5}, {"val.top-1", 0.7}}));
}

TEST(ParseMetricLineTest, LastFinitePairOfANameWins) {
  EXPECT_EQ(ParseMetricLine("accuracy=0.1 accuracy=0.2", "accuracy", 1)
                ->metrics.at("accuracy"),
            0.2);
  EXPECT_EQ(ParseMetricLine("accuracy=0.1 accuracy=nan", "accuracy", 1)
                ->metrics.at("accuracy"),
            0.1);
}

TEST(NonFiniteMetricValueTest, NamesTheValueOfADivergedObjective) {
  EXPECT_EQ(NonFiniteMetricValue("loss=nan", "loss"), "nan");
  EXPECT_EQ(NonFiniteMetricValue("step=3 loss=-inf", "loss"), "-inf");
  EXPECT_EQ(NonFiniteMetricValue("loss=Infinity", "loss"), "Infinity");
  EXPECT_EQ(NonFiniteMetricValue("loss=1e400", "loss"), "1e400");
  EXPECT_EQ(NonFiniteMetricValue("loss=0.5", "loss"), std::nullopt);
  // Not a number at all, another metric, a finite value beside it (the
  // line's value, as ParseMetricLine takes it): not it.
  EXPECT_EQ(NonFiniteMetricValue("loss=high", "loss"), std::nullopt);
  EXPECT_EQ(NonFiniteMetricValue("acc=nan loss=0.1", "loss"), std::nullopt);
  EXPECT_EQ(NonFiniteMetricValue("loss=nan loss=0.1", "loss"), std::nullopt);
  EXPECT_EQ(NonFiniteMetricValue("loss=0.1 loss=nan", "loss"), std::nullopt);
  EXPECT_EQ(NonFiniteMetricValue("the loss is nan", "loss"), std::nullopt);
}

}  // namespace
}  // namespace hptune::launch
